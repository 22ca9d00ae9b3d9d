// Linux over SSH: no session bus, so no Secret Service (issue 20, point 2). Every run here has neither
// DBUS_SESSION_BUS_ADDRESS nor DISPLAY, exactly what an SSH shell gives. `login` says so before asking
// anything and offers the 0600 file on a terminal; a profile whose secret is in the keychain says, in a
// later such shell, that the secret is stored but unreachable and how to reach it. "Not logged in" is
// exit 4 for every command that needs credentials. The stored-but-unreachable tests need a real Secret
// Service to log in with first (ROSTER_TEST_KEYCHAIN=1, as CI runs them); the rest need none.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliResult, cliEnv, ROSTER_BIN, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { startPty } from '../helpers/pty.js';
import { demoClient, insecureLogin, useSandbox } from '../helpers/sandbox.js';

const withKeychain = process.env.ROSTER_TEST_KEYCHAIN === '1';
const ENTER = '\r';

const fixture = useSandbox();

/** An SSH shell: no session bus, no X display, no credentials in the environment. */
const SSH = {
  DBUS_SESSION_BUS_ADDRESS: undefined,
  DISPLAY: undefined,
  ROSTER_BASE_URL: undefined,
  ROSTER_CLIENT_ID: undefined,
  ROSTER_CLIENT_SECRET: undefined,
};
const secret = () => demoClient(fixture.sandbox).clientSecret;
/** `roster login` of the demo client with its secret on stdin, as a script runs it. */
const scriptLogin = () => [
  'login',
  '--base-url',
  fixture.sandbox.baseUrl,
  '--client-id',
  'demo-allowed',
  '--client-secret-stdin',
];
const configDir = (home: string) => join(home, '.config', 'roster');
const configOf = (home: string) => JSON.parse(readFileSync(join(configDir(home), 'config.json'), 'utf8'));
const credentialsFile = (home: string) => join(configDir(home), 'credentials.json');
const ssh = (args: string[], home: string, input?: string) =>
  runCli(args, home, { env: SSH, ...(input !== undefined && { input }) });

/** The D-Bus library's own words, which only --debug shows. */
const DBUS_TEXT = /dbus|d-bus|autolaunch|X11/i;

describe('login with no keychain, on a terminal', () => {
  it('says so in one sentence before any question, offers the file, and a later command works from it', async () => {
    const home = tempDir();
    const run = startPty(['login'], home, SSH);
    await run.waitFor('No system keychain can be reached in this session');
    await run.waitFor('Keep the client secret in a file only you can read instead? (y/N)');
    // One sentence, and no question (base URL, client id, secret) before it.
    const screen = run.screen();
    const before = screen.slice(0, screen.lastIndexOf('\n', screen.indexOf('Keep the client secret')));
    expect(before.trim()).toBe(
      'No system keychain can be reached in this session (no Secret Service, as is usual over SSH).',
    );
    run.type(`y${ENTER}`);
    await run.waitFor('Base URL of the service');
    run.type(`${fixture.sandbox.baseUrl}${ENTER}`);
    await run.waitFor('Client ID:');
    run.type(`demo-allowed${ENTER}`);
    await run.waitFor('Client secret:');
    run.type(`${secret()}${ENTER}`);
    const result = await run.done;
    expect(result.code, result.stdout).toBe(0);
    expect(result.stdout).toContain(`the client secret to the file ${credentialsFile(home)} (mode 0600)`);
    expect(result.stdout).not.toMatch(DBUS_TEXT);
    expect(result.stdout).not.toContain(secret());

    expect(statSync(credentialsFile(home)).mode & 0o777).toBe(0o600);
    expect(configOf(home).profiles.default).toMatchObject({
      clientId: 'demo-allowed',
      secretStorage: 'file',
    });
    expect(readFileSync(join(configDir(home), 'config.json'), 'utf8')).not.toContain(secret());

    fixture.sandbox.requests.length = 0;
    const token = await ssh(['token', '--refresh'], home);
    expect(token.code, token.stderr).toBe(0);
    expect(fixture.sandbox.requests.map((r) => r.path)).toEqual(['/v1/oauth/token']);
    const attendance = await ssh(['attendance', 'check'], home);
    expect(attendance.code, attendance.stderr).toBe(0);
  });

  it('declining the file saves nothing, sends nothing, names the environment route, and shows no D-Bus text', async () => {
    const home = tempDir();
    const run = startPty(['login'], home, SSH);
    await run.waitFor('Keep the client secret in a file only you can read');
    run.type(`n${ENTER}`);
    const result = await run.done;
    expect(result.code).toBe(4);
    expect(result.stdout).toContain('Error: Nothing was saved: there is no keychain here');
    expect(result.stdout).toContain('ROSTER_CLIENT_ID and ROSTER_CLIENT_SECRET');
    expect(result.stdout).not.toMatch(DBUS_TEXT);
    expect(result.stdout).not.toContain('Base URL of the service');
    expect(fixture.sandbox.requests).toEqual([]);
    expect(existsSync(configDir(home))).toBe(false);
  });
});

describe('leaving the new questions of login (Ctrl-C, Esc): exit 130, nothing saved, nothing sent', () => {
  it.each([
    ['Ctrl-C', '\u0003'],
    ['Esc', '\u001b'],
  ])('%s at "Keep the client secret in a file…?"', async (_name, key) => {
    const home = tempDir();
    const run = startPty(['login'], home, SSH);
    await run.waitFor('Keep the client secret in a file only you can read');
    run.type(key);
    const result = await run.done;
    expect(result.code).toBe(130);
    expect(result.stdout).toContain('Cancelled; nothing was saved.');
    expect(result.stdout).not.toMatch(/force closed|unexpected failure/i);
    expect(fixture.sandbox.requests).toEqual([]);
    expect(existsSync(configDir(home))).toBe(false);
  });

  it.each([
    ['Ctrl-C', '\u0003'],
    ['Esc', '\u001b'],
  ])('%s at "Log in again and replace…?"', async (_name, key) => {
    const home = tempDir();
    const { args, input } = insecureLogin(fixture.sandbox);
    expect((await runCli(args, home, { input, env: SSH })).code).toBe(0);
    fixture.sandbox.requests.length = 0;
    const before = readFileSync(join(configDir(home), 'config.json'), 'utf8');
    const run = startPty(['login', '--insecure-storage'], home, SSH);
    await run.waitFor('Log in again and replace its base URL, client id and secret?');
    run.type(key);
    const result = await run.done;
    expect(result.code).toBe(130);
    expect(result.stdout).toContain('Cancelled; nothing was saved.');
    expect(readFileSync(join(configDir(home), 'config.json'), 'utf8')).toBe(before);
    expect(fixture.sandbox.requests).toEqual([]);
  });
});

describe('login with no keychain, in a script', () => {
  it('a session bus address that leads nowhere (a stale DBUS_SESSION_BUS_ADDRESS) is no keychain too', async () => {
    const home = tempDir();
    const result = await runCli(scriptLogin(), home, {
      input: secret(),
      env: { ...SSH, DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(home, 'no-such-bus')}` },
    });
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('Error: No system keychain can be reached in this session');
    expect(result.stderr).not.toMatch(DBUS_TEXT);
    expect(fixture.sandbox.requests).toEqual([]);
  });

  it('fails before any request, naming --insecure-storage and the environment variables: exit 4, no D-Bus text', async () => {
    const home = tempDir();
    const result = await ssh(scriptLogin(), home, secret());
    expect(result.code).toBe(4);
    expect(result.stderr).toBe(
      'Error: No system keychain can be reached in this session (no Secret Service, as is usual over SSH). ' +
        'Set ROSTER_CLIENT_ID and ROSTER_CLIENT_SECRET in the environment instead (nothing is stored), ' +
        'or run `roster login --insecure-storage` to keep the secret in a file readable only by you.\n',
    );
    expect(fixture.sandbox.requests).toEqual([]);
    expect(existsSync(configDir(home))).toBe(false);
  });

  it('--debug shows the D-Bus detail', async () => {
    const result = await ssh([...scriptLogin(), '--debug'], tempDir(), secret());
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(/^\[debug\] keychain: reading a secret failed: .*DBus/m);
    expect(result.stderr).not.toContain(secret());
  });

  it('a missing flag is still a usage error first (exit 2), before the keychain is asked', async () => {
    const result = await ssh(['login', '--client-id', 'demo-allowed', '--debug'], tempDir());
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^Error: Missing --base-url, --client-secret-stdin/);
    expect(result.stderr).not.toContain('[debug] keychain');
  });
});

describe('not logged in: exit 4 for every command that needs credentials', () => {
  const commands: [string, string[]][] = [
    ['attendance check', ['attendance', 'check']],
    ['token', ['token']],
    ['roster students', ['roster', 'students']],
    ['invite list', ['invite', 'list']],
    [
      'invite send',
      [
        'invite',
        'send',
        '--email',
        'p@example.org',
        '--school-id',
        'org-sch-1',
        '--sent-by-user-id',
        'u1',
        '--yes',
      ],
    ],
    ['status', ['status']],
  ];

  it.each(commands)('%s with no base URL and no credentials', async (_name, args) => {
    const result = await ssh(args, tempDir());
    expect(result.code, result.stderr).toBe(4);
    expect(result.stderr).toMatch(/Run `roster login`/);
    expect(result.stderr).not.toMatch(DBUS_TEXT);
    expect(fixture.sandbox.requests).toEqual([]);
  });

  it.each(commands)('%s with a base URL but no credentials', async (_name, args) => {
    const result = await runCli(args, tempDir(), {
      env: { ...SSH, ROSTER_BASE_URL: fixture.sandbox.baseUrl },
    });
    expect(result.code, result.stderr).toBe(4);
    expect(result.stderr).toMatch(/Run `roster login`, or set ROSTER_CLIENT_ID and ROSTER_CLIENT_SECRET/);
    expect(fixture.sandbox.requests.filter((r) => r.path.endsWith('/token'))).toEqual([]);
  });
});

describe("the README's first session", () => {
  it('works as written in an SSH shell: no keychain, nothing saved', async () => {
    const readme = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');
    const block = /A first session against the sandbox[^\n]*\n\n```sh\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block).toBeDefined();
    // Its lines as bash runs them, against this test's sandbox instead of the one it starts on port 4010 in
    // the background (and stops with `kill %1`).
    const lines = (block ?? '')
      .replace(/\\\n\s*/g, ' ')
      .split('\n')
      .filter((line) => line.trim() && !line.startsWith('roster sandbox') && !line.startsWith('kill %1'))
      .map((line) => line.replaceAll('http://127.0.0.1:4010/v1', fixture.sandbox.baseUrl));
    expect(lines.length).toBeGreaterThanOrEqual(3);
    const home = tempDir();
    const script = [
      'set -e',
      `roster() { ${JSON.stringify(process.execPath)} ${JSON.stringify(ROSTER_BIN)} "$@"; }`,
      ...lines,
    ].join('\n');
    const result = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile('bash', ['-c', script], { env: cliEnv(home, SSH) }, (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
      );
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Token authentication works for attendance-daily');
    expect(result.stdout).toContain('Invitation sent to parent@example.org');
    expect(
      fixture.sandbox.requests.some((r) => r.method === 'POST' && r.path === '/v1/enrollment/invitations'),
    ).toBe(true);
    expect(existsSync(configDir(home))).toBe(false);
  });
});

describe('login again on a profile that is logged in', () => {
  async function loggedIn(): Promise<string> {
    const home = tempDir();
    const { args, input } = insecureLogin(fixture.sandbox);
    const first = await runCli(args, home, { input, env: SSH });
    expect(first.code, first.stderr).toBe(0);
    fixture.sandbox.requests.length = 0;
    return home;
  }

  it('on a terminal shows the saved base URL and client id and asks; "no" saves nothing, exit 130', async () => {
    const home = await loggedIn();
    const before = readFileSync(join(configDir(home), 'config.json'), 'utf8');
    const run = startPty(['login', '--insecure-storage'], home, SSH);
    await run.waitFor(`Profile "default" is logged in to ${fixture.sandbox.baseUrl} as demo-allowed.`);
    await run.waitFor('Log in again and replace its base URL, client id and secret? (y/N)');
    run.type(`n${ENTER}`);
    const result = await run.done;
    expect(result.code).toBe(130);
    expect(result.stdout).toContain('Cancelled; nothing was saved.');
    expect(result.stdout).not.toContain('Client secret:');
    expect(readFileSync(join(configDir(home), 'config.json'), 'utf8')).toBe(before);
    expect(fixture.sandbox.requests).toEqual([]);
  });

  it('on a terminal, "yes" asks again with the saved values as defaults and says what it replaced', async () => {
    const home = await loggedIn();
    const run = startPty(['login', '--insecure-storage'], home, SSH);
    await run.waitFor('Log in again and replace');
    run.type(`y${ENTER}`);
    await run.waitFor(`Base URL of the service (including /v1): (${fixture.sandbox.baseUrl})`);
    run.type(ENTER);
    await run.waitFor('Client ID: (demo-allowed)');
    run.type(`demo-special${ENTER}`);
    await run.waitFor('Client secret:');
    run.type(`${demoClient(fixture.sandbox, 'demo-special').clientSecret}${ENTER}`);
    const result = await run.done;
    expect(result.code, result.stdout).toBe(0);
    expect(result.stdout).toContain(`Logged in to ${fixture.sandbox.baseUrl} as demo-special`);
    expect(result.stdout).toContain(`It replaces the login to ${fixture.sandbox.baseUrl} as demo-allowed.`);
    expect(configOf(home).profiles.default).toMatchObject({
      baseUrl: fixture.sandbox.baseUrl,
      clientId: 'demo-special',
    });
  });

  it('in a script replaces it without asking, as gh auth login --with-token does, and says what it replaced', async () => {
    const home = await loggedIn();
    const { args, input } = insecureLogin(fixture.sandbox, [], 'demo-special');
    const result = await runCli(args, home, { input, env: SSH });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(`It replaces the login to ${fixture.sandbox.baseUrl} as demo-allowed.`);
    expect(configOf(home).profiles.default.clientId).toBe('demo-special');
  });
});

describe.runIf(withKeychain)('a secret stored in the keychain, in a later shell that cannot reach it', () => {
  let home: string;
  beforeAll(async () => {
    home = tempDir();
    // Logged in where the Secret Service is reachable (this test's session bus). The token login cached
    // is removed: the later runs must need the secret itself.
    const login = await runCli(scriptLogin(), home, {
      input: secret(),
      env: { ROSTER_CLIENT_ID: undefined, ROSTER_CLIENT_SECRET: undefined },
    });
    expect(login.code, login.stderr).toBe(0);
    expect(configOf(home).profiles.default.secretStorage).toBe('keychain');
    rmSync(join(home, '.cache', 'roster', 'tokens'), { recursive: true, force: true });
  });
  afterAll(async () => {
    const logout = await runCli(['logout'], home);
    expect(logout.code, logout.stderr).toBe(0);
    expect(logout.stderr).toContain('Removed the client secret');
  });

  const says = (result: CliResult) => {
    expect(result.code).toBe(4);
    expect(result.stderr).toContain(
      'Error: Profile "default" keeps its client secret in the system keychain (Secret Service), which cannot be reached in this session (no Secret Service, as is usual over SSH).',
    );
    expect(result.stderr).toContain('dbus-run-session -- $SHELL');
    expect(result.stderr).toContain('or set ROSTER_CLIENT_ID and ROSTER_CLIENT_SECRET for this shell');
    expect(result.stderr).not.toMatch(/no credentials|DBus error|autolaunch/i);
  };

  it('logout there removes the cached tokens and says the secret stays, and how to reach it: exit 1', async () => {
    // A token cached where the keychain is reachable, then logout in the shell that cannot reach it.
    const token = await runCli(['token'], home, {
      env: { ROSTER_CLIENT_ID: undefined, ROSTER_CLIENT_SECRET: undefined },
    });
    expect(token.code, token.stderr).toBe(0);
    const tokens = join(home, '.cache', 'roster', 'tokens');
    expect(readdirSync(tokens)).not.toEqual([]);
    const result = await ssh(['logout'], home);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /Error: Removed [1-9]\d* cached token\(s\) of profile "default", but not its client secret: the system keychain \(Secret Service\) cannot be reached in this session/,
    );
    expect(result.stderr).toContain('then run `roster logout` again');
    expect(result.stderr).not.toMatch(/DBus error|autolaunch/i);
    expect(readdirSync(tokens)).toEqual([]);
  });

  it('status says the secret is stored but unreachable, and how to reach it: exit 4', async () => {
    const result = await ssh(['status'], home);
    says(result);
    expect(result.stdout).toMatch(/^Secret from: +keychain \(stored, but unreachable in this session\)$/m);
    const json = await ssh(['status', '--json'], home);
    expect(json.code).toBe(4);
    expect(JSON.parse(json.stdout)).toMatchObject({ secretSource: 'keychain', secretReachable: false });
  });

  it('a command that needs a token says the same, before any request: exit 4', async () => {
    const result = await ssh(['token', '--refresh'], home);
    says(result);
    expect(fixture.sandbox.requests).toEqual([]);
  });

  it('--debug adds the D-Bus detail', async () => {
    const result = await ssh(['attendance', 'check', '--debug'], home);
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(/^\[debug\] keychain: reading the secret failed: .*DBus/m);
  });

  it('environment credentials work in that shell, as the message says', async () => {
    const result = await runCli(['attendance', 'check'], home, {
      env: { ...SSH, ROSTER_CLIENT_ID: 'demo-allowed', ROSTER_CLIENT_SECRET: secret() },
    });
    expect(result.code, result.stderr).toBe(0);
  });

  it('the not-logged-in commands exit 4 here too', async () => {
    for (const args of [
      ['attendance', 'check'],
      ['roster', 'students'],
      ['invite', 'list'],
    ]) {
      const result = await ssh(args, home);
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(4);
    }
    expect(fixture.sandbox.requests).toEqual([]);
  });
});
