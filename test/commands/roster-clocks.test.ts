// `--since last` against servers whose clocks are off: the sandbox's `clock` quirk (its Date header and the
// dateLastModified it stamps run hours or decades ahead, or behind), and a gateway in front of it whose own
// Date disagrees with the records behind it (ahead, in 2099, behind, in 1970, unreadable, absent). Whatever
// the clocks say, the run after a churn reports every change, exactly once, exit 0. Expected records come
// from the sandbox's own list of changes. Each run is in this process (main() on a fake Context), against
// the sandbox over loopback: the Date header is the real transport's.
import { existsSync, readFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type ChurnChange, type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { tempDir } from '../helpers/context.js';
import { rosterInProcess } from '../helpers/main.js';
import { demoEnv } from '../helpers/sandbox.js';

const HOUR = 3_600_000;
let sandbox: Sandbox | undefined;
let gateway: Gateway | undefined;
afterEach(async () => {
  await gateway?.close();
  await sandbox?.close();
  gateway = undefined;
  sandbox = undefined;
});

interface Gateway {
  baseUrl: string;
  close(): Promise<void>;
}

/** A gateway in front of the sandbox that answers with its own Date header (none when `date` gives none). */
async function startGateway(target: Sandbox, date: () => string | undefined): Promise<Gateway> {
  const upstream = new URL(target.baseUrl);
  const server = createServer((req, res) => {
    const forward = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: req.url,
        method: req.method,
        headers: req.headers,
      },
      (answer) => {
        const { date: _, ...headers } = answer.headers;
        const own = date();
        res.sendDate = false;
        res.writeHead(answer.statusCode ?? 502, own === undefined ? headers : { ...headers, date: own });
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}${upstream.pathname}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface Line {
  collection: string;
  record: { sourcedId: string };
}
const keys = (stdout: string) =>
  stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Line)
    .map((l) => `${l.collection}/${l.record.sourcedId}`)
    .sort();
const changed = (churn: ChurnChange[]) =>
  [...new Set(churn.map((c) => `${c.collection}/${c.sourcedId}`))].sort();
const idsOf = (churn: ChurnChange[], collection: string) =>
  [...new Set(churn.filter((c) => c.collection === collection).map((c) => c.sourcedId))].sort();
/** The sourcedIds of a delta file; none when the package left it out (no changes). */
const csvIds = (dir: string, file: string) =>
  existsSync(join(dir, file))
    ? readFileSync(join(dir, file), 'utf8')
        .trimEnd()
        .split('\n')
        .slice(1)
        .map((row) => row.split(',')[0] as string)
        .sort()
    : [];

function cli(home: string, baseUrl?: string) {
  const server = sandbox as Sandbox;
  return (args: string[]) =>
    rosterInProcess(['roster', ...args], {
      home,
      env: { ...demoEnv(server), ...(baseUrl === undefined ? {} : { ROSTER_BASE_URL: baseUrl }) },
    });
}

/** changes --since last, a churn of 4, changes --since last again: every change reported, then none twice. */
async function changesAcrossChurn(roster: ReturnType<typeof cli>, warning: RegExp) {
  const args = ['changes', 'users', 'enrollments', '--since', 'last', '--ndjson'];
  const first = await roster(args);
  expect(first.code, first.stderr).toBe(0);
  expect(first.stderr).toContain('this first --since last run reads every record');
  const churn = (sandbox as Sandbox).churn(4);
  expect(churn.filter((c) => c.collection === 'users').length).toBeGreaterThan(0);

  const second = await roster(args);
  expect(second.code, second.stderr).toBe(0);
  expect(keys(second.stdout)).toEqual(changed(churn));
  expect(second.stderr).toMatch(warning);

  const third = await roster(args);
  expect(third.code, third.stderr).toBe(0);
  expect(third.stdout).toBe('');
  expect(third.stderr).toContain('users: 0 changed, 0 to be deleted');
}

describe('sandbox --quirks clock: the Date header and the records stamped run ahead or behind', () => {
  it.each([
    ['2 hours ahead', 2 * HOUR, /the server's clock is 2 hours ahead of this machine's/],
    ['75 years ahead (2101)', 8760 * 75 * HOUR, /the server's clock is 27375 days ahead of this machine's/],
    ['2 hours behind', -2 * HOUR, /the server's clock is 2 hours behind this machine's/],
  ])(
    '%s: the run after a churn reports all of it, exit 0, with a warning on stderr',
    async (_, offset, warning) => {
      sandbox = await startSandbox({ oneroster: { students: 30 }, quirks: { clockOffsetMs: offset } });
      const stamp = Date.parse(sandbox.churn(1)[0]?.dateLastModified ?? '');
      expect(Math.abs(stamp - (Date.now() + offset))).toBeLessThan(60_000);
      await changesAcrossChurn(cli(tempDir()), warning);
    },
  );

  it('--since 1h against a server 2 hours behind: the warning says the duration missed changes, and how to ask', async () => {
    sandbox = await startSandbox({ oneroster: { students: 30 }, quirks: { clockOffsetMs: -2 * HOUR } });
    sandbox.churn(4);
    const result = await cli(tempDir())(['changes', 'users', '--since', '1h', '--ndjson']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(''); // by the server's clock the moment asked for is an hour ahead
    expect(result.stderr).toContain(
      "The --since duration was measured back from this machine's clock: by the server's, that moment is 2 hours later, and changes it stamped in between are missing. Give the moment as a time by the server's clock, or use --since last.",
    );
  });

  it('export --since last: the next package holds every record changed, 2 hours ahead and 75 years ahead', async () => {
    for (const offset of [2 * HOUR, 8760 * 75 * HOUR]) {
      sandbox = await startSandbox({ oneroster: { students: 30 }, quirks: { clockOffsetMs: offset } });
      const home = tempDir();
      const out = join(home, 'nightly');
      const roster = cli(home);
      const first = await roster(['export', '--out', out, '--since', 'last']);
      expect(first.code, first.stderr).toBe(0);
      const churn = sandbox.churn(4);
      const second = await roster(['export', '--out', out, '--since', 'last']);
      expect(second.code, second.stderr).toBe(0);
      expect(second.stderr).toMatch(/the server's clock is \d+ (hours|days) ahead of this machine's/);
      expect(csvIds(out, 'users.csv')).toEqual(idsOf(churn, 'users'));
      expect(csvIds(out, 'enrollments.csv')).toEqual(idsOf(churn, 'enrollments'));
      await sandbox.close();
      sandbox = undefined;
    }
  });
});

describe('a gateway whose Date disagrees with the records behind it', () => {
  const at = (ms: number) => () => new Date(ms).toUTCString();
  it.each([
    ['2 hours ahead', () => new Date(Date.now() + 2 * HOUR).toUTCString(), /2 hours ahead of this machine's/],
    ['in 2099', at(Date.parse('2099-06-01T00:00:00Z')), /days ahead of this machine's/],
    ['in 9999', at(Date.parse('9999-12-31T23:59:59Z')), /days ahead of this machine's/],
    ['2 hours behind', () => new Date(Date.now() - 2 * HOUR).toUTCString(), /2 hours behind this machine's/],
    ['in 1970', at(0), /a Date header of 1970-01-01T00:00:00Z reading users: this machine's clock stands in/],
    ['unreadable', () => 'the day after tomorrow', /a Date header roster cannot read reading users/],
    ['absent', () => undefined, /no Date header reading users/],
  ])('Date %s: the run after a churn reports all of it, exit 0, with a warning', async (_, date, warning) => {
    sandbox = await startSandbox({ oneroster: { students: 30 } });
    gateway = await startGateway(sandbox, date);
    await changesAcrossChurn(cli(tempDir(), gateway.baseUrl), warning);
  });

  it('export --since last behind a gateway 2 hours ahead: the next package holds every record changed', async () => {
    sandbox = await startSandbox({ oneroster: { students: 30 } });
    gateway = await startGateway(sandbox, () => new Date(Date.now() + 2 * HOUR).toUTCString());
    const home = tempDir();
    const out = join(home, 'nightly');
    const roster = cli(home, gateway.baseUrl);
    expect((await roster(['export', '--out', out, '--since', 'last'])).code).toBe(0);
    const churn = sandbox.churn(4);
    const second = await roster(['export', '--out', out, '--since', 'last']);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toMatch(/2 hours ahead of this machine's/);
    expect(csvIds(out, 'users.csv')).toEqual(idsOf(churn, 'users'));
    expect(csvIds(out, 'enrollments.csv')).toEqual(idsOf(churn, 'enrollments'));
  });
});
