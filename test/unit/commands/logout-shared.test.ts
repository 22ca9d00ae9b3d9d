// Two profiles logged in with the same client id and base URL share one stored secret. Logging out one
// used to remove it and so log out the other, silently; now that profile lets go of it and the other keeps
// working, and the last one out removes it. Each run is in this process, on one HOME; the API an HttpMock.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/context.js';
import { useHttpMock } from '../../helpers/http-mock.js';
import { rosterInProcess } from '../../helpers/main.js';
import { attendanceEnabled, DISTRICT, insecureLogin, tokenEndpoints } from '../../helpers/mock-district.js';

const mock = useHttpMock();
const configOf = (home: string) =>
  JSON.parse(readFileSync(join(home, 'config', 'config.json'), 'utf8')) as {
    profiles: Record<string, { clientId?: string; baseUrl?: string }>;
  };
const storedSecrets = (home: string) =>
  Object.keys(JSON.parse(readFileSync(join(home, 'config', 'credentials.json'), 'utf8')));

describe('logout of a profile whose secret another profile shares', () => {
  it('keeps the secret for the other, which still works; the last one out removes it', async () => {
    tokenEndpoints(mock.http);
    attendanceEnabled(mock.http);
    const home = tempDir();
    const roster = (argv: string[], stdin?: string) =>
      rosterInProcess(argv, { home, transport: mock.http, ...(stdin !== undefined && { stdin }) });
    const { argv, stdin } = insecureLogin();
    for (const profile of ['default', 'east']) {
      const login = await roster(['--profile', profile, ...argv], stdin);
      expect(login.code, login.stderr).toBe(0);
    }
    expect(storedSecrets(home)).toHaveLength(1);

    const east = await roster(['--profile', 'east', 'logout']);
    expect(east.code, east.stderr).toBe(0);
    expect(east.stderr).toContain(
      'Removed the client id and 1 cached token(s) of profile "east". The client secret is kept for profile "default", which uses the same client id and base URL.',
    );
    expect(configOf(home).profiles.east?.clientId).toBeUndefined();
    expect(configOf(home).profiles.east?.baseUrl).toBe(DISTRICT);
    expect(storedSecrets(home)).toHaveLength(1);
    expect((await roster(['--profile', 'default', 'attendance', 'check'])).code).toBe(0);
    const loggedOut = await roster(['--profile', 'east', 'attendance', 'check']);
    expect(loggedOut.code).toBe(4);

    const last = await roster(['--profile', 'default', 'logout']);
    expect(last.code, last.stderr).toBe(0);
    expect(last.stderr).toContain('Removed the client secret from');
    expect(storedSecrets(home)).toHaveLength(0);
    expect((await roster(['--profile', 'default', 'attendance', 'check'])).code).toBe(4);
  });
});
