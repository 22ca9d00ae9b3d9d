// A school by name wherever a school is asked for: `invite list --school-id` and `roster <collection>
// --school` take a school's sourcedId, name or identifier as `invite send` and `invite plan` do, resolved
// against the district's schools (OneRoster 1.1 and 1.2). The built CLI against the sandbox, and what
// reached it.
import { describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/sandbox.js';

const fixture = useSandbox();
const { roster } = fixture;
const paths = () => fixture.sandbox.requests.map((r) => r.path);
const invitationReads = () =>
  fixture.sandbox.requests.filter((r) => r.method === 'GET' && r.path === '/v1/enrollment/invitations');

describe('invite list --school-id', () => {
  it('a name lists the invitations sent to that school (its sourcedId reached the server)', async () => {
    const sent = await roster([
      'invite',
      'send',
      '--email',
      'list-by-name@example.org',
      '--school-id',
      'org-sch-4',
      '--sent-by-user-id',
      'usr-42',
    ]);
    expect(sent.code).toBe(0);
    fixture.sandbox.requests.length = 0;
    const listed = await roster(['invite', 'list', '--school-id', 'dogwood middle school', '--json']);
    expect(listed.code).toBe(0);
    expect(listed.stderr).toBe(
      '--school-id "dogwood middle school" is Dogwood Middle School: sourcedId org-sch-4.\n',
    );
    const page = JSON.parse(listed.stdout) as { data: { email: string; schoolId: string }[] };
    expect(page.data.map((d) => d.email)).toContain('list-by-name@example.org');
    expect(new Set(page.data.map((d) => d.schoolId))).toEqual(new Set(['org-sch-4']));
    const [read] = invitationReads();
    expect(new URLSearchParams(read?.rawQuery).get('schoolId')).toBe('org-sch-4');
    // An identifier resolves too.
    const byIdentifier = await roster(['invite', 'list', '--school-id', '360001000004', '--json']);
    expect(byIdentifier.code).toBe(0);
    expect(JSON.parse(byIdentifier.stdout).data).toEqual(page.data);
  });

  it('an ambiguous name: exit 2 listing both candidates, the invitations never asked for', async () => {
    const result = await roster(['invite', 'list', '--school-id', 'Fir Grove School']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(
      'Error: --school-id "Fir Grove School" matches 2 schools: Fir Grove School (identifier 360001000006, sourcedId org-sch-6); Fir Grove School (identifier 360001000007, sourcedId org-sch-7).',
    );
    expect(invitationReads()).toHaveLength(0);
  });

  it('an unknown name: exit 2 (not "No invitations found"), with the way to list an unlisted id as given', async () => {
    const result = await roster(['invite', 'list', '--school-id', 'Alder Elementery School']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'Error: --school-id "Alder Elementery School" is not the name, identifier or sourcedId of a school of this district.',
    );
    expect(result.stderr).toContain('pass --param schoolId=Alder Elementery School');
    expect(result.stderr).not.toContain('No invitations found');
    expect(invitationReads()).toHaveLength(0);
    // --param passes a value as given, for invitations sent to a school the list does not have.
    const given = await roster(['invite', 'list', '--param', 'schoolId=sch-opening-2027']);
    expect(given).toMatchObject({ code: 0, stderr: 'No invitations found.\n' });
    expect(new URLSearchParams(invitationReads()[0]?.rawQuery).get('schoolId')).toBe('sch-opening-2027');
  });
});

describe.each(['1.1', '1.2'])('roster <collection> --school (OneRoster %s)', (version) => {
  const read = (args: string[]) => roster(['--oneroster', version, 'roster', ...args]);

  it('a name reads below the school sourcedId, the same records as the sourcedId gives', async () => {
    const byId = await read(['students', '--school', 'org-sch-2', '--limit', '5', '--json']);
    expect(byId.code).toBe(0);
    fixture.sandbox.requests.length = 0;
    const byName = await read(['students', '--school', 'Birch Elementary School', '--limit', '5', '--json']);
    expect(byName.code).toBe(0);
    expect(byName.stderr).toBe(
      '--school "Birch Elementary School" is Birch Elementary School: sourcedId org-sch-2.\n',
    );
    expect(byName.stdout).toBe(byId.stdout);
    expect(JSON.parse(byName.stdout)).toHaveLength(5);
    expect(paths().filter((p) => p.endsWith('/schools/org-sch-2/students'))).toHaveLength(1);
    const teachers = await read(['teachers', '--school', '360001000002', '--limit', '1', '--json']);
    expect(teachers.code).toBe(0);
    expect(paths().some((p) => p.endsWith('/schools/org-sch-2/teachers'))).toBe(true);
  });

  it('an ambiguous name is a usage error listing the candidates; an unknown one exit 2; nothing read below', async () => {
    const two = await read(['students', '--school', 'fir grove school']);
    expect(two.code).toBe(2);
    expect(two.stderr).toContain('Error: --school "fir grove school" matches 2 schools: Fir Grove School');
    expect(two.stderr).toContain('sourcedId org-sch-6');
    expect(two.stderr).toContain('sourcedId org-sch-7');
    const none = await read(['students', '--school', 'Oak Elementary School']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain(
      'Error: --school "Oak Elementary School" is not the name, identifier or sourcedId of a school of this district.',
    );
    expect(paths().filter((p) => p.includes('/schools/') && !p.endsWith('/schools'))).toEqual([]);
  });
});
