// `--school-id` and a CSV's schoolId column as a school's name, identifier or sourcedId, resolved against
// the district's schools (OneRoster `schools`, cached for a day): the built CLI against the sandbox, and
// what reached the sandbox.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/context.js';
import { demoEnv, useSandbox } from '../helpers/sandbox.js';

const fixture = useSandbox();
const sender = ['--sent-by-user-id', 'usr-42'];
const roster = (args: string[], clientId = 'demo-allowed') =>
  fixture.roster(args, { env: demoEnv(fixture.sandbox, clientId) });
const send = (email: string, school: string, ...more: string[]) =>
  roster(['invite', 'send', '--email', email, '--school-id', school, ...sender, ...more]);

const invitationPosts = () =>
  fixture.sandbox.requests.filter((r) => r.method === 'POST' && r.path === '/v1/enrollment/invitations');
const schoolReads = () => fixture.sandbox.requests.filter((r) => r.path.endsWith('/schools'));
const sentSchool = (email: string) =>
  invitationPosts()
    .map((r) => JSON.parse(r.body) as { email: string; schoolId: string })
    .filter((b) => b.email === email)
    .map((b) => b.schoolId);
const cacheDir = () => join(fixture.home, '.cache', 'roster', 'schools');
const cacheFiles = () => readdirSync(cacheDir()).map((name) => join(cacheDir(), name));

describe('--school-id resolution', () => {
  it('a name (any case, extra spaces) reaches the server as the school sourcedId', async () => {
    const result = await send('name@example.org', '  alder   ELEMENTARY school ');
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(
      '--school-id "alder   ELEMENTARY school" is Alder Elementary School: sourcedId org-sch-1.\n',
    );
    expect(sentSchool('name@example.org')).toEqual(['org-sch-1']);
  });

  it('an identifier resolves too; a sourcedId is sent as given, without a note', async () => {
    expect((await send('ident@example.org', '360001000004')).code).toBe(0);
    expect(sentSchool('ident@example.org')).toEqual(['org-sch-4']);
    const byId = await send('id@example.org', 'org-sch-5');
    expect(byId).toMatchObject({ code: 0, stderr: '' });
    expect(sentSchool('id@example.org')).toEqual(['org-sch-5']);
  });

  it('an ambiguous name: exit 2, both candidates listed, zero requests to the invitation endpoint', async () => {
    const result = await send('ambiguous@example.org', 'fir grove school');
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(
      'Error: --school-id "fir grove school" matches 2 schools: Fir Grove School (identifier 360001000006, sourcedId org-sch-6); Fir Grove School (identifier 360001000007, sourcedId org-sch-7).',
    );
    expect(result.stderr).toContain('Give its identifier or sourcedId instead; nothing was sent.');
    expect(invitationPosts()).toHaveLength(0);
    // Its identifier picks one of the two.
    expect((await send('ambiguous@example.org', '360001000007')).code).toBe(0);
    expect(sentSchool('ambiguous@example.org')).toEqual(['org-sch-7']);
  });

  it('an unknown value: exit 2 with the schools whose name contains it, nothing sent', async () => {
    const result = await send('unknown@example.org', 'Alder');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'Error: --school-id "Alder" is not the name, identifier or sourcedId of a school of this district; names that contain it: Alder Elementary School (identifier 360001000001, sourcedId org-sch-1).',
    );
    expect(invitationPosts()).toHaveLength(0);
    const made = await send('unknown@example.org', 'sch-001');
    expect(made.code).toBe(2);
    expect(made.stderr).toContain('`roster roster schools` lists the schools; nothing was sent.');
    expect(invitationPosts()).toHaveLength(0);
  });

  it('a dry run shows the resolved sourcedId', async () => {
    const result = await send('dry@example.org', 'Dogwood Middle School', '--dry-run', '--json');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).body.schoolId).toBe('org-sch-4');
    expect(invitationPosts()).toHaveLength(0);
  });
});

describe('the schools cache', () => {
  it('is read once a day per profile and client, private, and never shared with another client', async () => {
    expect((await send('c1@example.org', 'Birch Elementary School')).code).toBe(0);
    expect(schoolReads()).toHaveLength(1);
    const [file] = cacheFiles();
    expect(statSync(file as string).mode & 0o777).toBe(0o600);
    expect(statSync(cacheDir()).mode & 0o777).toBe(0o700);
    expect(JSON.parse(readFileSync(file as string, 'utf8')).key).toEqual({
      profile: 'default',
      baseUrl: fixture.sandbox.baseUrl,
      clientId: 'demo-allowed',
      oneroster: '1.1',
    });

    // Names and sourcedIds alike now resolve with no read at all.
    fixture.sandbox.requests.length = 0;
    expect((await send('c2@example.org', 'birch elementary school')).code).toBe(0);
    expect((await send('c3@example.org', 'org-sch-3')).code).toBe(0);
    expect(schoolReads()).toHaveLength(0);

    // Another client of the same district has its own list.
    expect(
      (
        await roster(
          ['invite', 'send', '--email', 'c4@example.org', '--school-id', 'org-sch-3', ...sender],
          'demo-special',
        )
      ).code,
    ).toBe(0);
    expect(schoolReads()).toHaveLength(1);
    expect(cacheFiles()).toHaveLength(2);

    // --refresh-schools reads again.
    fixture.sandbox.requests.length = 0;
    expect((await send('c5@example.org', 'org-sch-3', '--refresh-schools')).code).toBe(0);
    expect(schoolReads()).toHaveLength(1);
  });

  it('a list older than a day is read again', async () => {
    expect((await send('old1@example.org', 'org-sch-2')).code).toBe(0);
    const [file] = cacheFiles();
    const entry = JSON.parse(readFileSync(file as string, 'utf8'));
    writeFileSync(file as string, JSON.stringify({ ...entry, readAt: Date.now() - 25 * 3600_000 }));
    fixture.sandbox.requests.length = 0;
    expect((await send('old2@example.org', 'org-sch-2')).code).toBe(0);
    expect(schoolReads()).toHaveLength(1);
  });

  it('a value the cached list does not know makes one fresh read before it is resolved or refused', async () => {
    expect((await send('new1@example.org', 'org-sch-2')).code).toBe(0);
    // As if the cache was written before Cedar opened.
    const [file] = cacheFiles();
    const entry = JSON.parse(readFileSync(file as string, 'utf8'));
    entry.schools = entry.schools.filter((s: { sourcedId: string }) => s.sourcedId !== 'org-sch-3');
    writeFileSync(file as string, JSON.stringify(entry));
    fixture.sandbox.requests.length = 0;
    expect((await send('new2@example.org', 'Cedar Elementary School')).code).toBe(0);
    expect(schoolReads()).toHaveLength(1);
    expect(sentSchool('new2@example.org')).toEqual(['org-sch-3']);
    // An unknown one is refused after exactly one read.
    fixture.sandbox.requests.length = 0;
    expect((await send('new3@example.org', 'Oak Elementary School')).code).toBe(2);
    expect(schoolReads()).toHaveLength(1);
  });

  it('a planted or damaged cache file is ignored, never trusted', async () => {
    expect((await send('p1@example.org', 'org-sch-2')).code).toBe(0);
    const [file] = cacheFiles();
    const entry = JSON.parse(readFileSync(file as string, 'utf8'));
    // Another district's list under this key's file name: its schools must not answer for this one.
    writeFileSync(
      file as string,
      JSON.stringify({
        ...entry,
        key: { ...entry.key, baseUrl: 'https://other.example/v1' },
        schools: [{ sourcedId: 'evil-1', name: 'Alder Elementary School', identifier: '', status: 'active' }],
      }),
    );
    fixture.sandbox.requests.length = 0;
    expect((await send('p2@example.org', 'Alder Elementary School')).code).toBe(0);
    expect(sentSchool('p2@example.org')).toEqual(['org-sch-1']);
    expect(schoolReads()).toHaveLength(1);
    writeFileSync(file as string, '{"not json');
    expect((await send('p3@example.org', 'org-sch-1')).code).toBe(0);
  });
});

describe('when the schools cannot be read', () => {
  it('a client the server refuses OneRoster reads: the value is sent as given, with a warning', async () => {
    fixture.sandbox.injectFault({ match: (r) => r.path.endsWith('/schools'), status: 403, times: 1 });
    const result = await send('noscope@example.org', 'sch-outside-oneroster');
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(
      /^Warning: could not read the district's schools to check school ids \(.*HTTP 403.*\); values are sent as given\.\n$/,
    );
    expect(sentSchool('noscope@example.org')).toEqual(['sch-outside-oneroster']);
    expect(existsSync(cacheDir())).toBe(false);
  });

  it('a name that cannot be resolved is refused, exit 1, saying what to do: nothing is sent', async () => {
    fixture.sandbox.injectFault({ match: (r) => r.path.endsWith('/schools'), status: 403, times: 1 });
    const result = await send('byname@example.org', 'Birch Elementary School');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^Warning: could not read the district's schools to check school ids \(.*HTTP 403.*\); values are sent as given\.\n/,
    );
    expect(result.stderr).toContain(
      `Error: --school-id "Birch Elementary School" cannot be resolved: the district's schools could not be read, and it is not a school id (letters, digits, ".", "_", "-" and ":", starting with a letter or digit, no spaces). Nothing was sent. Give the school's sourcedId instead, or run again once the schools can be read (\`roster roster schools\` lists them).`,
    );
    expect(invitationPosts()).toEqual([]);
  });

  it('in a CSV, a row naming its school by name is refused by line (an id would go as given): nothing is sent', async () => {
    fixture.sandbox.injectFault({ match: (r) => r.path.endsWith('/schools'), status: 403, times: 1 });
    const file = join(tempDir(), 'names.csv');
    writeFileSync(
      file,
      'email,schoolId\nbyid@example.org,org-sch-1\nbyname@example.org,Birch Elementary School\n',
    );
    const result = await roster(['invite', 'send', '--file', file, ...sender]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `  line 3: schoolId "Birch Elementary School" cannot be resolved: the district's schools could not be read, and it is not a school id (letters, digits, ".", "_", "-" and ":", starting with a letter or digit, no spaces)`,
    );
    expect(result.stderr).not.toContain('line 2');
    expect(invitationPosts()).toEqual([]);
  });
});

describe('a hostile schools list', () => {
  const hostile = () =>
    fixture.sandbox.injectFault({
      match: (r) => r.path.endsWith('/schools'),
      status: 200,
      body: {
        orgs: [
          {
            sourcedId: 'org\u001b[2Jevil',
            name: 'Evil\u001b[31m School',
            identifier: 'E1',
            status: 'active',
          },
          { sourcedId: 'x'.repeat(5000), name: 'Huge', identifier: 'E2', status: 'active' },
        ],
      },
    });

  it('an id with a control character that a name resolves to is refused like a typed one, never sent or echoed raw', async () => {
    hostile();
    const result = await send('hostile@example.org', 'E1');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'Error: Invalid invitation: --school-id "E1" is the school with sourcedId "org\\u001b[2Jevil", which contains a control character (U+001B at character 4). Nothing was sent.',
    );
    expect(result.stderr).not.toContain('\u001b');
    // An id too long to be one is dropped from the list: its identifier names no school.
    hostile();
    const huge = await send('hostile@example.org', 'E2', '--refresh-schools');
    expect(huge.code).toBe(2);
    expect(huge.stderr).toContain('"E2" is not the name, identifier or sourcedId of a school');
    expect(invitationPosts()).toHaveLength(0);
  });

  it('the same in a CSV, reported by line', async () => {
    hostile();
    const file = join(tempDir(), 'hostile.csv');
    writeFileSync(file, 'email,schoolId\nh1@example.org,E1\n');
    const result = await roster(['invite', 'send', '--file', file, ...sender]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      '  line 2: schoolId "E1" is the school with sourcedId "org\\u001b[2Jevil", which contains a control character (U+001B at character 4)',
    );
    expect(invitationPosts()).toHaveLength(0);
  });
});

describe('a CSV schoolId column', () => {
  const csv = (text: string) => {
    const file = join(tempDir(), 'invites.csv');
    writeFileSync(file, text);
    return file;
  };

  it('names, identifiers and sourcedIds resolve per row with one read of the schools; a dry run shows the sourcedIds', async () => {
    const file = csv(
      'email,schoolId\n' +
        'a@example.org,Alder Elementary School\n' +
        'b@example.org,360001000002\n' +
        'c@example.org,org-sch-3\n' +
        'd@example.org,elm high school\n',
    );
    const dry = await roster(['invite', 'send', '--file', file, ...sender, '--dry-run']);
    expect(dry.code).toBe(0);
    const bodies = dry.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { line: number; body: { schoolId: string } });
    expect(bodies.map((b) => [b.line, b.body.schoolId])).toEqual([
      [2, 'org-sch-1'],
      [3, 'org-sch-2'],
      [4, 'org-sch-3'],
      [5, 'org-sch-5'],
    ]);
    expect(schoolReads()).toHaveLength(1);
    expect(invitationPosts()).toHaveLength(0);

    const sent = await roster(['invite', 'send', '--file', file, ...sender]);
    expect(sent.code).toBe(0);
    expect(sentSchool('d@example.org')).toEqual(['org-sch-5']);
    expect(schoolReads()).toHaveLength(1); // the second run answered from the cache
  });

  it('an unknown and an ambiguous school are reported with their lines, exit 2, nothing sent', async () => {
    const file = csv(
      'email,schoolId\n' +
        'ok@example.org,Alder Elementary School\n' +
        'typo@example.org,Alder Elementery School\n' +
        'two@example.org,Fir Grove School\n',
    );
    const result = await roster(['invite', 'send', '--file', file, ...sender]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      '  line 3: schoolId "Alder Elementery School" is not the name, identifier or sourcedId of a school of this district',
    );
    expect(result.stderr).toContain(
      '  line 4: schoolId "Fir Grove School" matches 2 schools: Fir Grove School (identifier 360001000006, sourcedId org-sch-6); Fir Grove School (identifier 360001000007, sourcedId org-sch-7)',
    );
    expect(result.stderr).toContain('2 problems found (listed above); nothing was sent.');
    expect(invitationPosts()).toHaveLength(0);
    // The list was read from the server in this run, so it is not read again for the misses.
    expect(schoolReads()).toHaveLength(1);
  });

  it('a name and the sourcedId of one school for one address are one invitation: a duplicate', async () => {
    const file = csv(
      'email,schoolId\nsame@example.org,Birch Elementary School\nsame@example.org,org-sch-2\n',
    );
    const result = await roster(['invite', 'send', '--file', file, ...sender]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      '  line 3: duplicate of line 2 (same email same@example.org and schoolId org-sch-2)',
    );
    expect(invitationPosts()).toHaveLength(0);
  });

  it('--school-id fills rows without one, resolved once; a bad one is a usage error before any row', async () => {
    const file = csv('email,schoolId\nfill-1@example.org,\nfill-2@example.org,org-sch-1\n');
    const dry = await roster([
      'invite',
      'send',
      '--file',
      file,
      '--school-id',
      'Cedar Elementary School',
      ...sender,
      '--dry-run',
    ]);
    expect(dry.code).toBe(0);
    expect(
      dry.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).body.schoolId),
    ).toEqual(['org-sch-3', 'org-sch-1']);
    const bad = await roster([
      'invite',
      'send',
      '--file',
      file,
      '--school-id',
      'Fir Grove School',
      ...sender,
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('Error: --school-id "Fir Grove School" matches 2 schools');
    expect(invitationPosts()).toHaveLength(0);
  });
});
