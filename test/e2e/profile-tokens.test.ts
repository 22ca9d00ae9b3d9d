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
/** The profile of each file roster cached in <cache>/roster/<folder> (tokens, schools). */
const cachedFor = (home: string, folder: string): string[] => {
  const dir = join(home, '.cache', 'roster', folder);
  try {
    return readdirSync(dir).map((name) => JSON.parse(readFileSync(join(dir, name), 'utf8')).key.profile);
  } catch {
    return [];
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
  it('deletes the profile, its cached tokens, its cached schools (completion offers them) and its secret', async () => {
    const home = tempDir();
    await login(home, 'east');
    await login(home, 'west');
    expect((await runCli(['profiles', 'use', 'east'], home)).code).toBe(0);
    // A school by name reads and caches the district's schools, for each profile.
    for (const profile of ['east', 'west']) {
      const listed = await runCli(
        ['--profile', profile, 'invite', 'list', '--school-id', 'Dogwood Middle School'],
        home,
      );
      expect(listed.code, listed.stderr).toBe(0);
    }
    expect(cachedFor(home, 'schools').sort()).toEqual(['east', 'west']);
    expect(cachedFor(home, 'tokens').sort()).toEqual(['east', 'east', 'west', 'west']);
    const removed = await runCli(['profiles', 'remove', 'east'], home);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toBe('');
    expect(removed.stderr).toContain(
      'Removed profile "east", 2 cached token(s) and 1 cached list(s) of schools; its client secret is kept for profile "west"',
    );
    expect(cachedFor(home, 'tokens')).toEqual(['west', 'west']);
    expect(cachedFor(home, 'schools')).toEqual(['west']);
    expect(removed.stderr).toContain('It was the default profile');
    expect(Object.keys(configOf(home).profiles)).toEqual(['west']);
    expect(configOf(home).defaultProfile).toBeUndefined();
    expect(storedSecrets(home)).toHaveLength(1);
    const gone = await runCli(['--profile', 'east', 'attendance', 'check'], home);
    expect(gone.code).toBe(4);
    // The last profile of that client takes its secret with it.
    const last = await runCli(['profiles', 'remove', 'west'], home);
    expect(last.stderr).toContain(
      'Removed profile "west", 2 cached token(s) and 1 cached list(s) of schools; its client secret was removed from',
    );
    expect(storedSecrets(home)).toEqual([]);
    expect([...cachedFor(home, 'tokens'), ...cachedFor(home, 'schools')]).toEqual([]);
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
