// login / token / logout against a real Secret Service (gnome-keyring under dbus-run-session in CI).
// Set ROSTER_TEST_KEYCHAIN=1 to require it (.ci/run does); elsewhere these tests are skipped.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { compileCacheDir, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';

const required = process.env.ROSTER_TEST_KEYCHAIN === '1';
let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());

const special = () => sandbox.clients.find((c) => c.clientId === 'demo-special')!;
const noEnvCredentials = {
  ROSTER_CLIENT_ID: undefined,
  ROSTER_CLIENT_SECRET: undefined,
  ROSTER_BASE_URL: undefined,
};

function secretTool(...args: string[]): string {
  try {
    return execFileSync('secret-tool', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    return String((error as { stdout?: string }).stdout ?? '');
  }
}

/** Every file below a folder, with its content. */
function filesBelow(dir: string): [string, string][] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile())
    .map((path) => [path, readFileSync(path, 'utf8')]);
}

/** The files of roster's data below a HOME: not the compile cache, which any run writes on Node ≥ 22. */
const dataFilesBelow = (home: string) =>
  filesBelow(home).filter(([path]) => !path.startsWith(compileCacheDir(home)));

describe.runIf(required)('the OS keychain (Secret Service)', () => {
  it('login stores the secret in the keychain only; token works from it; logout removes it', async () => {
    const home = tempDir();
    const { clientId, clientSecret } = special();
    const account = `${clientId}@${sandbox.baseUrl}`;
    const login = await runCli(
      ['login', '--base-url', sandbox.baseUrl, '--client-id', clientId, '--client-secret-stdin'],
      home,
      { input: clientSecret, env: noEnvCredentials },
    );
    expect(login.stderr).toContain('the system keychain (Secret Service)');
    expect(login.code).toBe(0);
    expect(login.stdout).toBe('');

    const found = secretTool('search', '--all', 'service', 'roster', 'username', account);
    expect(found).toContain(`label = keyring:${account}@roster`);
    expect(secretTool('lookup', 'service', 'roster', 'username', account)).toBe(clientSecret);

    for (const [path, content] of filesBelow(home)) {
      expect(content, path).not.toContain(clientSecret);
      expect(statSync(path).mode & 0o077, path).toBe(0);
    }
    const config = JSON.parse(readFileSync(join(home, '.config', 'roster', 'config.json'), 'utf8'));
    expect(config.profiles.default).toMatchObject({
      baseUrl: sandbox.baseUrl,
      clientId,
      secretStorage: 'keychain',
    });

    sandbox.requests.length = 0;
    const token = await runCli(['token', '--refresh'], home, { env: noEnvCredentials });
    expect(token.code).toBe(0);
    expect(token.stdout).toMatch(/^\S+\n$/);
    expect(sandbox.requests.map((r) => r.path)).toEqual(['/v1/oauth/token']);

    const status = await runCli(['status', '--json'], home, { env: noEnvCredentials });
    expect(JSON.parse(status.stdout)).toMatchObject({
      secretSource: 'keychain',
      clientId,
      token: { valid: true },
    });

    const logout = await runCli(['logout'], home, { env: noEnvCredentials });
    expect(logout.code).toBe(0);
    expect(logout.stderr).toContain('stay valid until they expire');
    expect(secretTool('lookup', 'service', 'roster', 'username', account)).toBe('');

    const after = await runCli(['token', '--refresh'], home, { env: noEnvCredentials });
    expect(after.code).toBe(4);
    expect(after.stderr).toMatch(/No client credentials for profile "default"/);
  });
});

describe('without a keychain', () => {
  it('login with no session bus fails before any request, naming the two ways out', async () => {
    const home = tempDir();
    sandbox.requests.length = 0;
    const result = await runCli(
      ['login', '--base-url', sandbox.baseUrl, '--client-id', 'demo-allowed', '--client-secret-stdin'],
      home,
      {
        input: 'riverside-secret-2024',
        env: { ...noEnvCredentials, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus' },
      },
    );
    // Exit 4, as for every "not logged in": the contract's code for a secret that cannot be reached.
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(/^Error: No system keychain can be reached in this session/);
    expect(result.stderr).toContain('ROSTER_CLIENT_ID and ROSTER_CLIENT_SECRET');
    expect(result.stderr).toContain('--insecure-storage');
    expect(sandbox.requests).toHaveLength(0);
    expect(dataFilesBelow(home)).toEqual([]);
  });

  it('--insecure-storage keeps the secret in a 0600 file, with a warning', async () => {
    const home = tempDir();
    const result = await runCli(
      [
        'login',
        '--base-url',
        sandbox.baseUrl,
        '--client-id',
        'demo-allowed',
        '--client-secret-stdin',
        '--insecure-storage',
      ],
      home,
      {
        input: 'riverside-secret-2024\n',
        env: { ...noEnvCredentials, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus' },
      },
    );
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^Warning: storing the client secret in a plain file/);
    const file = join(home, '.config', 'roster', 'credentials.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(home, '.config', 'roster', 'config.json'), 'utf8')).not.toContain(
      'riverside-secret-2024',
    );

    const token = await runCli(['token', '--refresh'], home, { env: noEnvCredentials });
    expect(token.code).toBe(0);
    const logout = await runCli(['logout'], home, { env: noEnvCredentials });
    expect(logout.code).toBe(0);
    expect(readFileSync(file, 'utf8')).not.toContain('riverside-secret-2024');
  });

  it('login refuses when environment credentials are set: they already win and nothing is written', async () => {
    const home = tempDir();
    const result = await runCli(['login', '--base-url', sandbox.baseUrl], home, {
      env: { ROSTER_CLIENT_ID: 'demo-allowed', ROSTER_CLIENT_SECRET: 'riverside-secret-2024' },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('nothing needs saving');
    expect(dataFilesBelow(home)).toEqual([]);
  });
});
