// The opt-in credentials file (`login --insecure-storage`), with the built CLI and real files: one others can
// read is refused as ssh refuses a readable key, saying the chmod that fixes it; so is one in a folder others
// can write to; one that does not parse is never overwritten (it may hold other profiles' secrets); and
// logins at once each keep their secret.
import { chmodSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { runCli } from '../helpers/cli.js';
import { insecureLogin, useSandbox } from '../helpers/sandbox.js';

const fixture = useSandbox();
/** Saved-profile runs: no environment credentials. */
const saved = { ROSTER_CLIENT_ID: undefined, ROSTER_CLIENT_SECRET: undefined, ROSTER_BASE_URL: undefined };
const configDir = () => join(fixture.home, '.config', 'roster');
const credentials = () => join(configDir(), 'credentials.json');
const tokenRequests = () => fixture.sandbox.requests.filter((r) => r.path.endsWith('/token')).length;

function login(profile: string, clientId = 'demo-allowed') {
  const { args, input } = insecureLogin(fixture.sandbox, [], clientId);
  return runCli(['--profile', profile, ...args], fixture.home, { input, env: saved });
}
/** A command that needs the secret: the token cache is emptied first. */
function tokenOf(profile: string) {
  rmSync(join(fixture.home, '.cache'), { recursive: true, force: true });
  return runCli(['--profile', profile, 'token'], fixture.home, { env: saved });
}
const oneLine = (stderr: string) => {
  const lines = stderr.trimEnd().split('\n');
  expect(lines, stderr).toHaveLength(1);
  return lines[0] ?? '';
};

describe('a credentials file others can read', () => {
  for (const [mode, who] of [
    [0o644, 'other users can read it (mode 0644)'],
    [0o640, 'its group can read it (mode 0640)'],
  ] as const) {
    it(`${mode.toString(8)} in a 0755 folder: refused by every command that needs it, naming the chmod; 0600 works again`, async () => {
      expect((await login('default')).code).toBe(0);
      chmodSync(configDir(), 0o755);
      chmodSync(credentials(), mode);
      const before = readFileSync(credentials(), 'utf8');
      fixture.sandbox.requests.length = 0;

      const refused = `Error: Cannot read ${credentials()}: ${who}, so roster will not use the secrets in it. Run: chmod 600 ${credentials()}. If anyone else may have read it, have the district issue a new secret.`;
      const token = await tokenOf('default');
      expect(token.code).toBe(1);
      expect(oneLine(token.stderr)).toBe(refused);
      expect(token.stdout).toBe('');
      // Another profile's login would read it to add its secret: refused before it is written.
      const other = await login('east', 'demo-special');
      expect(other.code).toBe(1);
      expect(other.stderr).toContain(refused);
      expect(readFileSync(credentials(), 'utf8')).toBe(before);
      expect(statSync(credentials()).mode & 0o777).toBe(mode);
      expect(tokenRequests()).toBe(1); // the login's own check of its credentials, nothing with the file's

      chmodSync(credentials(), 0o600);
      expect((await tokenOf('default')).code).toBe(0);
    });
  }
});

describe('a credentials file in a folder others can write to', () => {
  for (const mode of [0o777, 0o770]) {
    it(`${mode.toString(8)}: refused (they could plant the file), naming chmod 700 of the folder`, async () => {
      expect((await login('default')).code).toBe(0);
      chmodSync(configDir(), mode);
      const token = await tokenOf('default');
      expect(token.code).toBe(1);
      expect(oneLine(token.stderr)).toMatch(
        `so roster will not trust files in it. Run: chmod 700 ${configDir()}.`,
      );
      const again = await login('east', 'demo-special');
      expect(again.code).toBe(1);
      expect(again.stderr).toContain(`Run: chmod 700 ${configDir()}.`);
      expect(Object.keys(JSON.parse(readFileSync(credentials(), 'utf8')))).toHaveLength(1);
    });
  }
});

describe('a damaged credentials file', () => {
  const damaged = [
    ['truncated', '{\n  "demo-allowed@http://x/v1": "topsecret-kept'],
    ['not JSON', '\u0000\u0001topsecret-kept'],
    ['an array', '["topsecret-kept"]'],
    ['a secret that is not a string', '{"a": "topsecret-kept", "b": 7}'],
  ] as const;
  for (const [what, text] of damaged) {
    it(`${what}: never overwritten by a login, every reader says which file and what to do; its text is never shown`, async () => {
      expect((await login('default')).code).toBe(0);
      writeFileSync(credentials(), text, { mode: 0o600 });

      const other = await login('east', 'demo-special');
      expect(other.code).toBe(1);
      const line = oneLine(other.stderr.replace(/^Warning: .*\n/m, ''));
      expect(line).toMatch(`Error: The credentials file ${credentials()} cannot be read: `);
      expect(line).toContain(
        `Nothing was changed in it (it may hold the secrets of other profiles). Restore it from a backup, or move it aside (mv ${credentials()} ${credentials()}.damaged) and run \`roster login --insecure-storage\` again for each profile that kept its secret there.`,
      );
      expect(readFileSync(credentials(), 'utf8')).toBe(text);
      // The profile was not saved either: its secret is nowhere.
      const config = JSON.parse(readFileSync(join(configDir(), 'config.json'), 'utf8'));
      expect(config.profiles.east).toBeUndefined();

      for (const args of [['token'], ['logout']]) {
        rmSync(join(fixture.home, '.cache'), { recursive: true, force: true });
        const result = await runCli(args, fixture.home, { env: saved });
        expect({ args, code: result.code }).toEqual({ args, code: 1 });
        expect(oneLine(result.stderr)).toContain(`The credentials file ${credentials()} cannot be read`);
        expect(result.stderr).not.toContain('topsecret');
      }
      expect(other.stderr).not.toContain('topsecret');
      expect(readFileSync(credentials(), 'utf8')).toBe(text);
    });
  }
});

describe('logins at once', () => {
  let other: Sandbox;
  beforeAll(async () => {
    other = await startSandbox();
  });
  afterAll(() => other?.close());

  it('six logins of different profiles (three clients of two servers) at once: every secret kept', async () => {
    const logins = [fixture.sandbox, other].flatMap((sandbox) =>
      ['demo-allowed', 'demo-refused', 'demo-special'].map((clientId) => ({ sandbox, clientId })),
    );
    const results = await Promise.all(
      logins.map(({ sandbox, clientId }, i) => {
        const { args, input } = insecureLogin(sandbox, [], clientId);
        return runCli(['--profile', `p${i}`, ...args], fixture.home, { input, env: saved });
      }),
    );
    for (const result of results) expect(result.code, result.stderr).toBe(0);
    const secrets = JSON.parse(readFileSync(credentials(), 'utf8')) as Record<string, string>;
    expect(Object.keys(secrets)).toHaveLength(6);
    const config = JSON.parse(readFileSync(join(configDir(), 'config.json'), 'utf8'));
    expect(Object.keys(config.profiles).sort()).toEqual(logins.map((_, i) => `p${i}`));
    for (const i of [0, 5]) expect((await tokenOf(`p${i}`)).code).toBe(0);
  });
});
