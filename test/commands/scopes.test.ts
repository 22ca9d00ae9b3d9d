// Scopes against a token endpoint that wants one (the sandbox's `scope-required` quirk), each run in this
// process (main() on a fake Context) against the sandbox over loopback: the error names the scope settings; with the scopes given by flag, environment or `roster config`,
// every command works and each token request carries exactly the scope of its use; flags > environment >
// profile; a token cached for one scope never answers for another.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rosterInProcess } from '../helpers/main.js';
import { demoClient, demoEnv, insecureLogin, useSandbox } from '../helpers/sandbox.js';

const REQUIRED = 'roster-core.readonly';
const PURL = 'https://purl.imsglobal.org/spec/or';
const GENERAL = `${REQUIRED} attendance`;
const ONEROSTER = `${REQUIRED} ${PURL}/v1p1/scope/roster.readonly`;
const ONEROSTER_12 = `${REQUIRED} ${PURL}/v1p2/scope/roster.readonly`;
const INVITATIONS = `${REQUIRED} ${PURL}/v1p1/scope/roster-core.readonly`;
const OAUTH = '/v1/oauth/token';
const V1P1 = '/v1/ims/oneroster/v1p1/token';
const V1P2 = '/v1/ims/oneroster/v1p2/token';

const fixture = useSandbox({ quirks: { requiredScope: REQUIRED } });
const roster = (args: string[], env: Record<string, string> = {}, input?: string) =>
  rosterInProcess(args, { home: fixture.home, env, ...(input !== undefined && { stdin: input }) });
const configFile = () => join(fixture.home, 'config', 'config.json');

/** [token endpoint, scope] of every token request that reached the sandbox, in order. */
const tokenRequests = () =>
  fixture.sandbox.requests
    .filter((r) => r.path.endsWith('/token'))
    .map((r) => [r.path, new URLSearchParams(r.body).get('scope')]);
const distinct = (pairs: (string | null)[][]) => [...new Set(pairs.map((p) => JSON.stringify(p)))].sort();

async function login(extra: string[] = [], env: Record<string, string> = {}) {
  const { args, input } = insecureLogin(fixture.sandbox, extra);
  return roster(args, env, input);
}

describe('a token endpoint that requires a scope, and none is configured', () => {
  it('login: exit 4, the error names --scope, nothing is saved', async () => {
    const result = await login();
    expect(result.code).toBe(4);
    expect(result.stderr).toContain(
      'Error: The token endpoint refused the request (HTTP 400): scope is required (invalid_request).',
    );
    expect(result.stderr).toContain('No scope was sent for general tokens');
    expect(result.stderr).toContain('pass it with --scope SCOPE (or set ROSTER_SCOPE)');
    expect(result.stderr).not.toMatch(/Check the client id and secret/);
    expect(existsSync(configFile())).toBe(false);
    expect(tokenRequests()).toEqual([[OAUTH, null]]);
  });

  it('each command names the settings of its own token use, exit 4', async () => {
    const env = demoEnv(fixture.sandbox);
    const attendance = await roster(['attendance', 'check'], env);
    expect(attendance.code).toBe(4);
    expect(attendance.stderr).toMatch(
      /scope is required \(invalid_request\)\. No scope was sent for general tokens/,
    );
    expect(attendance.stderr).toContain(
      '`roster config set scope SCOPE`, `roster login --scope SCOPE`, or ROSTER_SCOPE=SCOPE for one run.',
    );

    const students = await roster(['roster', 'students', '--limit', '1'], env);
    expect(students.code).toBe(4);
    expect(students.stderr).toContain('No scope was sent for OneRoster 1.1 tokens');
    expect(students.stderr).toContain(
      '`roster config set onerosterScope SCOPE` (or scopes.oneroster-1.1 for OneRoster 1.1 tokens alone), `roster login --oneroster-scope SCOPE`, or ROSTER_ONEROSTER_SCOPE=SCOPE',
    );
    expect(students.stdout).toBe('');
    expect(fixture.sandbox.requests.filter((r) => !r.path.endsWith('/token'))).toEqual([]);
  });

  it('a wrong scope is invalid_scope: the hint quotes what was sent, exit 4', async () => {
    const result = await roster(['roster', 'students', '--profile', 'east'], {
      ...demoEnv(fixture.sandbox),
      ROSTER_ONEROSTER_SCOPE: `${PURL}/v1p1/scope/roster.readonly`,
    });
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(
      /\(invalid_scope\)\. The scope sent was "https:\/\/purl[^"]+" for OneRoster 1\.1 tokens/,
    );
    expect(result.stderr).toContain('`roster config set --profile east onerosterScope SCOPE`');
  });
});

describe('scopes given by login flags and `roster config set`', () => {
  it('every command works, and each token request carries exactly the scope of its use', async () => {
    expect((await login(['--scope', GENERAL, '--oneroster-scope', ONEROSTER])).code).toBe(0);
    for (const [key, value] of [
      ['scopes.oneroster-1.2', ONEROSTER_12],
      ['scopes.invitations', INVITATIONS],
      ['sentByUserId', 'adm-001'],
    ]) {
      expect(await roster(['config', 'set', key as string, value as string])).toMatchObject({ code: 0 });
    }
    const commands = [
      ['attendance', 'check'],
      ['token', '--json'],
      ['roster', 'students', '--limit', '2'],
      ['roster', 'schools', '--oneroster', '1.2'],
      ['invite', 'send', '--email', 'scopes@example.org', '--school-id', 'org-sch-1', '--yes'],
      ['invite', 'list'],
      ['doctor', '--skip', 'other-auth'],
    ];
    for (const args of commands) {
      const result = await roster(args);
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
    }
    expect(JSON.parse((await roster(['token', '--json'])).stdout).scope).toBe(GENERAL);
    expect(distinct(tokenRequests())).toEqual(
      distinct([
        [OAUTH, GENERAL],
        [V1P1, ONEROSTER],
        [V1P2, ONEROSTER_12],
        [V1P1, INVITATIONS],
      ]),
    );
    // The invitation really went out, with the token of its own scope.
    expect(fixture.sandbox.invitations().some((i) => i.email === 'scopes@example.org')).toBe(true);
  });
});

describe('precedence: flags > environment > profile > none', () => {
  it('ROSTER_SCOPE and ROSTER_ONEROSTER_SCOPE win over the profile; roster token --scope over both', async () => {
    expect((await login(['--scope', GENERAL])).code).toBe(0);
    expect((await roster(['config', 'set', 'onerosterScope', ONEROSTER])).code).toBe(0);
    fixture.sandbox.requests.length = 0;

    const env = { ROSTER_SCOPE: REQUIRED, ROSTER_ONEROSTER_SCOPE: ONEROSTER_12 };
    expect((await roster(['attendance', 'check'], env)).code).toBe(0);
    expect((await roster(['roster', 'orgs', '--limit', '1'], env)).code).toBe(0);
    expect((await roster(['token', '--scope', INVITATIONS], env)).code).toBe(0);
    expect((await roster(['roster', 'orgs', '--limit', '1'])).code).toBe(0);
    expect(tokenRequests()).toEqual([
      [OAUTH, REQUIRED],
      [V1P1, ONEROSTER_12],
      [OAUTH, INVITATIONS],
      [V1P1, ONEROSTER],
    ]);
  });

  it('login: --scope over ROSTER_SCOPE, ROSTER_SCOPE over the saved scope; only the flag is saved', async () => {
    expect((await login(['--scope', GENERAL], { ROSTER_SCOPE: 'nope' })).code).toBe(0);
    expect((await login([], { ROSTER_SCOPE: REQUIRED })).code).toBe(0);
    expect((await login([])).code).toBe(0);
    expect(tokenRequests()).toEqual([
      [OAUTH, GENERAL],
      [OAUTH, REQUIRED],
      [OAUTH, GENERAL],
    ]);
    expect(JSON.parse(readFileSync(configFile(), 'utf8')).profiles.default.scope).toBe(GENERAL);
  });

  it('a token cached for one scope is never used for another', async () => {
    expect((await login(['--scope', GENERAL])).code).toBe(0); // caches a GENERAL token
    fixture.sandbox.requests.length = 0;
    const first = await roster(['token']);
    const other = await roster(['token'], { ROSTER_SCOPE: REQUIRED });
    const again = await roster(['token'], { ROSTER_SCOPE: REQUIRED });
    const back = await roster(['token']);
    expect([first, other, again, back].map((r) => r.code)).toEqual([0, 0, 0, 0]);
    expect(tokenRequests()).toEqual([[OAUTH, REQUIRED]]);
    expect(other.stdout).not.toBe(first.stdout);
    expect(again.stdout).toBe(other.stdout);
    expect(back.stdout).toBe(first.stdout);
  });

  it('an invalid scope from a flag or the environment is a usage error before any request', async () => {
    const flag = await login(['--scope', 'two  spaces']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/Invalid scope "two {2}spaces" from --scope/);
    const env = await roster(['attendance', 'check'], { ...demoEnv(fixture.sandbox), ROSTER_SCOPE: 'a\tb' });
    expect(env.code).toBe(2);
    expect(env.stderr).toMatch(/Invalid scope "a\\tb" from ROSTER_SCOPE/);
    expect(fixture.sandbox.requests).toEqual([]);
    expect(existsSync(join(fixture.home, 'config'))).toBe(false);
  });
});

it('the config file never holds the secret', async () => {
  expect((await login(['--scope', GENERAL, '--oneroster-scope', ONEROSTER])).code).toBe(0);
  expect(readFileSync(configFile(), 'utf8')).not.toContain(demoClient(fixture.sandbox).clientSecret);
});
