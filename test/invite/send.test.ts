// `roster invite send` for one invitation, in-process against the sandbox.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { listOutOfUse } from '../helpers/sandbox.js';
import { posts, roster, scriptedPrompter } from './helpers.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ seed: 7 });
});
afterAll(() => sandbox.close());
beforeEach(() => {
  sandbox.requests.length = 0;
  sandbox.outbox.length = 0;
  sandbox.clearFaults();
});

const required = ['--school-id', 'org-sch-1', '--sent-by-user-id', 'usr-42'];

describe('invite send', () => {
  it('sends the spec field names with JSON types, with a token from the OneRoster 1.1 endpoint', async () => {
    const run = await roster(sandbox, [
      'invite',
      'send',
      '--email',
      'body@example.org',
      ...required,
      '--student-count',
      '3',
      '--scope',
      'fillEnrollment',
      '--school-year-id',
      '2026-27',
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('✓ Invitation sent to body@example.org\n');
    // The school id is checked against the district's schools (read once, then cached for a day).
    expect(sandbox.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      'POST /v1/ims/oneroster/v1p1/token 200',
      'GET /v1/ims/oneroster/v1p1/schools 200',
      'POST /v1/enrollment/invitations 201',
    ]);
    const [post] = posts(sandbox);
    expect(post?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(post?.body ?? '')).toStrictEqual({
      email: 'body@example.org',
      schoolId: 'org-sch-1',
      scopes: ['fillEnrollment'],
      studentCount: 3,
      schoolYearId: '2026-27',
      sentByUserId: 'usr-42',
    });
    const record = sandbox.invitations().find((r) => r.email === 'body@example.org');
    expect(record?.tokenEndpoint).toBe('/ims/oneroster/v1p1/token');
    expect(sandbox.outbox.map((m) => m.to)).toEqual(['body@example.org']);
  });

  it('--json prints the server body', async () => {
    const run = await roster(sandbox, [
      'invite',
      'send',
      '--email',
      'json@example.org',
      ...required,
      '--json',
    ]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ success: true, message: 'Invitation sent to json@example.org' });
  });

  it.each([
    [
      'missing --sent-by-user-id',
      ['--email', 'a@example.org', '--school-id', 'org-sch-1'],
      /--sent-by-user-id is required/,
    ],
    [
      'a malformed e-mail',
      ['--email', 'not-an-email', ...required],
      /--email "not-an-email" is not a valid e-mail address/,
    ],
    [
      '--student-count 0',
      ['--email', 'a@example.org', ...required, '--student-count', '0'],
      /--student-count must be a positive whole number \(got "0"\)/,
    ],
    [
      '--student-count abc',
      ['--email', 'a@example.org', ...required, '--student-count', 'abc'],
      /--student-count must be a positive whole number/,
    ],
    [
      'an unknown scope',
      ['--email', 'a@example.org', ...required, '--scope', 'admin'],
      /--scope unknown scope "admin"/,
    ],
    ['a missing --email', [...required], /--email is required/],
  ])('%s: exit 2, the flag named, no request at all', async (_name, args, message) => {
    const run = await roster(sandbox, ['invite', 'send', ...args]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(sandbox.requests).toHaveLength(0);
  });

  it('the profile default sentByUserId is used when the flag is absent', async () => {
    const { writeFileSync, mkdirSync } = await import('node:fs');
    const first = await roster(sandbox, [
      'invite',
      'send',
      '--email',
      'x@example.org',
      '--school-id',
      'org-sch-1',
      '--dry-run',
    ]);
    expect(first.code).toBe(2);
    mkdirSync(`${first.home}/config`, { recursive: true });
    writeFileSync(
      `${first.home}/config/config.json`,
      JSON.stringify({ profiles: { default: { sentByUserId: 'usr-profile' } } }),
    );
    const run = await roster(
      sandbox,
      ['invite', 'send', '--email', 'x@example.org', '--school-id', 'org-sch-1', '--dry-run', '--json'],
      { home: first.home },
    );
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).body.sentByUserId).toBe('usr-profile');
  });

  it('--dry-run prints method, URL, token endpoint and body, and sends nothing', async () => {
    const run = await roster(sandbox, [
      'invite',
      'send',
      '--email',
      'dry@example.org',
      ...required,
      '--dry-run',
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`POST ${sandbox.baseUrl}/enrollment/invitations\n`);
    expect(run.stdout).toContain(
      `Authorization: Bearer <token from ${sandbox.baseUrl}/ims/oneroster/v1p1/token>`,
    );
    expect(run.stdout).toContain('"studentCount": 1');
    expect(run.stderr).toBe('Dry run: nothing was sent.\n');
    // Only the school id was checked: a token and the district's schools, no invitation.
    expect(sandbox.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /v1/ims/oneroster/v1p1/token',
      'GET /v1/ims/oneroster/v1p1/schools',
    ]);
    expect(posts(sandbox)).toHaveLength(0);
  });

  it("a server refusal shows the server's message, exit 1", async () => {
    sandbox.injectFault({
      match: (r) => r.method === 'POST' && r.path === '/enrollment/invitations',
      status: 422,
      body: { message: 'school org-sch-1 is closed' },
    });
    const run = await roster(sandbox, ['invite', 'send', '--email', 'closed@example.org', ...required]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'Error: Invitation to closed@example.org failed (HTTP 422): school org-sch-1 is closed.\n',
    );
  });

  it('a connection cut after the request was sent: outcome unknown, how to check, never sent again', async () => {
    // The list out of use: these rows stay in doubt (the list settling them: settle-rerun.test.ts).
    listOutOfUse(sandbox);
    sandbox.injectFault({
      match: (r) => r.method === 'POST' && r.path === '/enrollment/invitations',
      drop: true,
    });
    const run = await roster(sandbox, ['invite', 'send', '--email', 'cut@example.org', ...required]);
    expect(run.code).toBe(5);
    const lines = run.stderr.trim().split('\n');
    // The error, after one line saying the list (out of use) could not settle it.
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^Warning: roster cannot settle invitations in doubt by the server's list/);
    expect(lines[1]).toMatch(/outcome is unknown/);
    expect(lines[1]).toContain('roster invite list --email cut@example.org --school-id org-sch-1');
    expect(posts(sandbox)).toHaveLength(1);
    expect(sandbox.outbox.map((m) => m.to)).toEqual(['cut@example.org']); // it was sent: one e-mail, not two
  });

  it('a 503 with Retry-After (certainly not processed) is retried', async () => {
    sandbox.injectFault({
      match: (r) => r.method === 'POST' && r.path === '/enrollment/invitations',
      status: 503,
      headers: { 'Retry-After': '0' },
    });
    const run = await roster(sandbox, ['invite', 'send', '--email', 'busy@example.org', ...required]);
    expect(run.code).toBe(0);
    expect(posts(sandbox).map((r) => r.status)).toEqual([503, 201]);
    expect(sandbox.outbox).toHaveLength(1);
  });
});

describe('invite send on a terminal', () => {
  it('asks for missing values, shows exactly what will be sent to whom, and sends on yes', async () => {
    const prompter = scriptedPrompter({
      inputs: ['tty@example.org', 'usr-7'],
      searches: ['elm'],
      confirm: true,
    });
    const run = await roster(sandbox, ['invite', 'send', '--student-count', '2'], { tty: true, prompter });
    expect(run.code).toBe(0);
    expect(prompter.asked).toEqual([
      'E-mail address of the parent or guardian',
      'School (type to search by name, identifier or sourcedId)',
      `Send on behalf of user id (sentByUserId: your OneRoster user's sourcedId, e.g. adm-001; roster roster users --filter "role='administrator'" lists them; roster config set sentByUserId ID saves it)`,
      'Send it to tty@example.org?',
    ]);
    // "elm" finds Elm High School by name, then offers the text itself.
    expect(prompter.offered).toEqual([
      ['Elm High School  ·  360001000005  ·  org-sch-5', 'Use "elm" as typed'],
    ]);
    expect(run.stderr).toMatch(/schoolId: +"org-sch-5" \(Elm High School\)/);
    expect(run.stderr).toContain('About to e-mail an enrollment invitation to tty@example.org');
    expect(run.stderr).toContain(`POST ${sandbox.baseUrl}/enrollment/invitations`);
    expect(run.stderr).toMatch(/studentCount: +2/);
    expect(JSON.parse(posts(sandbox)[0]?.body ?? '')).toMatchObject({
      email: 'tty@example.org',
      schoolId: 'org-sch-5',
      sentByUserId: 'usr-7',
      studentCount: 2,
    });
  });

  it('declining sends nothing (cancelled: exit 130); --yes does not ask', async () => {
    const no = await roster(sandbox, ['invite', 'send', '--email', 'no@example.org', ...required], {
      tty: true,
      prompter: scriptedPrompter({ confirm: false }),
    });
    expect(no.code).toBe(130);
    expect(no.stderr).toContain('Cancelled; nothing was sent.');
    expect(no.stderr).not.toContain('Error');
    expect(posts(sandbox)).toHaveLength(0);

    const prompter = scriptedPrompter({});
    const yes = await roster(
      sandbox,
      ['invite', 'send', '--email', 'yes@example.org', ...required, '--yes'],
      { tty: true, prompter },
    );
    expect(yes.code).toBe(0);
    expect(prompter.asked).toEqual([]);
  });
});
