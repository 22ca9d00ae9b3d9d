// `roster roster export --since`: a OneRoster CSV delta package of the changes only, against a sandbox
// whose district changes. Expected rows come from the sandbox's own list of changes. Each run is in this
// process (main() on a fake Context), against the sandbox over loopback.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ChurnChange, type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { tempDir } from '../helpers/context.js';
import { rosterInProcess } from '../helpers/main.js';
import { demoEnv } from '../helpers/sandbox.js';

let sandbox: Sandbox;
let home: string;
beforeEach(async () => {
  sandbox = await startSandbox({ oneroster: { students: 40 } });
  home = tempDir();
});
afterEach(() => sandbox.close());

const roster = (args: string[], env: Record<string, string> = {}) =>
  rosterInProcess(['roster', ...args], { home, env: { ...demoEnv(sandbox), ...env } });
const csvIds = (dir: string, file: string) =>
  readFileSync(join(dir, file), 'utf8')
    .trimEnd()
    .split('\n')
    .slice(1)
    .map((row) => row.split(',')[0] as string)
    .sort();
const manifest = (dir: string) =>
  Object.fromEntries(
    readFileSync(join(dir, 'manifest.csv'), 'utf8')
      .trimEnd()
      .split('\n')
      .slice(1)
      .map((row) => row.split(',') as [string, string]),
  );
const idsOf = (churn: ChurnChange[], collection: string) =>
  [...new Set(churn.filter((c) => c.collection === collection).map((c) => c.sourcedId))].sort();

describe('roster roster export --since', () => {
  it('writes only the changed rows, status and dateLastModified filled, the manifest marking them delta (1.1)', async () => {
    const since = new Date(Math.floor((Date.now() - 60_000) / 1000) * 1000)
      .toISOString()
      .replace('.000Z', 'Z');
    const churn = sandbox.churn(30);
    const out = join(home, 'delta');
    const from = sandbox.requests.length;
    const result = await roster(['export', '--out', out, '--since', since, '--zip']);
    expect(result.stderr).not.toMatch(/Error/);
    expect(result.code).toBe(0);

    expect(csvIds(out, 'users.csv')).toEqual(idsOf(churn, 'users'));
    expect(csvIds(out, 'enrollments.csv')).toEqual(idsOf(churn, 'enrollments'));
    for (const row of readFileSync(join(out, 'users.csv'), 'utf8').trimEnd().split('\n').slice(1)) {
      expect(row).toMatch(/^[^,]+,(active|tobedeleted),\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
    }
    const deleted = churn.filter((c) => c.change === 'tobedeleted' && c.collection === 'users');
    expect(deleted.length).toBeGreaterThan(0);
    const usersCsv = readFileSync(join(out, 'users.csv'), 'utf8');
    for (const c of deleted) expect(usersCsv).toContain(`${c.sourcedId},tobedeleted,`);
    expect(manifest(out)).toMatchObject({
      'oneroster.version': '1.1',
      'file.users': 'delta',
      'file.enrollments': 'delta',
      'file.orgs': 'absent',
      'file.academicSessions': 'absent',
      'file.courses': 'absent',
      'file.classes': 'absent',
      'file.demographics': 'absent',
    });
    // Files without changes are not in the package.
    expect(existsSync(join(out, 'orgs.csv'))).toBe(false);
    expect(result.stderr).toContain('orgs.csv');
    expect(result.stderr).toMatch(/orgs\.csv\s+absent \(no changes\)/);
    const reads = sandbox.requests
      .slice(from)
      .filter((r) => r.method === 'GET' && r.path.includes('/ims/oneroster/v1p1/'));
    expect(reads.length).toBeGreaterThan(0);
    for (const read of reads) {
      expect(read.rawQuery).toContain(`filter=dateLastModified%3E%27${since.replace(/:/g, '%3A')}%27`);
    }
  });

  it('--since last: everything first, then only what changed; its moment belongs to that directory (1.2)', async () => {
    const env = { ROSTER_ONEROSTER: '1.2' };
    const out = join(home, 'nightly');
    const first = await roster(['export', '--out', out, '--since', 'last'], env);
    expect(first.code).toBe(0);
    expect(first.stderr).toContain('this first --since last export holds every record');
    expect(manifest(out)['file.orgs']).toBe('delta');
    expect(csvIds(out, 'orgs.csv')).toHaveLength(8); // the district and its 7 schools;

    const quiet = await roster(['export', '--out', out, '--since', 'last'], env);
    expect(quiet.code).toBe(0);
    expect(Object.entries(manifest(out)).filter(([k, v]) => k.startsWith('file.') && v !== 'absent')).toEqual(
      [],
    );

    const churn = sandbox.churn(15);
    const third = await roster(['export', '--out', out, '--since', 'last'], env);
    expect(third.code).toBe(0);
    expect(csvIds(out, 'users.csv')).toEqual(idsOf(churn, 'users'));
    expect(manifest(out)['file.users']).toBe('delta');
    expect(manifest(out)['file.roles']).toBe('delta');
    const roleUsers = new Set(
      readFileSync(join(out, 'roles.csv'), 'utf8')
        .trimEnd()
        .split('\n')
        .slice(1)
        .map((row) => row.split(',')[3]),
    );
    expect([...roleUsers].sort()).toEqual(idsOf(churn, 'users'));

    // Another directory, or `changes`, has its own moment: a first run there.
    const elsewhere = await roster(['export', '--out', join(home, 'other'), '--since', 'last'], env);
    expect(elsewhere.stderr).toContain('this first --since last export');
    const changes = await roster(['changes', 'users', '--since', 'last', '--ndjson'], env);
    expect(changes.stderr).toContain('this first --since last run');
  });

  it('a failed --since export saves nothing, and running it again resumes with the same moment', async () => {
    const out = join(home, 'resume');
    const first = await roster(['export', '--out', out, '--since', 'last']);
    expect(first.code).toBe(0);
    const churn = sandbox.churn(10);
    sandbox.injectFault({ match: (req) => req.path.endsWith('/enrollments'), status: 500, times: 10 });
    const failed = await roster(['export', '--out', out, '--since', 'last']);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('run the same command again to resume');
    sandbox.clearFaults();
    const again = await roster(['export', '--out', out, '--since', 'last', '--json']);
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/Resuming the export/);
    expect(csvIds(out, 'users.csv')).toEqual(idsOf(churn, 'users'));
    expect(csvIds(out, 'enrollments.csv')).toEqual(idsOf(churn, 'enrollments'));
    expect(readdirSync(out)).toContain('manifest.csv');
  });

  it('a relative --since resumes with the moment the export started with, not a new one', async () => {
    const out = join(home, 'relative');
    sandbox.churn(6);
    sandbox.injectFault({ match: (req) => req.path.endsWith('/enrollments'), status: 500, times: 10 });
    const failed = await roster(['export', '--out', out, '--since', '2h']);
    expect(failed.code).toBe(1);
    const started = JSON.parse(readFileSync(join(out, '.roster-export.json'), 'utf8')) as {
      since: Record<string, string>;
    };
    sandbox.clearFaults();
    const from = sandbox.requests.length;
    const again = await roster(['export', '--out', out, '--since', '2h', '--json']);
    expect(again.code).toBe(0);
    expect((JSON.parse(again.stdout) as { since: unknown }).since).toEqual(started.since);
    const [read] = sandbox.requests
      .slice(from)
      .filter((r) => r.method === 'GET' && r.path.endsWith('/enrollments'));
    const moment = new Date(started.since.enrollments as string).toISOString().replace('.000Z', 'Z');
    expect(decodeURIComponent(read?.rawQuery ?? '')).toContain(`dateLastModified>'${moment}'`);
  });

  it('--since in the future is a usage error before any request', async () => {
    const from = sandbox.requests.length;
    const result = await roster(['export', '--out', join(home, 'x'), '--since', '2999-01-01']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('in the future');
    expect(sandbox.requests.length).toBe(from);
  });
});
