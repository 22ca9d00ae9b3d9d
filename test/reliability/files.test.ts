// The files roster writes: config, credentials file, token cache (written atomically: a temporary sibling
// renamed over the target), the database of sending invitations (and its -wal and -shm), the failed-rows
// CSV, all mode 0600 in 0700 folders; a leftover temporary file from a crash changes nothing; a corrupt or
// truncated config is one clear line (exit 1, never a stack trace); a corrupt or truncated token cache is
// discarded and rebuilt with one token request; roster processes running at once never leave a file that
// does not parse.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { runCli, startCli, until } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { insecureLogin } from '../helpers/sandbox.js';

let sandbox: Sandbox;
let home: string;
/** Saved-profile runs: no environment credentials, no keychain (the opt-in 0600 file instead). */
const saved = { ROSTER_CLIENT_ID: undefined, ROSTER_CLIENT_SECRET: undefined, ROSTER_BASE_URL: undefined };
const configDir = () => join(home, '.config', 'roster');
const configFile = () => join(configDir(), 'config.json');
const tokenDir = () => join(home, '.cache', 'roster', 'tokens');
const mode = (path: string) => statSync(path).mode & 0o777;
const tokenRequests = () => sandbox.requests.filter((r) => r.path.endsWith('/token')).length;

/** Every file below a folder. */
const filesBelow = (dir: string) =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile());
const dirsBelow = (dir: string) => [
  dir,
  ...readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isDirectory()),
];

function login(profile = 'default') {
  const { args, input } = insecureLogin(sandbox, ['--profile', profile, '--sent-by-user-id', 'adm-1']);
  return runCli(args, home, { input, env: saved });
}
const roster = (args: string[]) => runCli(args, home, { env: saved, timeoutMs: 30_000 });

beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());
beforeEach(async () => {
  home = tempDir();
  expect((await login()).code).toBe(0);
  sandbox.requests.length = 0;
});

describe('modes and atomic writes', () => {
  it('config, credentials file, token cache, database of sending and failed-rows CSV are 0600 in 0700 folders', async () => {
    const csv = join(tempDir(), 'invites.csv');
    writeFileSync(csv, 'email,schoolId\nfiles-1@example.org,org-sch-2\nfiles-2@example.org,org-sch-3\n');
    sandbox.injectFault({
      match: (req) => req.method === 'POST' && req.body.toString().includes('files-2@'),
      status: 400,
      body: { message: 'Refused on purpose' },
    });
    expect((await roster(['token'])).code).toBe(0);
    expect((await roster(['invite', 'send', '--file', csv])).code).toBe(5);
    const written = [
      ...filesBelow(join(home, '.config')),
      ...filesBelow(join(home, '.cache')),
      ...filesBelow(join(home, '.local')),
    ];
    const names = written.map((p) => p.slice(home.length));
    expect(names).toEqual(
      expect.arrayContaining([
        '/.config/roster/config.json',
        '/.config/roster/credentials.json',
        expect.stringMatching(/^\/\.cache\/roster\/tokens\/[0-9a-f]{16}\.json$/),
        expect.stringMatching(/^\/\.local\/state\/roster\/sent\/127\.0\.0\.1_\d+-[0-9a-f]{16}\.db$/),
        expect.stringMatching(/^\/\.local\/state\/roster\/invites\/invites\.csv-[0-9a-f]{16}\.failed\.csv$/),
      ]),
    );
    console.log(`files written: ${names.join(', ')}`);
    for (const path of written) expect(`${path}: ${mode(path).toString(8)}`).toBe(`${path}: 600`);
    for (const dir of [join(home, '.config'), join(home, '.cache'), join(home, '.local', 'state')].flatMap(
      dirsBelow,
    )) {
      if (dir.endsWith('/.config') || dir.endsWith('/.cache') || dir.endsWith('/state')) continue;
      expect(`${dir}: ${mode(dir).toString(8)}`).toBe(`${dir}: 700`);
    }
    // Nothing half-written is left behind: no temporary files, no lock, no rollback journal of SQLite's.
    expect(names.filter((n) => /\.tmp$|\.lock$|-journal$/.test(n))).toEqual([]);
  });

  it("the database's -wal and -shm, there while a run sends, are 0600 too", async () => {
    const csv = join(tempDir(), 'slow.csv');
    const emails = Array.from({ length: 12 }, (_, i) => `wal-${i}@example.org`);
    writeFileSync(csv, `email,schoolId\n${emails.map((e) => `${e},org-sch-1`).join('\n')}\n`);
    sandbox.setOptions({ latencyMs: 300 });
    const run = startCli(['invite', 'send', '--file', csv, '--concurrency', '1'], home, {
      env: saved,
      timeoutMs: 30_000,
    });
    try {
      const sent = join(home, '.local', 'state', 'roster', 'sent');
      const wal = () => (existsSync(sent) ? readdirSync(sent).find((n) => n.endsWith('.db-wal')) : undefined);
      await until(() => sandbox.outbox.some((m) => m.to === emails[0]) && wal() !== undefined);
      const db = join(sent, (wal() as string).replace(/-wal$/, ''));
      const modes = [db, `${db}-wal`, `${db}-shm`].map((path) => `${path}: ${mode(path).toString(8)}`);
      expect(modes).toEqual([`${db}: 600`, `${db}-wal: 600`, `${db}-shm: 600`]);
      expect(mode(sent).toString(8)).toBe('700');
    } finally {
      const done = await run.done;
      sandbox.setOptions({ latencyMs: 0 });
      expect(done.code, done.stderr).toBe(0);
    }
    expect(emails.map((e) => sandbox.outbox.filter((m) => m.to === e).length)).toEqual(emails.map(() => 1));
  });

  it('a temporary file left by a crash mid-write (half a config, half a token) changes nothing', async () => {
    const good = readFileSync(configFile(), 'utf8');
    writeFileSync(`${configFile()}.4242.deadbeef.tmp`, good.slice(0, good.length / 2), { mode: 0o600 });
    const [cached] = readdirSync(tokenDir());
    const tokenText = readFileSync(join(tokenDir(), cached ?? ''), 'utf8');
    writeFileSync(join(tokenDir(), `${cached}.4242.deadbeef.tmp`), tokenText.slice(0, 20), { mode: 0o600 });

    const check = await roster(['attendance', 'check']);
    expect(check.code).toBe(0);
    expect(tokenRequests()).toBe(0); // the cached token from login, not the torn copy
    expect(readFileSync(configFile(), 'utf8')).toBe(good);
    const use = await roster(['profiles', 'use', 'default']);
    expect(use.code).toBe(0);
    expect(JSON.parse(readFileSync(configFile(), 'utf8'))).toMatchObject({ defaultProfile: 'default' });
  });
});

describe('a corrupt or truncated config is reported clearly', () => {
  it('at any truncation point: one line naming the file, exit 1, no stack trace, nothing sent', async () => {
    const good = readFileSync(configFile(), 'utf8');
    const cuts = [1, 10, Math.floor(good.length / 3), Math.floor(good.length / 2), good.length - 4];
    for (const cut of cuts) {
      writeFileSync(configFile(), good.slice(0, cut));
      for (const args of [['attendance', 'check'], ['profiles'], ['status'], ['token']]) {
        const result = await roster(args);
        const lines = result.stderr.trimEnd().split('\n');
        expect({ cut, args, code: result.code, lines: lines.length }).toEqual({
          cut,
          args,
          code: 1,
          lines: 1,
        });
        expect(lines[0]).toMatch(
          new RegExp(
            `^Error: The config file ${configFile().replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} cannot be read: .+\\. Fix it by hand, or remove it and run \`roster login\` again\\.$`,
          ),
        );
        expect(result.stdout).toBe('');
      }
    }
    expect(sandbox.requests).toHaveLength(0);
  });

  it('binary junk and wrong types too', async () => {
    for (const text of [
      '\u0000\u0001\u0002',
      '[]',
      'null',
      '{"profiles": {"default": "x"}}',
      '{"profiles": {"default": {"clientId": 7}}}',
    ]) {
      writeFileSync(configFile(), text);
      const result = await roster(['attendance', 'check']);
      expect(result.code, text).toBe(1);
      expect(result.stderr).toMatch(/^Error: The config file .*config\.json cannot be read: /);
      expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    }
  });
});

describe('a corrupt or truncated token cache is discarded and rebuilt', () => {
  for (const [what, damage] of [
    ['truncated', (text: string) => text.slice(0, Math.floor(text.length / 2))],
    ['empty', () => ''],
    ['not JSON', () => '\u0000garbage{{{'],
    ['valid JSON of the wrong shape', () => JSON.stringify({ token: { accessToken: 42 } })],
  ] as const) {
    it(`${what}: the next command works with exactly one token request, and the file is whole again`, async () => {
      const [name] = readdirSync(tokenDir());
      const file = join(tokenDir(), name ?? '');
      writeFileSync(file, damage(readFileSync(file, 'utf8')));
      const check = await roster(['attendance', 'check']);
      expect(check.code).toBe(0);
      expect(check.stderr).toBe('');
      expect(tokenRequests()).toBe(1);
      const rebuilt = JSON.parse(readFileSync(file, 'utf8'));
      expect(rebuilt.token.accessToken).toEqual(expect.any(String));
      expect(mode(file)).toBe(0o600);
      // And the rebuilt cache serves the next command: no second token request.
      expect((await roster(['attendance', 'check'])).code).toBe(0);
      expect(tokenRequests()).toBe(1);
    });
  }
});

describe('roster processes running at once', () => {
  it('8 × config set of other keys, profiles use and a login of another profile, all at once: every change kept', async () => {
    expect((await login('east')).code).toBe(0);
    const keys: [string, string][] = [
      ['scope', 'roster.read'],
      ['onerosterScope', 'oneroster.core.readonly'],
      ['sentByUserId', 'adm-7'],
      ['scopes.invitations', 'invite.send'],
      ['tokenEndpoints.general', 'v1p1'],
      ['tokenEndpoints.invitations', 'oauth'],
      ['onerosterPaths.1.1', '/or/v1p1'],
      ['onerosterPaths.1.2', '/or/v1p2'],
    ];
    const runs = await Promise.all([
      ...keys.map(([key, value]) => roster(['config', 'set', key, value, '--profile', 'east'])),
      roster(['profiles', 'use', 'east']),
      login('west'),
    ]);
    expect(runs.map((r) => r.code)).toEqual(Array(keys.length + 2).fill(0));
    for (const [key, value] of keys) {
      const got = await roster(['config', 'get', key, '--profile', 'east']);
      expect(got.stdout.trim(), key).toBe(value);
    }
    const config = JSON.parse(readFileSync(configFile(), 'utf8'));
    expect(config.defaultProfile).toBe('east');
    expect(Object.keys(config.profiles).sort()).toEqual(['default', 'east', 'west']);
    expect(readdirSync(configDir()).filter((n) => n.endsWith('.tmp') || n.endsWith('.lock'))).toEqual([]);
  });

  it('8 × token --refresh and 8 × profiles use, all at once: config and cache still parse, no temporary file left', async () => {
    expect((await login('east')).code).toBe(0);
    sandbox.requests.length = 0;
    const runs = await Promise.all([
      ...Array.from({ length: 8 }, (_, i) =>
        roster(['token', '--refresh', '--profile', i % 2 ? 'east' : 'default']),
      ),
      ...Array.from({ length: 8 }, (_, i) => roster(['profiles', 'use', i % 2 ? 'east' : 'default'])),
    ]);
    expect(runs.map((r) => r.code)).toEqual(Array(16).fill(0));
    expect(tokenRequests()).toBe(8);
    const config = JSON.parse(readFileSync(configFile(), 'utf8'));
    expect(Object.keys(config.profiles).sort()).toEqual(['default', 'east']);
    expect(['default', 'east']).toContain(config.defaultProfile);
    const cacheFiles = readdirSync(tokenDir());
    expect(cacheFiles.filter((n) => !n.endsWith('.json'))).toEqual([]);
    const issued = new Set(runs.slice(0, 8).map((r) => r.stdout.trim()));
    for (const name of cacheFiles) {
      const entry = JSON.parse(readFileSync(join(tokenDir(), name), 'utf8'));
      // The cache holds one of the tokens the runs printed: whole, never a mix of two writes.
      expect(issued.has(entry.token.accessToken)).toBe(true);
      expect(mode(join(tokenDir(), name))).toBe(0o600);
    }
    expect(readdirSync(configDir()).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    // And the next command just works from them.
    expect((await roster(['attendance', 'check'])).code).toBe(0);
  });
});
