// `roster config get|set|unset|list`, each run in this process (main() on a fake Context): a real config file
// under a private HOME, and an HttpMock with no stub for the wire (nothing may be sent). Values are
// checked as `roster login` checks them and a usage error leaves the file untouched; the file is replaced
// atomically (a new 0600 file renamed over it, never written through a planted link), never holds a
// secret, and a planted file is refused.
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/context.js';
import { useHttpMock } from '../../helpers/http-mock.js';
import { rosterInProcess } from '../../helpers/main.js';

let home: string;
const mock = useHttpMock();
const folder = () => join(home, 'config');
const configFile = () => join(folder(), 'config.json');
const roster = (args: string[], env: Record<string, string> = {}, stdin?: string) =>
  rosterInProcess(args, { home, env, transport: mock.http, ...(stdin !== undefined && { stdin }) });
const saved = () => JSON.parse(readFileSync(configFile(), 'utf8'));

const PROFILES = {
  default: { baseUrl: 'https://main.example/v1', clientId: 'main-1', secretStorage: 'keychain' },
  west: { baseUrl: 'https://west.example/v1', clientId: 'west-42', oneroster: '1.2', scope: 'attendance' },
};

beforeEach(() => {
  home = tempDir();
  mkdirSync(folder(), { recursive: true, mode: 0o700 });
  writeFileSync(configFile(), JSON.stringify({ defaultProfile: 'default', profiles: PROFILES }), {
    mode: 0o600,
  });
});

/** Runs a command that must fail with `code` and leave the config file exactly as it was (same file, same bytes). */
async function refused(args: string[], code: number, env: Record<string, string> = {}) {
  const before = existsSync(configFile()) ? readFileSync(configFile(), 'utf8') : undefined;
  const inode = existsSync(configFile()) ? statSync(configFile()).ino : undefined;
  const result = await roster(args, env);
  expect(result.code, result.stderr).toBe(code);
  expect(result.stdout).toBe('');
  if (before === undefined) expect(existsSync(configFile())).toBe(false);
  else {
    expect(readFileSync(configFile(), 'utf8')).toBe(before);
    expect(statSync(configFile()).ino).toBe(inode);
  }
  expect(readdirSync(folder()).filter((name) => name !== 'config.json')).toEqual([]);
  return result;
}

describe('roster config: happy paths', () => {
  it('set writes the active profile atomically: a new 0600 file, nothing else left in the folder', async () => {
    const inode = statSync(configFile()).ino;
    const result = await roster(['config', 'set', 'scope', 'roster-core.readonly attendance']);
    expect(result).toMatchObject({ code: 0, stdout: '' });
    expect(result.stderr).toBe('Saved scope of profile "default".\n');
    expect(saved().profiles).toEqual({
      default: { ...PROFILES.default, scope: 'roster-core.readonly attendance' },
      west: PROFILES.west,
    });
    expect(saved().defaultProfile).toBe('default');
    const after = statSync(configFile());
    expect(after.ino).not.toBe(inode);
    expect(after.mode & 0o777).toBe(0o600);
    expect(readdirSync(folder())).toEqual(['config.json']);
  });

  it('get prints the value alone (for $(…)), the default when unsaved, nothing when nothing is sent', async () => {
    expect(await roster(['config', 'get', 'scope', '--profile', 'west'])).toMatchObject({
      code: 0,
      stdout: 'attendance\n',
      stderr: '',
    });
    expect((await roster(['config', 'get', 'clientAuth'])).stdout).toBe('basic\n');
    expect((await roster(['config', 'get', 'tokenEndpoints.invitations'])).stdout).toBe('v1p1\n');
    expect((await roster(['config', 'get', 'onerosterPaths.1.2'])).stdout).toBe('/ims/oneroster/v1p2\n');
    expect(await roster(['config', 'get', 'scope'])).toMatchObject({ code: 0, stdout: '\n' });
  });

  it('get --json: profile, key, value (null when nothing is sent) and whether it is saved', async () => {
    const json = async (args: string[], env: Record<string, string> = {}) =>
      JSON.parse((await roster(['config', 'get', ...args, '--json'], env)).stdout);
    expect(await json(['oneroster'], { ROSTER_PROFILE: 'west' })).toEqual({
      profile: 'west',
      key: 'oneroster',
      value: '1.2',
      saved: true,
    });
    expect(await json(['oneroster'])).toEqual({
      profile: 'default',
      key: 'oneroster',
      value: '1.1',
      saved: false,
    });
    expect(await json(['sentByUserId'])).toEqual({
      profile: 'default',
      key: 'sentByUserId',
      value: null,
      saved: false,
    });
  });

  it('accepts the key in the spellings of flags and variables (oneroster-scope, ONEROSTER_SCOPE)', async () => {
    const scope = 'https://purl.imsglobal.org/spec/or/v1p2/scope/roster.readonly';
    expect((await roster(['config', 'set', 'oneroster-scope', scope])).code).toBe(0);
    expect((await roster(['config', 'get', 'ONEROSTER_SCOPE'])).stdout).toBe(`${scope}\n`);
    expect(saved().profiles.default.onerosterScope).toBe(scope);
  });

  it('nested keys: set creates the map entry, unset removes it (and the map once empty)', async () => {
    for (const [key, value] of [
      ['tokenEndpoints.invitations', '/custom/token'],
      ['tokenEndpoints.general', 'v1p2'],
      ['onerosterPaths.1.1', '/vendor/ims/oneroster/v1p1/'],
      ['scopes.oneroster-1.2', 'roster.readonly'],
    ]) {
      expect(
        (await roster(['config', 'set', key as string, value as string, '--profile', 'west'])).code,
      ).toBe(0);
    }
    expect(saved().profiles.west).toMatchObject({
      tokenEndpoints: { invitations: '/custom/token', general: 'v1p2' },
      // Saved as the reads use it: without the trailing slash.
      onerosterPaths: { '1.1': '/vendor/ims/oneroster/v1p1' },
      scopes: { 'oneroster-1.2': 'roster.readonly' },
    });
    const unset = await roster(['config', 'unset', 'tokenEndpoints.general', '--profile', 'west']);
    expect(unset).toMatchObject({ code: 0, stderr: 'Removed tokenEndpoints.general from profile "west".\n' });
    await roster(['config', 'unset', 'onerosterPaths.1.1', '--profile', 'west']);
    expect(saved().profiles.west.tokenEndpoints).toEqual({ invitations: '/custom/token' });
    expect(saved().profiles.west).not.toHaveProperty('onerosterPaths');
    expect(await roster(['config', 'unset', 'sentByUserId'])).toMatchObject({
      code: 0,
      stderr: 'Profile "default" had no sentByUserId.\n',
    });
  });

  it('list: every key as key=value (the default where unsaved); --json the same as get --json', async () => {
    const list = await roster(['config', 'list', '--profile', 'west']);
    expect(list.code).toBe(0);
    const lines = list.stdout.split('\n');
    expect(lines).toEqual(
      expect.arrayContaining([
        'baseUrl=https://west.example/v1',
        'clientAuth=basic',
        'oneroster=1.2',
        'scope=attendance',
        'onerosterScope=',
        'tokenEndpoints.oneroster-1.2=v1p2',
      ]),
    );
    expect(lines.some((line) => /clientId|secret/i.test(line))).toBe(false);
    const json = JSON.parse((await roster(['config', 'list', '--json', '--profile', 'west'])).stdout);
    expect(json).toContainEqual({ profile: 'west', key: 'scope', value: 'attendance', saved: true });
    expect(json).toHaveLength(lines.length - 1);
  });

  it('baseUrl: saved as login saves it (no trailing slash), with a word about the stored secret', async () => {
    const result = await roster(['config', 'set', 'baseUrl', 'https://new.example/v1/']);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      'the client secret was stored for the previous base URL: run `roster login`',
    );
    expect(saved().profiles.default.baseUrl).toBe('https://new.example/v1');
  });

  it('says when a variable of the environment wins over the value in this shell', async () => {
    const set = await roster(['config', 'set', 'scope', 'a'], { ROSTER_SCOPE: 'b' });
    expect(set.stderr).toContain('Warning: ROSTER_SCOPE is set and still wins in this shell.');
    const get = await roster(['config', 'get', 'scope'], { ROSTER_SCOPE: 'b' });
    expect(get).toMatchObject({ code: 0, stdout: 'a\n' });
    expect(get.stderr).toContain('ROSTER_SCOPE is set and wins over this value in this shell.');
  });
});

describe('roster config: refused, exit 2, the file untouched', () => {
  it('an unknown key, listing the known ones', async () => {
    const result = await refused(['config', 'set', 'scoop', 'x'], 2);
    expect(result.stderr).toMatch(
      /^Error: Unknown config key "scoop"\. Known keys: baseUrl, clientAuth, .*scope/,
    );
    await refused(['config', 'get', 'toString'], 2);
    await refused(['config', 'unset', '__proto__'], 2);
  });

  it.each(['client-secret', 'clientSecret', 'CLIENT_SECRET', 'secret', 'token', 'access_token', 'password'])(
    'a secret (%s) is never a config value: pointed to roster login',
    async (key) => {
      const result = await refused(['config', 'set', key, 'hunter2-secret'], 2);
      expect(result.stderr).toContain('is not a config value: roster never keeps a secret or a token');
      expect(result.stderr).toContain('`roster login`');
      expect(result.stderr).toContain('--client-secret-stdin');
      expect(result.stderr).not.toContain('hunter2');
      expect(readFileSync(configFile(), 'utf8')).not.toContain('hunter2');
    },
  );

  it('clientId and secretStorage belong to roster login (they go with the stored secret)', async () => {
    for (const key of ['clientId', 'secretStorage']) {
      const result = await refused(['config', 'set', key, 'x'], 2);
      expect(result.stderr).toContain('is set by `roster login`');
    }
  });

  it.each([
    [
      'clientAuth',
      'digest',
      /Invalid value "digest" from roster config set clientAuth: expected basic or post/,
    ],
    ['oneroster', '1.3', /expected 1\.1 or 1\.2/],
    ['scope', 'say "hi"', /Invalid scope "say "hi"" from roster config set scope/],
    ['scopes.invitations', 'a\u0007b', /Invalid scope "a\\u0007b"/],
    ['baseUrl', 'http://api.district.example/v1', /Refusing plain http:\/\/ to api\.district\.example/],
    ['baseUrl', 'https://user:pw@api.district.example/v1', /must not contain a user name or password/],
    ['tokenEndpoints.general', '//evil.example/token', /Invalid token endpoint "\/\/evil\.example\/token"/],
    ['tokenEndpoints.oneroster-1.1', '/ims/../token', /Invalid token endpoint/],
    ['onerosterPaths.1.2', '/ims/oneroster/../v1p2', /Invalid OneRoster 1\.2 path prefix/],
    [
      'sentByUserId',
      'adm\u200b-001',
      /Invalid user id "adm\\u200b-001" from roster config set sentByUserId: it contains an invisible character/,
    ],
    ['sentByUserId', ' adm-001', /it has spaces around it/],
  ])('an invalid %s (%j)', async (key, value, message) => {
    const result = await refused(['config', 'set', key, value], 2);
    expect(result.stderr).toMatch(message);
  });

  it('a missing value or key is a usage error', async () => {
    await refused(['config', 'set', 'scope'], 2);
    await refused(['config', 'get'], 2);
  });

  it('a profile that does not exist: named, with the saved ones; set never creates it', async () => {
    for (const args of [
      ['config', 'get', 'scope', '--profile', 'east'],
      ['config', 'set', 'scope', 'x', '--profile', 'east'],
      ['config', 'unset', 'scope', '--profile', 'east'],
      ['config', 'list', '--profile', 'east'],
    ]) {
      const result = await refused(args, 2);
      expect(result.stderr).toContain(
        'Error: No profile named "east". Saved profiles: default, west. Create one with `roster login --profile east`.',
      );
    }
    const env = await refused(['config', 'set', 'scope', 'x'], 2, { ROSTER_PROFILE: 'east' });
    expect(env.stderr).toContain('No profile named "east"');
  });

  it('no config file at all: nothing is created', async () => {
    home = tempDir();
    mkdirSync(folder(), { recursive: true, mode: 0o700 });
    const result = await refused(['config', 'set', 'scope', 'x'], 2);
    expect(result.stderr).toContain('No profile is saved yet: run `roster login` first');
  });
});

describe('roster config: a planted config file', () => {
  it('one that others can write is refused (exit 1) and not replaced', async () => {
    chmodSync(configFile(), 0o666);
    const result = await refused(['config', 'set', 'baseUrl', 'https://attacker.example/v1'], 1);
    expect(result.stderr).toContain('other users can write to it (mode 0666), so roster will not trust it');
    await refused(['config', 'get', 'baseUrl'], 1);
  });

  it('a config folder others can write is refused', async () => {
    chmodSync(folder(), 0o777);
    const result = await refused(['config', 'set', 'scope', 'x'], 1);
    expect(result.stderr).toMatch(/other users can write to it/);
  });

  it('a symbolic link at config.json is replaced by the new file, never written through', async () => {
    const elsewhere = join(home, 'elsewhere.json');
    writeFileSync(elsewhere, readFileSync(configFile()), { mode: 0o600 });
    const original = readFileSync(elsewhere, 'utf8');
    const { rmSync } = await import('node:fs');
    rmSync(configFile());
    symlinkSync(elsewhere, configFile());
    expect((await roster(['config', 'set', 'scope', 'x'])).code).toBe(0);
    expect(readFileSync(elsewhere, 'utf8')).toBe(original);
    expect(statSync(configFile()).isFile()).toBe(true);
    expect(saved().profiles.default.scope).toBe('x');
  });
});

describe('validated as roster login validates', () => {
  it.each([
    [['--scope', 'a  b'], 'config set scope', 'a  b', /Invalid scope "a {2}b" from /],
    [['--oneroster-scope', 'x"y'], 'config set onerosterScope', 'x"y', /Invalid scope "x"y" from /],
    [
      ['--sent-by-user-id', 'u\u200b1'],
      'config set sentByUserId',
      'u\u200b1',
      /Invalid user id "u\\u200b1" from /,
    ],
    [
      ['--base-url', 'http://api.district.example/v1'],
      'config set baseUrl',
      'http://api.district.example/v1',
      /Refusing plain http:\/\//,
    ],
  ])(
    'login %j and %s refuse the same value, exit 2, nothing sent or saved',
    async (flags, command, value, message) => {
      const login = await roster(
        [
          'login',
          '--base-url',
          'http://127.0.0.1:9/v1',
          '--client-id',
          'c',
          '--client-secret-stdin',
          ...flags,
        ],
        {},
        'secret',
      );
      expect(login.code).toBe(2);
      expect(login.stderr).toMatch(message);
      const [, key] = command.split(' set ');
      const config = await refused(['config', 'set', key as string, value], 2);
      expect(config.stderr).toMatch(message);
    },
  );
});
