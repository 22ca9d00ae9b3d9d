// Tokens are cached per profile: a profile logged out (its secret gone, its client id kept, as `logout`
// leaves a keychain profile) no longer runs on a token another profile of the same client and base URL
// cached. `roster profiles remove NAME` deletes the profile, its cached tokens and its secret, unless
// another profile still uses that secret.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { insecureLogin, useSandbox } from '../helpers/sandbox.js';

const fixture = useSandbox();
const configFile = (home: string) => join(home, '.config', 'roster', 'config.json');
const configOf = (home: string) =>
  JSON.parse(readFileSync(configFile(home), 'utf8')) as {
    defaultProfile?: string;
    profiles: Record<string, Record<string, unknown>>;
  };
const storedSecrets = (home: string) =>
  Object.keys(JSON.parse(readFileSync(join(home, '.config', 'roster', 'credentials.json'), 'utf8')));
const cachedTokens = (home: string) => {
  try {
    return readdirSync(join(home, '.cache', 'roster', 'tokens')).length;
  } catch {
    return 0;
  }
};
/** An SSH shell: no keychain to reach, so a keychain profile without a secret stays without one. */
const NO_KEYCHAIN = { DBUS_SESSION_BUS_ADDRESS: undefined, DISPLAY: undefined };
const attendanceCalls = () => fixture.sandbox.requests.filter((r) => r.path.endsWith('/attendance/status'));

async function login(home: string, profile: string) {
  const { args, input } = insecureLogin(fixture.sandbox);
  const run = await runCli(['--profile', profile, ...args], home, { input, env: NO_KEYCHAIN });
  expect(run.code, run.stderr).toBe(0);
}

describe('tokens cached per profile', () => {
  it('a logged-out profile does not run on the token another profile of its client cached', async () => {
    const home = tempDir();
    await login(home, 'ks');
    // kc as `roster logout --profile kc` leaves a keychain profile: its client id, no secret anywhere.
    const config = configOf(home);
    config.profiles.kc = { baseUrl: fixture.sandbox.baseUrl, clientId: 'demo-allowed' };
    writeFileSync(configFile(home), JSON.stringify(config));

    const ks = await runCli(['--profile', 'ks', 'attendance', 'check'], home, { env: NO_KEYCHAIN });
    expect(ks.code, ks.stderr).toBe(0);
    fixture.sandbox.requests.length = 0;
    const kc = await runCli(['--profile', 'kc', 'attendance', 'check'], home, { env: NO_KEYCHAIN });
    expect(kc.code).toBe(4);
    expect(kc.stdout).toBe('');
    expect(attendanceCalls()).toEqual([]);
  });

  it('logout of one profile leaves the tokens of another of the same client in place', async () => {
    const home = tempDir();
    await login(home, 'east');
    await login(home, 'west');
    expect((await runCli(['--profile', 'west', 'attendance', 'check'], home)).code).toBe(0);
    const out = await runCli(['--profile', 'east', 'logout'], home);
    expect(out.code, out.stderr).toBe(0);
    fixture.sandbox.requests.length = 0;
    expect((await runCli(['--profile', 'west', 'attendance', 'check'], home)).code).toBe(0);
    // west's cached token answered: no token request.
    expect(fixture.sandbox.requests.filter((r) => r.path.endsWith('/token'))).toEqual([]);
  });
});

describe('roster profiles remove NAME', () => {
  it('deletes the profile, its cached tokens and its secret', async () => {
    const home = tempDir();
    await login(home, 'east');
    expect((await runCli(['profiles', 'use', 'east'], home)).code).toBe(0);
    expect(cachedTokens(home)).toBe(1);
    const removed = await runCli(['profiles', 'remove', 'east'], home);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toBe('');
    expect(removed.stderr).toContain(
      'Removed profile "east" and 1 cached token(s); its client secret was removed from',
    );
    expect(removed.stderr).toContain('It was the default profile');
    expect(configOf(home)).toEqual({ profiles: {} });
    expect(storedSecrets(home)).toEqual([]);
    expect(cachedTokens(home)).toBe(0);
    const gone = await runCli(['--profile', 'east', 'attendance', 'check'], home);
    expect(gone.code).toBe(4);
  });

  it('keeps a secret another profile still uses, and that profile keeps working', async () => {
    const home = tempDir();
    await login(home, 'east');
    await login(home, 'west');
    const removed = await runCli(['profiles', 'remove', 'east'], home);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stderr).toContain(
      'its client secret is kept for profile "west", which uses the same client id and base URL',
    );
    expect(Object.keys(configOf(home).profiles)).toEqual(['west']);
    expect(storedSecrets(home)).toHaveLength(1);
    expect((await runCli(['--profile', 'west', 'attendance', 'check'], home)).code).toBe(0);
  });

  it('an unknown profile is a usage error that lists the saved ones; nothing changes', async () => {
    const home = tempDir();
    await login(home, 'east');
    const before = readFileSync(configFile(home), 'utf8');
    const run = await runCli(['profiles', 'remove', 'nosuch'], home);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('No profile named "nosuch": nothing to remove. Saved profiles: east.');
    expect(readFileSync(configFile(home), 'utf8')).toBe(before);
    expect(storedSecrets(home)).toHaveLength(1);
  });
});
