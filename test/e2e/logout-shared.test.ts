// Two profiles logged in with the same client id and base URL share one stored secret. Logging out one
// used to remove it and so log out the other, silently; now that profile lets go of it and the other keeps
// working, and the last one out removes it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { insecureLogin, useSandbox } from '../helpers/sandbox.js';

const fixture = useSandbox();
const configOf = (home: string) =>
  JSON.parse(readFileSync(join(home, '.config', 'roster', 'config.json'), 'utf8')) as {
    profiles: Record<string, { clientId?: string; baseUrl?: string }>;
  };
const storedSecrets = (home: string) =>
  Object.keys(JSON.parse(readFileSync(join(home, '.config', 'roster', 'credentials.json'), 'utf8')));

describe('logout of a profile whose secret another profile shares', () => {
  it('keeps the secret for the other, which still works; the last one out removes it', async () => {
    const home = tempDir();
    const { args, input } = insecureLogin(fixture.sandbox);
    for (const profile of ['default', 'east']) {
      const login = await runCli(['--profile', profile, ...args], home, { input });
      expect(login.code, login.stderr).toBe(0);
    }
    expect(storedSecrets(home)).toHaveLength(1);

    const east = await runCli(['--profile', 'east', 'logout'], home);
    expect(east.code, east.stderr).toBe(0);
    expect(east.stderr).toContain(
      'Removed the client id and 1 cached token(s) of profile "east". The client secret is kept for profile "default", which uses the same client id and base URL.',
    );
    expect(configOf(home).profiles.east?.clientId).toBeUndefined();
    expect(configOf(home).profiles.east?.baseUrl).toBe(fixture.sandbox.baseUrl);
    expect(storedSecrets(home)).toHaveLength(1);
    expect((await runCli(['--profile', 'default', 'attendance', 'check'], home)).code).toBe(0);
    const loggedOut = await runCli(['--profile', 'east', 'attendance', 'check'], home);
    expect(loggedOut.code).toBe(4);

    const last = await runCli(['--profile', 'default', 'logout'], home);
    expect(last.code, last.stderr).toBe(0);
    expect(last.stderr).toContain('Removed the client secret from');
    expect(storedSecrets(home)).toHaveLength(0);
    expect((await runCli(['--profile', 'default', 'attendance', 'check'], home)).code).toBe(4);
  });
});
