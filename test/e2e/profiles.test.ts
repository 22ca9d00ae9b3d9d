// `roster profiles`, `roster profiles use` and `remove`, and `roster config`, as a user runs them: a real config file under a private HOME.
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';

let home: string;
const configFile = () => join(home, '.config', 'roster', 'config.json');
const roster = (args: string[], env: Record<string, string> = {}) => runCli(args, home, { env });

function saveConfig(config: unknown): void {
  mkdirSync(join(home, '.config', 'roster'), { recursive: true });
  writeFileSync(configFile(), JSON.stringify(config));
}

beforeEach(() => {
  home = tempDir();
  saveConfig({
    profiles: {
      west: { baseUrl: 'https://west.example/v1', clientId: 'west-42', oneroster: '1.2', clientAuth: 'post' },
      default: { baseUrl: 'https://main.example/v1', clientId: 'main-1' },
    },
  });
});

describe('roster profiles', () => {
  it('lists the saved profiles as tab-separated rows for a pipe, marking the active one', async () => {
    const result = await roster(['profiles']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      [
        'ACTIVE\tNAME\tBASE URL\tCLIENT ID\tONEROSTER\tCLIENT AUTH',
        '*\tdefault\thttps://main.example/v1\tmain-1\t1.1\tbasic',
        '\twest\thttps://west.example/v1\twest-42\t1.2\tpost',
        '',
      ].join('\n'),
    );
  });

  it('--json: the active profile and where that choice came from', async () => {
    const result = await roster(['profiles', '--json'], { ROSTER_PROFILE: 'west' });
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({ active: 'west', activeFrom: 'ROSTER_PROFILE' });
    expect(report.profiles).toEqual([
      {
        name: 'default',
        active: false,
        default: true,
        baseUrl: 'https://main.example/v1',
        clientId: 'main-1',
        oneroster: '1.1',
        clientAuth: 'basic',
      },
      {
        name: 'west',
        active: true,
        default: false,
        baseUrl: 'https://west.example/v1',
        clientId: 'west-42',
        oneroster: '1.2',
        clientAuth: 'post',
      },
    ]);
    const flag = JSON.parse((await roster(['profiles', '--json', '--profile', 'north'])).stdout);
    expect(flag).toMatchObject({ active: 'north', activeFrom: '--profile' });
    expect(flag.profiles.some((p: { active: boolean }) => p.active)).toBe(false);
  });

  it('use NAME makes it the default for later commands, keeping the file private', async () => {
    const use = await roster(['profiles', 'use', 'west']);
    expect(use.code).toBe(0);
    expect(use.stdout).toBe('');
    expect(use.stderr).toBe('The default profile is now "west".\n');
    expect(JSON.parse(readFileSync(configFile(), 'utf8')).defaultProfile).toBe('west');
    expect(statSync(configFile()).mode & 0o777).toBe(0o600);

    const listed = JSON.parse((await roster(['profiles', '--json'])).stdout);
    expect(listed).toMatchObject({ active: 'west', activeFrom: 'defaultProfile' });
    const status = JSON.parse((await roster(['status', '--json'])).stdout);
    expect(status).toMatchObject({ profile: 'west', baseUrl: 'https://west.example/v1', oneroster: '1.2' });
    // The environment still wins, and `use` says so.
    const warned = await roster(['profiles', 'use', 'default'], { ROSTER_PROFILE: 'west' });
    expect(warned.stderr).toContain('Warning: ROSTER_PROFILE=west is set and still wins in this shell.');
  });

  it('use with an unknown name is a usage error (exit 2) naming the saved profiles', async () => {
    const result = await roster(['profiles', 'use', 'east']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'Error: No profile named "east". Saved profiles: default, west. Create one with `roster login --profile east`.\n',
    );
    expect(JSON.parse(readFileSync(configFile(), 'utf8')).defaultProfile).toBeUndefined();
  });

  // profiles remove's behaviour is test/unit/commands/profile-tokens.test.ts's; here its exit codes as run.
  it('remove NAME: exit 0 and the profile gone; an unknown name exit 2, nothing changed', async () => {
    // A profile logged out (no client id): no secret to look for in a keychain this run may not reach.
    saveConfig({ profiles: { default: { baseUrl: 'https://main.example/v1' }, west: {} } });
    const removed = await roster(['profiles', 'remove', 'west']);
    expect(removed.code, removed.stderr).toBe(0);
    expect(Object.keys(JSON.parse(readFileSync(configFile(), 'utf8')).profiles)).toEqual(['default']);
    const before = readFileSync(configFile(), 'utf8');
    const unknown = await roster(['profiles', 'remove', 'west']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('No profile named "west": nothing to remove. Saved profiles: default.');
    expect(readFileSync(configFile(), 'utf8')).toBe(before);
  });

  it('with no profile saved: nothing on stdout, a hint on stderr, exit 0', async () => {
    home = tempDir();
    const result = await roster(['profiles']);
    expect(result).toMatchObject({
      code: 0,
      stdout: '',
      stderr: 'No profile is saved yet. Run `roster login` to save one.\n',
    });
  });
});

// config's behaviour is test/unit/commands/config.test.ts's; here its exit codes as run, in the real file.
describe('roster config', () => {
  it('set then get round-trips a value (exit 0); an invalid one is exit 2, the file untouched', async () => {
    expect((await roster(['config', 'set', 'oneroster', '1.2'])).code).toBe(0);
    expect(await roster(['config', 'get', 'oneroster'])).toMatchObject({ code: 0, stdout: '1.2\n' });
    const before = readFileSync(configFile(), 'utf8');
    const bad = await roster(['config', 'set', 'oneroster', '1.3']);
    expect(bad.code).toBe(2);
    expect(readFileSync(configFile(), 'utf8')).toBe(before);
  });
});
