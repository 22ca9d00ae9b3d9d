// main(): every error code to its exit code, commander's own exits, and unexpected failures, with the
// token, status and logout commands driven through it against the sandbox.

import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { secretAccount } from '../../src/auth/secret-store.js';
import { type ErrorCode, EXIT_CODES, exitCodeFor, RosterError } from '../../src/errors.js';
import { main } from '../../src/main.js';
import { VERSION } from '../../src/version.js';
import { fakeContext } from '../helpers/context.js';
import { demoClient, demoEnv, useSandbox } from '../helpers/sandbox.js';

const fixture = useSandbox();
const secretOf = (id: string) => demoClient(fixture.sandbox, id).clientSecret;
const tokenRequests = () => fixture.sandbox.requests.filter((r) => r.path.endsWith('/token'));
/** `roster login` of the demo client as a script runs it: its secret on stdin. */
const scriptLogin = () => [
  '--base-url',
  fixture.sandbox.baseUrl,
  'login',
  '--client-id',
  'demo-allowed',
  '--client-secret-stdin',
];
const envFor = (id: string, extra: Record<string, string> = {}) => demoEnv(fixture.sandbox, id, extra);

async function roster(argv: string[], options: Parameters<typeof fakeContext>[0] = {}) {
  const f = fakeContext(options);
  const code = await main(argv, f.ctx);
  return { code, stdout: f.stdout(), stderr: f.stderr(), f };
}

/** No secret or bearer token in anything the user sees. */
function expectNoSecrets(text: string, ...secrets: string[]) {
  for (const secret of secrets) expect(text).not.toContain(secret);
  expect(text).not.toMatch(/Bearer (?!\[redacted\])[A-Za-z0-9._~+/-]{12,}/);
}

describe('exit codes', () => {
  it('maps every error code as the contract says', () => {
    const expected: Record<ErrorCode, number> = {
      usage: 2,
      auth: 4,
      forbidden: 3,
      api: 1,
      network: 1,
      unexpected: 1,
      'outcome-unknown': 5,
      failure: 1,
      partial: 5,
      interrupted: 130,
    };
    expect(EXIT_CODES).toEqual(expected);
    for (const [code, exit] of Object.entries(expected)) {
      expect(exitCodeFor(new RosterError(code as ErrorCode, 'x'))).toBe(exit);
    }
    expect(exitCodeFor(new Error('bug'))).toBe(1);
  });

  it('--help and --version exit 0 on stdout', async () => {
    const help = await roster(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Usage: roster/);
    for (const command of ['login', 'logout', 'token', 'status', 'attendance'])
      expect(help.stdout).toContain(command);
    expect(help.stderr).toBe('');
    const tokenHelp = await roster(['token', '--help']);
    expect(tokenHelp.code).toBe(0);
    expect(tokenHelp.stdout).toMatch(/Examples:/);
    const version = await roster(['--version']);
    expect(version).toMatchObject({ code: 0, stdout: `${VERSION}\n` });
  });

  it('commander parse errors are usage errors (2) and send nothing', async () => {
    for (const argv of [
      ['frobnicate'],
      ['token', '--bogus'],
      ['--client-auth', 'digest', 'token'],
      ['--profile'],
    ]) {
      const result = await roster(argv, { env: envFor('demo-allowed') });
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.stderr).toMatch(/error/i);
      expect(result.stdout).toBe('');
    }
    expect(fixture.sandbox.requests).toHaveLength(0);
  });

  it('a usage error from settings is exit 2 with one line and a hint', async () => {
    const result = await roster(['token'], { env: envFor('demo-allowed', { ROSTER_TIMEOUT: 'soon' }) });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('Error: Invalid timeout "soon": give seconds from 0.1 to 3600.\n');
    expect(fixture.sandbox.requests).toHaveLength(0);
    const plain = await roster(['token', '--base-url', 'http://api.district.example/v1']);
    expect(plain.code).toBe(2);
    expect(plain.stderr).toMatch(/^Error: Refusing plain http:\/\/ to api\.district\.example/);
  });

  it('a wrong secret is exit 4 with the server error_description, and no secret in the output', async () => {
    const result = await roster(['token'], {
      env: envFor('demo-allowed', { ROSTER_CLIENT_SECRET: 'not-the-secret' }),
    });
    expect(result.code).toBe(4);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^Error: The token endpoint refused the request \(HTTP 401\): .+\(invalid_client\)\. Check the client id and secret/,
    );
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expectNoSecrets(result.stderr, 'not-the-secret');
  });

  it('a 403 is exit 3 with the server message', async () => {
    const result = await roster(['attendance', 'check'], { env: envFor('demo-refused') });
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^Error: Attendance check failed \(HTTP 403\): .+/);
    expectNoSecrets(result.stderr, secretOf('demo-refused'));
  });

  it('a server failure is exit 1 after retries, with the hint', async () => {
    fixture.sandbox.injectFault({
      match: (req) => req.path === '/attendance/status',
      status: 500,
      body: { message: 'database on fire' },
      times: 10,
    });
    const result = await roster(['attendance', 'check'], { env: envFor('demo-allowed') });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'Error: Attendance check failed (HTTP 500): database on fire (after 4 tries). The server failed; try again later.\n',
    );
    expect(fixture.sandbox.requests.filter((r) => r.path === '/v1/attendance/status')).toHaveLength(4);
  });

  it('a refused connection is exit 1 naming the URL', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const result = await roster(['token'], {
      env: { ...envFor('demo-allowed'), ROSTER_BASE_URL: `http://127.0.0.1:${port}/v1` },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      new RegExp(
        `^Error: Could not connect to http://127\\.0\\.0\\.1:${port}/v1/oauth/token: connection refused\\. Check the base URL`,
      ),
    );
  });

  it('a base URL without the service path (/v1): the token endpoint 404s, and the hint names the address', async () => {
    const origin = fixture.sandbox.baseUrl.replace(/\/v1$/, '');
    const result = await roster(['attendance', 'check'], {
      env: { ...envFor('demo-allowed'), ROSTER_BASE_URL: origin },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^Error: The token endpoint failed \(HTTP 404\): /);
    expect(result.stderr).toContain(
      `Check the base URL, which includes the service's path (as in https://api.example.org/v1): nothing answers at ${origin}/oauth/token.\n`,
    );
  });

  it('an unexpected exception is exit 1 with "Run again with --debug" and a stack only under --debug', async () => {
    const setup = async (debug: boolean) => {
      const f = fakeContext();
      f.ctx.keychain = async () => {
        throw new TypeError('keychain exploded');
      };
      const { saveConfig } = await import('../../src/config-file.js');
      await saveConfig(f.ctx.paths.configDir, {
        profiles: {
          default: { baseUrl: fixture.sandbox.baseUrl, clientId: 'demo-allowed', secretStorage: 'keychain' },
        },
      });
      const code = await main(debug ? ['--debug', 'token'] : ['token'], f.ctx);
      return { code, stderr: f.stderr().slice(f.stderr().lastIndexOf('Error: unexpected')) };
    };
    const quiet = await setup(false);
    expect(quiet.code).toBe(1);
    expect(quiet.stderr).not.toMatch(/\bat /);
    expect(quiet.stderr).toBe(
      'Error: unexpected failure: keychain exploded. Run again with --debug for details.\n',
    );
    const debug = await setup(true);
    expect(debug.code).toBe(1);
    expect(debug.stderr).toMatch(
      /^Error: unexpected failure: keychain exploded\.\n\[debug\] TypeError: keychain exploded\n\s+at /,
    );
  });
});

describe('roster token', () => {
  it('prints the token alone, then reuses it; --refresh gets a new one; --json has the contract fields', async () => {
    const f = fakeContext({ env: envFor('demo-allowed') });
    const run = async (argv: string[]) => {
      const before = f.stdout().length;
      const code = await main(argv, f.ctx);
      return { code, out: f.stdout().slice(before) };
    };
    const first = await run(['token']);
    expect(first.code).toBe(0);
    expect(first.out).toMatch(/^\S{16,}\n$/);
    expect((await run(['token'])).out).toBe(first.out);
    expect(tokenRequests()).toHaveLength(1);
    const refreshed = await run(['token', '--refresh']);
    expect(refreshed.out).not.toBe(first.out);
    expect(tokenRequests()).toHaveLength(2);
    const json = JSON.parse((await run(['token', '--json'])).out);
    expect(Object.keys(json).sort()).toEqual(['access_token', 'expires_at', 'expires_in', 'token_type']);
    expect(json.access_token).toBe(refreshed.out.trim());
    expect(json.expires_in).toBeGreaterThan(3500);
    expect(f.stderr()).toBe('');
  });

  it('asks the endpoint chosen with --endpoint, with the scope given', async () => {
    const result = await roster(
      [
        'token',
        '--endpoint',
        'v1p2',
        '--scope',
        'https://purl.imsglobal.org/spec/or/v1p2/scope/roster.readonly',
        '--json',
      ],
      {
        env: envFor('demo-allowed'),
      },
    );
    expect(result.code).toBe(0);
    expect(tokenRequests().map((r) => r.path)).toEqual(['/v1/ims/oneroster/v1p2/token']);
    expect(JSON.parse(result.stdout).scope).toBe(
      'https://purl.imsglobal.org/spec/or/v1p2/scope/roster.readonly',
    );
    const bad = await roster(['token', '--endpoint', 'https://evil.example/token'], {
      env: envFor('demo-allowed'),
    });
    expect(bad.code).toBe(2);
  });

  it('prints ROSTER_TOKEN without any request', async () => {
    const result = await roster(['token'], {
      env: { ROSTER_BASE_URL: fixture.sandbox.baseUrl, ROSTER_TOKEN: 'ready-made-token-123' },
    });
    expect(result).toMatchObject({ code: 0, stdout: 'ready-made-token-123\n' });
    expect(fixture.sandbox.requests).toHaveLength(0);
  });
});

describe('roster status', () => {
  it('--json reports environment credentials and a valid cached token, without secrets', async () => {
    const f = fakeContext({ env: envFor('demo-allowed') });
    expect(await main(['token'], f.ctx)).toBe(0);
    const token = f.stdout().trim();
    expect(await main(['status', '--json'], f.ctx)).toBe(0);
    const report = JSON.parse(f.stdout().slice(token.length + 1));
    expect(report).toEqual({
      profile: 'default',
      configFile: expect.stringMatching(/config\.json$/),
      baseUrl: fixture.sandbox.baseUrl,
      clientId: 'demo-allowed',
      clientAuth: 'basic',
      oneroster: '1.1',
      secretSource: 'environment',
      secretReachable: true,
      token: { endpoint: '/oauth/token', valid: true, expiresAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) },
    });
    expectNoSecrets(f.stdout().slice(token.length + 1) + f.stderr(), secretOf('demo-allowed'), token);
  });

  it('reports keychain, file, token and none as the secret source', async () => {
    const f = fakeContext({ stdin: secretOf('demo-allowed') });
    const login = scriptLogin();
    expect(await main(login, f.ctx)).toBe(0);
    expect(f.stderr()).toMatch(/Logged in to .* as demo-allowed \(profile "default"\)/);
    const status = async (ctx = f.ctx) => {
      const out = fakeContext();
      const code = await main(['status', '--json'], { ...ctx, io: { ...ctx.io, stdout: out.ctx.io.stdout } });
      return { code, report: JSON.parse(out.stdout()) };
    };
    const keychain = await status();
    expect(keychain.code).toBe(0);
    expect(keychain.report.secretSource).toBe('keychain');
    expect(keychain.report.token.valid).toBe(true);

    const g = fakeContext({ stdin: secretOf('demo-allowed') });
    expect(await main([...login, '--insecure-storage'], g.ctx)).toBe(0);
    expect((await status(g.ctx)).report.secretSource).toBe('file');

    const t = fakeContext({
      env: { ROSTER_BASE_URL: fixture.sandbox.baseUrl, ROSTER_TOKEN: 'ready-made-token-123' },
    });
    expect((await status(t.ctx)).report.secretSource).toBe('token');

    const none = await status(fakeContext({ env: { ROSTER_BASE_URL: fixture.sandbox.baseUrl } }).ctx);
    expect(none.code).toBe(4);
    expect(none.report).toMatchObject({
      secretSource: 'none',
      clientId: null,
      token: { valid: false, expiresAt: null },
    });
  });
});

describe('roster logout', () => {
  it('removes the secret and the cached tokens, and says issued tokens stay valid', async () => {
    const f = fakeContext({ stdin: secretOf('demo-allowed') });
    expect(await main(scriptLogin(), f.ctx)).toBe(0);
    expect(f.keychain.secrets.size).toBe(1);
    const before = f.stderr().length;
    expect(await main(['logout'], f.ctx)).toBe(0);
    expect(f.stderr().slice(before)).toBe(
      'Removed the client secret from the test keychain and 1 cached token(s) of profile "default".\n' +
        'Tokens already issued stay valid until they expire (at most one hour).\n',
    );
    expect(f.keychain.secrets.has(secretAccount('demo-allowed', fixture.sandbox.baseUrl))).toBe(false);
    // No credentials now: a token needs a login again (exit 4), and nothing reached the token endpoint.
    fixture.sandbox.requests.length = 0;
    expect(await main(['token'], f.ctx)).toBe(4);
    expect(tokenRequests()).toHaveLength(0);
    expect(f.stdout()).toBe('');
  });

  it('is a usage error for a profile that never logged in', async () => {
    const result = await roster(['logout', '--profile', 'east']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('Error: Profile "east" is not logged in: nothing to remove.\n');
  });
});
