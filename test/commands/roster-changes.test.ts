// `roster roster changes` as a nightly script runs it, each run in this process (main() on a fake Context)
// against a sandbox whose district changes (sandbox.churn, as POST /__sandbox/churn does). What is expected comes from the sandbox's own
// list of changes, and what reached the server from its request log.
import { lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ChurnChange, type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { tempDir } from '../helpers/context.js';
import { rosterInProcess } from '../helpers/main.js';
import { demoEnv } from '../helpers/sandbox.js';

const STUDENTS = 60;
let sandbox: Sandbox;
let home: string;

beforeEach(async () => {
  sandbox = await startSandbox({ oneroster: { students: STUDENTS } });
  home = tempDir();
});
afterEach(() => sandbox.close());

const changes = (args: string[], env: Record<string, string> = {}) =>
  rosterInProcess(['roster', 'changes', ...args], { home, env: { ...demoEnv(sandbox), ...env } });

interface Line {
  collection: string;
  record: { sourcedId: string; status: string; dateLastModified: string };
}
const parse = (stdout: string): Line[] =>
  stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Line);
const keys = (lines: Line[]) => lines.map((l) => `${l.collection}/${l.record.sourcedId}`).sort();
/** The records a churn changed, once each (a record may change twice in one churn). */
const changed = (churn: ChurnChange[]) =>
  [...new Set(churn.map((c) => `${c.collection}/${c.sourcedId}`))].sort();
/** Seconds-precision ISO time, as a user types it. */
const iso = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
const readsOf = (from: number, collection: string) =>
  sandbox.requests.slice(from).filter((r) => r.method === 'GET' && r.path.endsWith(`/${collection}`));
const stateFiles = () => {
  const dir = join(home, 'state', 'changes');
  return Object.fromEntries(readdirSync(dir).map((name) => [name, readFileSync(join(dir, name), 'utf8')]));
};

describe('roster roster changes --since TIME', () => {
  it('reports exactly the changed records, tobedeleted included, asking with the standard filter (1.1)', async () => {
    const since = iso(Date.now() - 60_000);
    const churn = sandbox.churn(40);
    expect(churn.some((c) => c.change === 'tobedeleted')).toBe(true);
    const from = sandbox.requests.length;

    const result = await changes(['users', 'enrollments', '--since', since, '--ndjson']);

    expect(result.stderr).not.toMatch(/Error/);
    expect(result.code).toBe(0);
    const lines = parse(result.stdout);
    expect(keys(lines)).toEqual(changed(churn));
    const deleted = lines.filter((l) => l.record.status === 'tobedeleted').map((l) => l.record.sourcedId);
    const lastChange = new Map(churn.map((c) => [c.sourcedId, c.change]));
    expect(deleted.sort()).toEqual(
      [...lastChange]
        .filter(([, c]) => c === 'tobedeleted')
        .map(([id]) => id)
        .sort(),
    );
    const users = lines.filter((l) => l.collection === 'users');
    const usersDeleted = users.filter((l) => l.record.status === 'tobedeleted').length;
    expect(result.stderr).toContain(
      `users: ${users.length - usersDeleted} changed, ${usersDeleted} to be deleted`,
    );
    // What reached the server: ' as %27, > as %3E, : as %3A (never a bare quote or a +).
    const filter = `filter=dateLastModified%3E%27${since.replace(/:/g, '%3A')}%27`;
    for (const collection of ['users', 'enrollments']) {
      const reads = readsOf(from, collection);
      expect(reads.length).toBeGreaterThan(0);
      for (const read of reads) expect(read.rawQuery).toContain(filter);
    }
  });

  it("joins --filter with ' AND ', percent-encoded (space as %20), and an empty result is success", async () => {
    const since = iso(Date.now() - 60_000);
    const from = sandbox.requests.length;
    const result = await changes(['users', '--since', since, '--filter', "status='active'", '--ndjson']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('users: 0 changed, 0 to be deleted');
    const [read] = readsOf(from, 'users');
    expect(read?.rawQuery).toContain(
      `filter=dateLastModified%3E%27${since.replace(/:/g, '%3A')}%27%20AND%20status%3D%27active%27`,
    );
  });

  it('a duration reads back from now; TSV on a pipe with collection, sourcedId, status, dateLastModified and a name', async () => {
    const churn = sandbox.churn(6);
    const result = await changes(['users', 'enrollments', '--since', '2h']);
    expect(result.code).toBe(0);
    const [header, ...rows] = result.stdout.trimEnd().split('\n');
    expect(header).toBe('collection\tsourcedId\tstatus\tdateLastModified\tname');
    expect(rows.map((r) => r.split('\t').slice(0, 2).join('/')).sort()).toEqual(changed(churn));
    for (const row of rows.filter((r) => r.startsWith('users\t')))
      expect(row.split('\t')[4]).toMatch(/\S+ \S+/);
  });

  it('--csv --out DIR writes one file per collection with the binding columns, status and dateLastModified filled', async () => {
    const churn = sandbox.churn(12);
    const out = join(home, 'out');
    const result = await changes(['users', 'enrollments', '--since', '1h', '--csv', '--out', out]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
    const users = readFileSync(join(out, 'users.csv'), 'utf8').trimEnd().split('\n');
    expect(users[0]).toBe(
      'sourcedId,status,dateLastModified,enabledUser,orgSourcedIds,role,username,userIds,givenName,familyName,middleName,identifier,email,sms,phone,agentSourcedIds,grades,password',
    );
    const ids = users.slice(1).map((row) => row.split(',')[0]);
    expect(ids.sort()).toEqual(changed(churn.filter((c) => c.collection === 'users')).map((k) => k.slice(6)));
    for (const row of users.slice(1)) expect(row).toMatch(/^[^,]+,(active|tobedeleted),\d{4}-\d\d-\d\dT/);
    expect(readdirSync(out).sort()).toEqual(['enrollments.csv', 'users.csv']);
  });

  it('--csv never writes through a .partial planted in the directory', async () => {
    sandbox.churn(5);
    const out = join(home, 'planted');
    mkdirSync(out);
    const target = join(home, 'precious.txt');
    writeFileSync(target, 'keep me\n');
    symlinkSync(target, join(out, 'users.csv.partial'));
    const result = await changes(['users', '--since', '1h', '--csv', '--out', out]);
    expect(result.code).toBe(0);
    expect(readFileSync(target, 'utf8')).toBe('keep me\n');
    expect(lstatSync(join(out, 'users.csv')).isFile()).toBe(true);
    expect(readdirSync(out)).toEqual(['users.csv']);
  });
});

describe('roster roster changes --since last', () => {
  it('reads everything first, nothing on an immediate second run, exactly the changes on a third (1.2)', async () => {
    const env = { ROSTER_ONEROSTER: '1.2' };
    const early = sandbox.churn(5);
    const all = await rosterInProcess(['roster', 'users', '--all', '--ndjson'], {
      home,
      env: { ...demoEnv(sandbox), ...env },
    });
    const everyUser = all.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => `users/${(JSON.parse(l) as { sourcedId: string }).sourcedId}`)
      .sort();

    let from = sandbox.requests.length;
    const first = await changes(['users', 'enrollments', '--since', 'last', '--ndjson'], env);
    expect(first.code).toBe(0);
    expect(first.stderr).toContain('this first --since last run reads every record');
    expect(keys(parse(first.stdout)).filter((k) => k.startsWith('users/'))).toEqual(everyUser);
    for (const read of readsOf(from, 'users')) expect(read.rawQuery).not.toContain('filter=');
    expect(readsOf(from, 'users')[0]?.path).toContain('/ims/oneroster/v1p2/');

    from = sandbox.requests.length;
    const second = await changes(['users', 'enrollments', '--since', 'last', '--ndjson'], env);
    expect(second.code).toBe(0);
    expect(second.stdout).toBe('');
    expect(second.stderr).toContain('users: 0 changed, 0 to be deleted');
    // The early changes lie inside the overlap the second run asked for: the server sent them again,
    // and they were not reported twice.
    const asked = /filter=dateLastModified%3E%27([^%]+)%3A(\d\d)%3A(\d\d(?:\.\d+)?Z)%27/.exec(
      readsOf(from, 'users')[0]?.rawQuery ?? '',
    );
    expect(asked).not.toBeNull();
    const moment = Date.parse(`${asked?.[1]}:${asked?.[2]}:${asked?.[3]}`);
    expect(moment).toBeLessThan(Date.parse(early[0]?.dateLastModified ?? ''));

    const churn = sandbox.churn(7);
    const third = await changes(['users', 'enrollments', '--since', 'last', '--ndjson'], env);
    expect(third.code).toBe(0);
    expect(keys(parse(third.stdout))).toEqual(changed(churn));
  });

  it('a failed run saves nothing: the saved moment is untouched and the next run repeats the window (1.1)', async () => {
    const first = await changes(['users', 'enrollments', '--since', 'last', '--ndjson']);
    expect(first.code).toBe(0);
    const saved = stateFiles();
    expect(Object.keys(saved)).toHaveLength(2);

    const churn = sandbox.churn(8);
    sandbox.injectFault({ match: (req) => req.path.endsWith('/enrollments'), drop: true, times: 10 });
    const failed = await changes(['users', 'enrollments', '--since', 'last', '--ndjson']);
    expect(failed.code).toBe(1);
    expect(stateFiles()).toEqual(saved);

    sandbox.clearFaults();
    const again = await changes(['users', 'enrollments', '--since', 'last', '--ndjson']);
    expect(again.code).toBe(0);
    expect(keys(parse(again.stdout))).toEqual(changed(churn));
  });

  it('a server stopped mid-read leaves the saved moment untouched', async () => {
    const first = await changes(['users', '--since', 'last', '--ndjson']);
    expect(first.code).toBe(0);
    const saved = stateFiles();
    sandbox.churn(20);
    let pages = 0;
    sandbox.injectFault({
      match: (req) => {
        if (req.path.endsWith('/users') && ++pages === 2) void sandbox.close();
        return false;
      },
    });
    const failed = await changes([
      'users',
      '--since',
      'last',
      '--ndjson',
      '--page-size',
      '3',
      '--concurrency',
      '1',
    ]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/Error: /);
    expect(stateFiles()).toEqual(saved);
  });
});

describe('roster roster changes: what is refused', () => {
  it.each([
    [['--since', '2999-01-01'], /in the future/],
    [['--since', 'yesterday'], /Invalid --since "yesterday"/],
    [['--since', '2026-02-30'], /no such date/],
    [['--since', '2026-11-01T06:00'], /add Z or an offset/],
    [['--since', '0h'], /duration is zero/],
    [[], /needs --since/],
    [['--since', '24h', '--csv'], /--out DIR/],
    [['pupils', '--since', '24h'], /Unknown collection "pupils"/],
    [['--since', '24h', '--filter', "status='active' OR role='student'"], /one predicate/],
  ])('%j is a usage error (exit 2) before any request', async (args, message) => {
    const from = sandbox.requests.length;
    const result = await changes(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(sandbox.requests.length).toBe(from);
  });

  it('a server that rejects the filter: exit 1, the cause named, a full read suggested', async () => {
    sandbox.injectFault({
      match: (req) => req.rawQuery.includes('filter=dateLastModified'),
      status: 400,
      body: {
        imsx_codeMajor: 'failure',
        imsx_severity: 'error',
        imsx_description: 'Unsupported filter operator > on dateLastModified',
      },
    });
    const result = await changes(['users', '--since', '24h']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("The server refused the filter dateLastModified>'");
    expect(result.stderr).toContain('Unsupported filter operator');
    expect(result.stderr).toContain('roster roster users --all');
  });
});
