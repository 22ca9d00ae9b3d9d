// `roster invite send` and `roster invite list` as a user or script runs them: the built CLI in a real
// process against the sandbox over HTTP.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { insecureLogin, useSandbox } from '../helpers/sandbox.js';

const fixture = useSandbox();
const { roster } = fixture;
const sender = ['--sent-by-user-id', 'usr-42'];

describe('invite send', () => {
  it('without a sender, a saved profile is told the command that saves one, which then works', async () => {
    const home = tempDir();
    const { args, input } = insecureLogin(fixture.sandbox, ['--profile', 'east']);
    expect((await runCli(args, home, { input })).code).toBe(0);
    const send = [
      '--profile',
      'east',
      'invite',
      'send',
      '--email',
      'a@example.org',
      '--school-id',
      'org-sch-1',
    ];
    const refused = await runCli(send, home);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      'pass --sent-by-user-id, or save a default with `roster config set sentByUserId ID --profile east`.',
    );
    const saved = await runCli(['config', 'set', 'sentByUserId', 'usr-42', '--profile', 'east'], home);
    expect(saved.code, saved.stderr).toBe(0);
    expect((await runCli([...send, '--dry-run'], home)).code).toBe(0);
  });

  it('the body reaching the server has the spec names and JSON types; the token came from /ims/oneroster/v1p1/token', async () => {
    const result = await roster([
      'invite',
      'send',
      '--email',
      'e2e-body@example.org',
      '--school-id',
      'org-sch-1',
      ...sender,
      '--student-count',
      '2',
      '--interest-form-submission-id',
      'ifs-9',
      '--learning-center-id',
      'lc-3',
    ]);
    expect(result).toMatchObject({
      code: 0,
      stdout: '✓ Invitation sent to e2e-body@example.org\n',
      stderr: '',
    });
    // The school id is checked against the district's schools first (then cached for a day).
    const [token, schools, post] = fixture.sandbox.requests;
    expect(token?.path).toBe('/v1/ims/oneroster/v1p1/token');
    expect(`${schools?.method} ${schools?.path}`).toBe('GET /v1/ims/oneroster/v1p1/schools');
    expect(post?.path).toBe('/v1/enrollment/invitations');
    expect(post?.headers['content-type']).toBe('application/json');
    // The bearer token on the POST is the one the OneRoster 1.1 token endpoint issued.
    expect(post?.headers.authorization).toMatch(/^Bearer \S+$/);
    expect(JSON.parse(post?.body ?? '')).toStrictEqual({
      email: 'e2e-body@example.org',
      schoolId: 'org-sch-1',
      scopes: ['fillEnrollment'],
      interestFormSubmissionId: 'ifs-9',
      studentCount: 2,
      learningCenterId: 'lc-3',
      sentByUserId: 'usr-42',
    });
    expect(fixture.sandbox.invitations().find((r) => r.email === 'e2e-body@example.org')?.tokenEndpoint).toBe(
      '/ims/oneroster/v1p1/token',
    );
  });

  it.each([
    [
      'missing --sent-by-user-id',
      ['--email', 'a@example.org', '--school-id', 'org-sch-1'],
      '--sent-by-user-id is required',
    ],
    [
      'a malformed e-mail',
      ['--email', 'parent@@example', '--school-id', 'org-sch-1', ...sender],
      '--email "parent@@example" is not a valid e-mail address',
    ],
    [
      '--student-count 0',
      ['--email', 'a@example.org', '--school-id', 'org-sch-1', ...sender, '--student-count', '0'],
      '--student-count must be a positive whole number',
    ],
    [
      '--student-count abc',
      ['--email', 'a@example.org', '--school-id', 'org-sch-1', ...sender, '--student-count', 'abc'],
      '--student-count must be a positive whole number',
    ],
  ])('%s: exit 2 and no HTTP request at all (not even a token request)', async (_name, args, message) => {
    const result = await roster(['invite', 'send', ...args]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(message);
    expect(fixture.sandbox.requests).toHaveLength(0);
  });

  it('--dry-run sends nothing', async () => {
    const result = await roster([
      'invite',
      'send',
      '--email',
      'dry@example.org',
      '--school-id',
      'org-sch-1',
      ...sender,
      '--dry-run',
      '--json',
    ]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      method: 'POST',
      url: `${fixture.sandbox.baseUrl}/enrollment/invitations`,
      tokenEndpoint: `${fixture.sandbox.baseUrl}/ims/oneroster/v1p1/token`,
      body: {
        email: 'dry@example.org',
        schoolId: 'org-sch-1',
        scopes: ['fillEnrollment'],
        studentCount: 1,
        sentByUserId: 'usr-42',
      },
    });
    // Reads only: a token and the district's schools (to check the school id); no invitation.
    expect(fixture.sandbox.requests.filter((r) => r.path.endsWith('/invitations'))).toHaveLength(0);
    expect(fixture.sandbox.requests.map((r) => r.path)).toEqual([
      '/v1/ims/oneroster/v1p1/token',
      '/v1/ims/oneroster/v1p1/schools',
    ]);
    expect(fixture.sandbox.outbox.some((m) => m.to === 'dry@example.org')).toBe(false);
  });
});

describe('invite list', () => {
  it('--json round-trips what invite send created', async () => {
    const sent = await roster([
      'invite',
      'send',
      '--email',
      'round@example.org',
      '--school-id',
      'org-sch-3',
      ...sender,
      '--student-count',
      '4',
      '--school-year-id',
      '2026-27',
      '--json',
    ]);
    expect(sent.code).toBe(0);
    expect(JSON.parse(sent.stdout)).toEqual({
      success: true,
      message: 'Invitation sent to round@example.org',
    });
    const body = JSON.parse(
      fixture.sandbox.requests.find((r) => r.method === 'POST' && r.path.endsWith('/invitations'))?.body ??
        '',
    );

    const listed = await roster([
      'invite',
      'list',
      '--email',
      'round@example.org',
      '--school-id',
      'org-sch-3',
      '--json',
    ]);
    expect(listed.code).toBe(0);
    const page = JSON.parse(listed.stdout);
    expect(page.meta).toEqual({ page: 1, perPage: 25, total: 1, totalPages: 1 });
    expect(page.data).toHaveLength(1);
    expect(page.data[0]).toMatchObject(body);
    expect(page.data[0]).toMatchObject({ status: 'sent', id: expect.any(String) });
  });

  it('an empty list: a note on stderr, exit 0', async () => {
    const result = await roster(['invite', 'list', '--email', 'nobody-invited@example.org']);
    expect(result).toEqual({ code: 0, stdout: '', stderr: 'No invitations found.\n' });
  });
});

describe('invite send --file with bad rows', () => {
  it('every bad row reported with its line number, exit 2, nothing sent', async () => {
    const file = join(tempDir(), 'bad.csv');
    writeFileSync(
      file,
      '\ufeffemail,schoolId,studentCount,sentByUserId\r\n' +
        'good@example.org,org-sch-1,1,u1\r\n' +
        'broken-address,org-sch-1,1,u1\r\n' +
        '"quoted, fine@example.org",org-sch-1,1,u1\r\n' +
        'count@example.org,org-sch-1,abc,u1\r\n' +
        'good@example.org,org-sch-1,3,u1\r\n' +
        'nosender@example.org,s2,1,\r\n' +
        '\r\n\r\n',
    );
    const result = await roster(['invite', 'send', '--file', file]);
    expect(result.code).toBe(2);
    const reported = [...result.stderr.matchAll(/^ {2}line (\d+): /gm)].map((m) => Number(m[1]));
    expect(reported).toEqual([3, 4, 5, 6, 7]);
    expect(result.stderr).toContain(
      'line 6: duplicate of line 2 (same email good@example.org and schoolId org-sch-1)',
    );
    // Its every problem, the school it names included (the district's schools read, nothing sent).
    expect(result.stderr).toContain(
      'line 7: sentByUserId is required; schoolId "s2" is not the name, identifier or sourcedId of a school of this district',
    );
    expect(result.stderr).toMatch(/Error: .*bad\.csv: 5 problems found \(listed above\); nothing was sent\./);
    expect(
      fixture.sandbox.requests.filter((r) => !r.path.endsWith('/schools') && !r.path.endsWith('/token')),
    ).toEqual([]);
  });
});
