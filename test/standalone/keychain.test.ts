// The keychain from the standalone executable (no Node, no node_modules): its addon is embedded and loaded
// from a private copy in roster's cache folder, verified by its hash, never through a planted file. Against
// a real Secret Service (ROSTER_TEST_KEYCHAIN=1: gnome-keyring under dbus-run-session in CI).
import {
  chmodSync,
  lstatSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/context.js';
import {
  runStandalone,
  type StandaloneSandbox,
  startStandaloneSandbox,
  testStandalone,
} from '../helpers/standalone.js';

const required = process.env.ROSTER_TEST_KEYCHAIN === '1';
const noEnvCredentials = {
  ROSTER_CLIENT_ID: undefined,
  ROSTER_CLIENT_SECRET: undefined,
  ROSTER_BASE_URL: undefined,
};

describe.runIf(required && testStandalone)('the standalone executable and the OS keychain', () => {
  let sandbox: StandaloneSandbox;
  beforeAll(async () => {
    sandbox = await startStandaloneSandbox(tempDir());
  }, 60_000);
  afterAll(() => sandbox?.close());

  const login = (home: string) =>
    runStandalone(
      ['login', '--base-url', sandbox.baseUrl, '--client-id', 'demo-allowed', '--client-secret-stdin'],
      home,
      { input: 'riverside-secret-2024\n', env: noEnvCredentials },
    );
  const addons = (home: string) => join(home, '.cache', 'roster', 'addons');

  it('login, token, status and logout work from the executable, the secret in the keychain', async () => {
    const home = tempDir();
    const loggedIn = await login(home);
    expect(loggedIn.code).toBe(0);
    expect(loggedIn.stderr).toContain('the client secret to the system keychain (Secret Service)');
    const token = await runStandalone(['token'], home, { env: noEnvCredentials });
    expect(token.code).toBe(0);
    expect(token.stdout).toMatch(/^\S{20,}\n$/);
    expect((await runStandalone(['status'], home, { env: noEnvCredentials })).stdout).toContain(
      'Secret from: keychain',
    );
    const out = await runStandalone(['logout'], home, { env: noEnvCredentials });
    expect(out.code).toBe(0);
    expect(out.stderr).toContain('Removed the client secret from the system keychain');
    // The addon was copied once, private: a 0700 folder, a 0600 file named by its content's hash.
    const [copy, ...more] = readdirSync(addons(home));
    expect(more).toEqual([]);
    expect(copy).toMatch(/^keyring-[0-9a-f]{16}\.node$/);
    expect(statSync(addons(home)).mode & 0o777).toBe(0o700);
    expect(statSync(join(addons(home), copy as string)).mode & 0o777).toBe(0o600);
  }, 60_000);

  it('a changed or planted copy of the addon is never loaded: it is replaced by the embedded one', async () => {
    const home = tempDir();
    expect((await login(home)).code).toBe(0);
    const [name] = readdirSync(addons(home));
    const copy = join(addons(home), name as string);
    const original = readFileSync(copy);
    // Changed in place (same owner and mode): the hash no longer matches.
    writeFileSync(copy, 'not the addon');
    expect((await runStandalone(['status'], home, { env: noEnvCredentials })).stdout).toContain(
      'Secret from: keychain',
    );
    expect(readFileSync(copy).equals(original)).toBe(true);
    // A link to another file in its place: replaced by a file of the executable's own, never followed.
    const elsewhere = join(tempDir(), 'planted.node');
    writeFileSync(elsewhere, original);
    rmSync(copy);
    symlinkSync(elsewhere, copy);
    expect((await runStandalone(['logout'], home, { env: noEnvCredentials })).code).toBe(0);
    expect(lstatSync(copy).isSymbolicLink()).toBe(false);
    expect(readFileSync(copy).equals(original)).toBe(true);
  }, 60_000);

  it('a cache folder others can write to is refused, with the chmod that fixes it', async () => {
    const home = tempDir();
    expect((await login(home)).code).toBe(0);
    chmodSync(addons(home), 0o777);
    const refused = await runStandalone(['logout'], home, { env: noEnvCredentials });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`Run: chmod 700 ${addons(home)}`);
    chmodSync(addons(home), 0o700);
    expect((await runStandalone(['logout'], home, { env: noEnvCredentials })).code).toBe(0);
  }, 60_000);
});
