// Tokens are cached per profile: a profile logged out (its secret gone, its client id kept, as `logout`
// leaves a keychain profile) no longer runs on a token another profile of the same client and base URL
// cached. `roster profiles remove NAME` deletes the profile, its cached tokens and its secret, unless
// another profile still uses that secret. Each run is in this process, on one HOME; the API an HttpMock.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/context.js';
import { useHttpMock } from '../../helpers/http-mock.js';
import { rosterInProcess } from '../../helpers/main.js';
import {
  attendanceEnabled,
  CLIENT,
  DISTRICT,
  insecureLogin,
  noInvitations,
  schools,
  tokenEndpoints,
  tokenRequests,
} from '../../helpers/mock-district.js';

const mock = useHttpMock();
const configFile = (home: string) => join(home, 'config', 'config.json');
const configOf = (home: string) =>
  JSON.parse(readFileSync(configFile(home), 'utf8')) as {
    defaultProfile?: string;
    profiles: Record<string, Record<string, unknown>>;
  };
const storedSecrets = (home: string) =>
  Object.keys(JSON.parse(readFileSync(join(home, 'config', 'credentials.json'), 'utf8')));
/** The profile of each file roster cached in <cache>/<folder> (tokens, schools). */
const cachedFor = (home: string, folder: string): string[] => {
  const dir = join(home, 'cache', folder);
  try {
    return readdirSync(dir).map((name) => JSON.parse(readFileSync(join(dir, name), 'utf8')).key.profile);
  } catch {
    return [];
  }
};
const attendanceCalls = () => mock.http.requests.filter((r) => r.url.endsWith('/attendance/status'));
const rosterIn = (home: string) => (argv: string[]) => rosterInProcess(argv, { home, transport: mock.http });

async function login(home: string, profile: string) {
  const { argv, stdin } = insecureLogin();
  const run = await rosterInProcess(['--profile', profile, ...argv], { home, stdin, transport: mock.http });
  expect(run.code, run.stderr).toBe(0);
}

describe('tokens cached per profile', () => {
  it('a logged-out profile does not run on the token another profile of its client cached', async () => {
    tokenEndpoints(mock.http);
    attendanceEnabled(mock.http);
    const home = tempDir();
    const roster = rosterIn(home);
    await login(home, 'ks');
    // kc as `roster logout --profile kc` leaves a keychain profile: its client id, no secret anywhere.
    const config = configOf(home);
    config.profiles.kc = { baseUrl: DISTRICT, clientId: CLIENT.id };
    writeFileSync(configFile(home), JSON.stringify(config));

    const ks = await roster(['--profile', 'ks', 'attendance', 'check']);
    expect(ks.code, ks.stderr).toBe(0);
    const before = mock.http.requests.length;
    const kc = await roster(['--profile', 'kc', 'attendance', 'check']);
    expect(kc.code).toBe(4);
    expect(kc.stdout).toBe('');
    expect(mock.http.requests.slice(before)).toEqual([]);
    expect(attendanceCalls()).toHaveLength(1);
  });

  it('logout of one profile leaves the tokens of another of the same client in place', async () => {
    tokenEndpoints(mock.http);
    attendanceEnabled(mock.http);
    const home = tempDir();
    const roster = rosterIn(home);
    await login(home, 'east');
    await login(home, 'west');
    expect((await roster(['--profile', 'west', 'attendance', 'check'])).code).toBe(0);
    const out = await roster(['--profile', 'east', 'logout']);
    expect(out.code, out.stderr).toBe(0);
    const tokensBefore = tokenRequests(mock.http).length;
    expect((await roster(['--profile', 'west', 'attendance', 'check'])).code).toBe(0);
    // west's cached token answered: no token request.
    expect(tokenRequests(mock.http)).toHaveLength(tokensBefore);
  });
});

describe('roster profiles remove NAME', () => {
  it('deletes the profile, its cached tokens, its cached schools (completion offers them) and its secret', async () => {
    tokenEndpoints(mock.http);
    schools(mock.http, [{ sourcedId: 'org-sch-4', name: 'Dogwood Middle School' }]);
    noInvitations(mock.http);
    const home = tempDir();
    const roster = rosterIn(home);
    await login(home, 'east');
    await login(home, 'west');
    expect((await roster(['profiles', 'use', 'east'])).code).toBe(0);
    // A school by name reads and caches the district's schools, for each profile.
    for (const profile of ['east', 'west']) {
      const listed = await roster([
        '--profile',
        profile,
        'invite',
        'list',
        '--school-id',
        'Dogwood Middle School',
      ]);
      expect(listed.code, listed.stderr).toBe(0);
    }
    expect(cachedFor(home, 'schools').sort()).toEqual(['east', 'west']);
    expect(cachedFor(home, 'tokens').sort()).toEqual(['east', 'east', 'west', 'west']);
    const removed = await roster(['profiles', 'remove', 'east']);
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
    const gone = await roster(['--profile', 'east', 'attendance', 'check']);
    expect(gone.code).toBe(4);
    // The last profile of that client takes its secret with it.
    const last = await roster(['profiles', 'remove', 'west']);
    expect(last.stderr).toContain(
      'Removed profile "west", 2 cached token(s) and 1 cached list(s) of schools; its client secret was removed from',
    );
    expect(storedSecrets(home)).toEqual([]);
    expect([...cachedFor(home, 'tokens'), ...cachedFor(home, 'schools')]).toEqual([]);
  });

  it('keeps a secret another profile still uses, and that profile keeps working', async () => {
    tokenEndpoints(mock.http);
    attendanceEnabled(mock.http);
    const home = tempDir();
    const roster = rosterIn(home);
    await login(home, 'east');
    await login(home, 'west');
    const removed = await roster(['profiles', 'remove', 'east']);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stderr).toContain(
      'its client secret is kept for profile "west", which uses the same client id and base URL',
    );
    expect(Object.keys(configOf(home).profiles)).toEqual(['west']);
    expect(storedSecrets(home)).toHaveLength(1);
    expect((await roster(['--profile', 'west', 'attendance', 'check'])).code).toBe(0);
  });

  it('an unknown profile is a usage error that lists the saved ones; nothing changes', async () => {
    tokenEndpoints(mock.http);
    const home = tempDir();
    await login(home, 'east');
    const before = readFileSync(configFile(home), 'utf8');
    const run = await rosterIn(home)(['profiles', 'remove', 'nosuch']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('No profile named "nosuch": nothing to remove. Saved profiles: east.');
    expect(readFileSync(configFile(home), 'utf8')).toBe(before);
    expect(storedSecrets(home)).toHaveLength(1);
  });
});
