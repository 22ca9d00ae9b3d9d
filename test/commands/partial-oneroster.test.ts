// A server that serves part of OneRoster, each run in this process (main() on a fake Context): the audit reads what it can and says once
// what it could not check (terminal, JSON, CSV, HTML), --require makes a missing collection an error, doctor
// passes where the commands work and fails where they do not; login against a server with only the
// OneRoster token endpoints, a OneRoster service mounted at the base URL's root, and the scope hint of a
// refused invitation token. The sandbox's --without, or a hostile server on loopback in front of it.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { OneRosterSandboxOptions } from '../../src/sandbox/oneroster/index.js';
import type { Quirks } from '../../src/sandbox/quirks.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { tempDir } from '../helpers/context.js';
import { type Hostile, json, type SeenRequest, startHostile } from '../helpers/hostile.js';
import { rosterInProcess } from '../helpers/main.js';
import { demoEnv } from '../helpers/sandbox.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const server of open.splice(0)) await server.close();
});

async function sandboxWith(oneroster: OneRosterSandboxOptions, quirks: Quirks = {}) {
  const sb = await startSandbox({ oneroster, quirks });
  open.push(sb);
  return sb;
}

async function hostile(
  handler?: (request: SeenRequest, res: Parameters<Parameters<Hostile['handle']>[0]>[1]) => unknown,
) {
  const server = await startHostile(handler);
  open.push(server);
  return server;
}

/** A hostile server in front of the sandbox: every request relayed, unless `answer` answers it itself. */
async function inFront(
  sb: Sandbox,
  answer: (request: SeenRequest) => { status: number; body: unknown } | undefined,
) {
  return hostile(async (request, res) => {
    const own = answer(request);
    if (own) return json(res, own.status, own.body);
    const query = request.query.toString();
    const relayed = await fetch(`${sb.origin}${request.path}${query ? `?${query}` : ''}`, {
      method: request.method,
      headers: Object.fromEntries(
        Object.entries(request.headers).filter(
          ([k, v]) => typeof v === 'string' && k !== 'host' && k !== 'content-length',
        ),
      ) as Record<string, string>,
      ...(request.method === 'POST' && { body: request.body }),
    });
    const headers: Record<string, string> = {};
    for (const name of ['content-type', 'x-total-count', 'date']) {
      const value = relayed.headers.get(name);
      if (value) headers[name] = value;
    }
    res.writeHead(relayed.status, headers).end(await relayed.text());
  });
}

const env = (sb: Sandbox, baseUrl = sb.baseUrl) => ({ ...demoEnv(sb), ROSTER_BASE_URL: baseUrl });
/** A run in this process on `home`: the environment, and stdin, as a script gives them. */
const roster = (
  args: string[],
  home: string,
  options: { env?: Record<string, string>; input?: string } = {},
) =>
  rosterInProcess(args, {
    home,
    env: options.env ?? {},
    ...(options.input !== undefined && { stdin: options.input }),
  });
const count = (text: string, part: string) => text.split(part).length - 1;
const NOT_CHECKED = 'not checked: the server does not serve academicSessions (HTTP 404)';

describe('roster roster audit on a server without academicSessions', () => {
  it('reads the rest, reports the collection once with the checks not run, and exits 0 on a clean district', async () => {
    const sb = await sandboxWith({ without: ['academicSessions'] });
    const home = tempDir();
    const csvDir = join(home, 'to-fix');
    const html = join(home, 'audit.html');
    const result = await roster(['roster', 'audit', '--json', '--csv-dir', csvDir, '--html', html], home, {
      env: env(sb),
    });
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.summary.notChecked).toEqual([
      {
        collection: 'academicSessions',
        answer: 'HTTP 404',
        checks: ['session-dates', 'no-current-school-year', 'ended-enrollment-active'],
        required: false,
        text: `${NOT_CHECKED}; not run: session-dates, no-current-school-year, ended-enrollment-active; references to it are not checked`,
      },
    ]);
    const checks = report.findings.map((f: { check: string }) => f.check);
    expect(checks).not.toContain('session-dates');
    expect(checks).not.toContain('no-current-school-year');
    expect(checks).toHaveLength(19);
    // No course's schoolYear and no class's terms became a missing reference: they were not checked.
    expect(report.summary.counts).toEqual({ error: 0, warning: 0, info: 0 });
    expect(report.summary.read.courses).toBeGreaterThan(0);
    expect(count(result.stderr, NOT_CHECKED)).toBe(1);
    expect(result.stderr).toContain(
      'no finding (19 checks run, 3 not run: the server does not serve academicSessions)',
    );
    // Asked once, never again page after page.
    expect(sb.requests.filter((r) => r.path.endsWith('/academicSessions'))).toHaveLength(1);
    expect(readFileSync(join(csvDir, 'not-checked.csv'), 'utf8')).toBe(
      // For office staff: a UTF-8 BOM for Excel, as every audit CSV.
      '\ufeffcollection,answer,required,checks not run,what it means\n' +
        `academicSessions,HTTP 404,no,session-dates no-current-school-year ended-enrollment-active,"${NOT_CHECKED}; not run: session-dates, no-current-school-year, ended-enrollment-active; references to it are not checked"\n`,
    );
    const page = readFileSync(html, 'utf8');
    expect(page).toContain(`<h2>Not checked</h2>`);
    expect(page).toContain(`${NOT_CHECKED}; not run: session-dates`);
    expect(page).toMatch(
      /<td>session-dates<\/td><td class="sev error">error<\/td><td class="n">not run<\/td>/,
    );
  });

  it('the terminal report lists each check not run, and --require academicSessions exits 1 saying why', async () => {
    const sb = await sandboxWith({ without: ['academicSessions'] });
    const home = tempDir();
    const text = await roster(['roster', 'audit'], home, { env: env(sb) });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(
      'session-dates\terror\tnot run\tthe server does not serve academicSessions (HTTP 404)\n',
    );
    expect(text.stdout).toContain('no-current-school-year\twarning\tnot run\t');
    const required = await roster(['roster', 'audit', '--require', 'academicSessions', '--json'], home, {
      env: env(sb),
    });
    expect(required.code).toBe(1);
    expect(JSON.parse(required.stdout).summary.notChecked[0].required).toBe(true);
    expect(required.stderr).toContain(
      'Error: The server does not serve academicSessions, which --require names: the checks that need it were not run.',
    );
    // --require of a collection that is served passes; an unknown one is a usage error before any request.
    sb.requests.length = 0;
    const unknown = await roster(['roster', 'audit', '--require', 'sessions'], home, { env: env(sb) });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('Unknown collection "sessions" in --require.');
    expect(sb.requests).toEqual([]);
  });

  it.each([
    [405, { error: 'Method Not Allowed' }],
    [501, { message: 'Not Implemented' }],
    [
      400,
      {
        imsx_codeMajor: 'failure',
        imsx_codeMinor: 'invalid_path',
        imsx_description: 'Unknown endpoint: academicSessions',
      },
    ],
  ])('HTTP %i of its own shape is not served either; a 403 is still a refusal', async (status, body) => {
    const sb = await sandboxWith({});
    let refuse: { status: number; body: unknown } = { status, body };
    const front = await inFront(sb, (r) => (r.path.endsWith('/academicSessions') ? refuse : undefined));
    const home = tempDir();
    const result = await roster(['roster', 'audit', '--json'], home, {
      env: env(sb, front.baseUrl),
    });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).summary.notChecked[0]).toMatchObject({
      collection: 'academicSessions',
      answer: `HTTP ${status}`,
    });
    refuse = { status: 403, body: { message: 'this client may not read academic sessions' } };
    const forbidden = await roster(['roster', 'audit'], home, {
      env: env(sb, front.baseUrl),
    });
    expect(forbidden.code).toBe(3);
    expect(forbidden.stderr).toContain('this client may not read academic sessions');
  });
});

it('a 400 about something else (a page size it refuses) is an error, not a collection not served', async () => {
  const sb = await sandboxWith({});
  const front = await inFront(sb, (r) =>
    r.path.endsWith('/academicSessions')
      ? { status: 400, body: { message: 'limit is not supported above 100' } }
      : undefined,
  );
  const result = await roster(['roster', 'audit', '--json'], tempDir(), {
    env: env(sb, front.baseUrl),
  });
  expect(result.code).toBe(1);
  // The verdict for a script: failed, with the server's words (the error itself on stderr too).
  expect(JSON.parse(result.stdout)).toMatchObject({ success: false, status: 400 });
  expect(result.stdout).toContain('limit is not supported above 100');
  expect(result.stderr).toContain('limit is not supported above 100');
  expect(result.stderr).not.toContain('not checked');
});

it('roster sandbox --without a collection it does not know: exit 2, nothing started', async () => {
  const result = await roster(['sandbox', '--port', '0', '--without', 'sessions'], tempDir());
  expect(result.code).toBe(2);
  expect(result.stderr).toContain(
    'Invalid --without: without names a collection the sandbox serves (got "sessions";',
  );
  expect(result.stdout).toBe('');
});

describe('roster doctor on a server that serves part of OneRoster', () => {
  it('passes without academicSessions, the audit line naming what was not checked', async () => {
    const sb = await sandboxWith({ without: ['academicSessions'] });
    const result = await roster(['doctor', '--json'], tempDir(), { env: env(sb) });
    expect(result.code).toBe(0);
    const audit = JSON.parse(result.stdout).checks.find((c: { id: string }) => c.id === 'audit');
    expect(audit.status).toBe('pass');
    expect(audit.message).toContain(`warning: ${NOT_CHECKED}; not run: session-dates`);
  });

  it('fails without users, which invite plan reads', async () => {
    const sb = await sandboxWith({ without: ['users'] });
    const home = tempDir();
    const result = await roster(['doctor', '--json'], home, { env: env(sb) });
    expect(result.code).toBe(1);
    const audit = JSON.parse(result.stdout).checks.find((c: { id: string }) => c.id === 'audit');
    expect(audit).toMatchObject({
      status: 'fail',
      message: 'OneRoster 1.1: the server does not serve users, which invite plan reads',
    });
    const plan = await roster(['invite', 'plan', '--all-schools'], home, { env: env(sb) });
    expect(plan.code).not.toBe(0);
  });
});

describe('roster login against a server with only the OneRoster token endpoints', () => {
  const TOKEN = { access_token: 'or-token-1', token_type: 'bearer', expires_in: 3600 };

  it('verifies at the version own endpoint, says which answered, and saves the profile', async () => {
    const server = await hostile((r, res) =>
      r.path === '/v1/ims/oneroster/v1p1/token'
        ? json(res, 200, TOKEN)
        : json(res, 405, { error: 'method not allowed' }),
    );
    const home = tempDir();
    const login = await roster(
      [
        'login',
        '--base-url',
        server.baseUrl,
        '--client-id',
        'c1',
        '--client-secret-stdin',
        '--insecure-storage',
      ],
      home,
      { input: 's3cret' },
    );
    expect(login.code).toBe(0);
    expect(login.stderr).toContain(
      '/oauth/token answered HTTP 405: the credentials were verified at /ims/oneroster/v1p1/token (OneRoster 1.1 tokens) instead.',
    );
    expect(server.requests.map((r) => r.path)).toEqual(['/v1/oauth/token', '/v1/ims/oneroster/v1p1/token']);
    const config = JSON.parse(readFileSync(join(home, 'config', 'config.json'), 'utf8'));
    expect(config.profiles.default).toMatchObject({ baseUrl: server.baseUrl, clientId: 'c1' });
    expect(login.stderr).not.toContain('s3cret');
    // The profile exists: config set works on it.
    expect((await roster(['config', 'set', 'oneroster', '1.2'], home)).code).toBe(0);
  });

  it('credentials refused at the OneRoster endpoint: exit 4, nothing saved; no endpoint at all: exit 1', async () => {
    const server = await hostile((r, res) =>
      r.path === '/v1/ims/oneroster/v1p1/token'
        ? json(res, 401, { error: 'invalid_client' })
        : json(res, 404, { error: 'not found' }),
    );
    const home = tempDir();
    const args = [
      'login',
      '--base-url',
      server.baseUrl,
      '--client-id',
      'c1',
      '--client-secret-stdin',
      '--insecure-storage',
    ];
    const refused = await roster(args, home, { input: 's3cret' });
    expect(refused.code).toBe(4);
    expect(refused.stderr).toContain('invalid_client');
    server.handle((_, res) => json(res, 404, { error: 'not found' }));
    const nowhere = await roster(args, home, { input: 's3cret' });
    expect(nowhere.code).toBe(1);
    expect(nowhere.stderr).toContain('The token endpoint failed (HTTP 404)');
    expect(server.requests.slice(-3).map((r) => r.path)).toEqual([
      '/v1/oauth/token',
      '/v1/ims/oneroster/v1p1/token',
      '/v1/ims/oneroster/v1p2/token',
    ]);
    expect(() => readFileSync(join(home, 'config', 'config.json'))).toThrow();
  });
});

describe('a OneRoster service mounted at the base URL root', () => {
  it.each(['/', ''])(
    'config set onerosterPaths.1.2 "%s": saved as "", and every read goes to …/v1/students',
    async (value) => {
      const server = await hostile((r, res) =>
        r.path.endsWith('/token')
          ? json(res, 200, { access_token: 't', token_type: 'bearer', expires_in: 3600 })
          : r.path === '/v1/students'
            ? json(
                res,
                200,
                { users: [{ sourcedId: 'stu-1', status: 'active', givenName: 'Ada' }] },
                { 'x-total-count': '1' },
              )
            : json(res, 404, { error: 'not found' }),
      );
      const home = tempDir();
      mkdirSync(join(home, 'config'), { recursive: true, mode: 0o700 });
      const profile = { baseUrl: server.baseUrl, clientId: 'c', secretStorage: 'keychain' };
      writeFileSync(
        join(home, 'config', 'config.json'),
        JSON.stringify({ defaultProfile: 'default', profiles: { default: profile } }),
        { mode: 0o600 },
      );
      const set = await roster(['config', 'set', 'onerosterPaths.1.2', value], home);
      expect(set.code).toBe(0);
      const config = JSON.parse(readFileSync(join(home, 'config', 'config.json'), 'utf8'));
      expect(config.profiles.default.onerosterPaths).toEqual({ '1.2': '' });
      expect((await roster(['config', 'get', 'onerosterPaths.1.2'], home)).stdout).toBe('\n');
      const read = await roster(['--oneroster', '1.2', 'roster', 'students', '--json'], home, {
        env: { ROSTER_BASE_URL: server.baseUrl, ROSTER_CLIENT_ID: 'c', ROSTER_CLIENT_SECRET: 's' },
      });
      expect(read.stderr).toBe('');
      expect(read.code).toBe(0);
      expect(JSON.parse(read.stdout)).toEqual([{ sourcedId: 'stu-1', status: 'active', givenName: 'Ada' }]);
      expect(server.requests.filter((r) => !r.path.endsWith('/token')).map((r) => r.path)).toEqual([
        '/v1/students',
      ]);
    },
  );
});

describe('an invitation token refused for a missing scope', () => {
  const SCOPE_HINT =
    'No scope was sent for invitation tokens: ask the district which scope this client may use, then set it with `roster config set scope SCOPE` (or scopes.invitations for invitation tokens alone), `roster login --scope SCOPE`, or ROSTER_SCOPE=SCOPE for one run.';

  it('invite plan and doctor name the setting, the flag and the variable, as for OneRoster tokens', async () => {
    const sb = await sandboxWith({}, { requiredScope: 'roster-core.readonly' });
    const home = tempDir();
    const withOneRosterScope = { ...env(sb), ROSTER_ONEROSTER_SCOPE: 'roster-core.readonly' };
    const plan = await roster(['invite', 'plan', '--all-schools'], home, {
      env: withOneRosterScope,
    });
    expect(plan.code).toBe(0);
    expect(plan.stderr).toContain(
      `scope is required (invalid_request)); relying on roster's record of sent invitations. ${SCOPE_HINT}`,
    );
    const doctor = await roster(['doctor', '--json'], home, { env: withOneRosterScope });
    const checks = JSON.parse(doctor.stdout).checks as { id: string; status: string; message: string }[];
    const invitations = checks.find((c) => c.id === 'invitations');
    expect(invitations).toMatchObject({ status: 'fail' });
    expect(invitations?.message).toContain(
      `scope is required (invalid_request). ${SCOPE_HINT.replace(/\.$/, '')}`,
    );
    // Without any scope the OneRoster token check says what to set for OneRoster tokens.
    const bare = await roster(['doctor', '--json'], home, { env: env(sb) });
    const v1p1 = JSON.parse(bare.stdout).checks.find((c: { id: string }) => c.id === 'token-v1p1');
    expect(v1p1.message).toContain('`roster config set onerosterScope SCOPE`');
  });
});
