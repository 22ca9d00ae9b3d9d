// Request economy, counted on the sandbox: with a cached token a single-resource command makes exactly one
// HTTP request; concurrent work (a bulk send, parallel pages) shares one token request; keep-alive
// sockets are reused, so the connections are no more than the requests in flight; what needs no request
// (a cached token, completion from cached schools) makes none. What each command loads at start-up is the
// start-up benchmark's to print (test/bench/startup.js), against its budget. Each run is in this process
// (main() on a fake Context, a Session and transport of its own, as a process has), against the sandbox.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../../src/sandbox/server.js';
import { tempDir } from '../helpers/context.js';
import { rosterInProcess } from '../helpers/main.js';
import { demoEnv, useSandbox } from '../helpers/sandbox.js';

const fixture = useSandbox({ oneroster: { students: 2000 } });

beforeEach(() => {
  fixture.sandbox.setOptions({ latencyMs: 0 });
});

const roster = async (args: string[], quiet = true) => {
  const result = await rosterInProcess(args, { home: fixture.home, env: demoEnv(fixture.sandbox) });
  if (quiet) expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return result;
};
const isToken = (r: RecordedRequest) => r.path.endsWith('/token');
const connections = (requests: RecordedRequest[]) => new Set(requests.map((r) => r.connection)).size;

/** Caches both tokens a run may need (general; OneRoster 1.1 and invitations), then forgets the requests. */
async function cacheTokens() {
  await roster(['token']);
  await roster(['token', '--endpoint', 'v1p1']);
  expect(fixture.sandbox.requests.filter(isToken)).toHaveLength(2);
  fixture.sandbox.requests.length = 0;
}

describe('with a cached token, a single-resource command makes exactly one request', () => {
  it.each([
    ['attendance check', ['attendance', 'check'], 'GET /v1/attendance/status'],
    [
      'invite send (one)',
      [
        'invite',
        'send',
        '--email',
        'one@example.org',
        '--school-id',
        'org-sch-2',
        '--sent-by-user-id',
        'usr-1',
      ],
      'POST /v1/enrollment/invitations',
    ],
    ['invite list', ['invite', 'list'], 'GET /v1/enrollment/invitations'],
    [
      'roster students --limit 5',
      ['roster', 'students', '--limit', '5'],
      'GET /v1/ims/oneroster/v1p1/students',
    ],
  ])('%s', async (_name, args, request) => {
    await cacheTokens();
    // invite send checks the school id against the district's schools: read once a day, cached between.
    if (args[1] === 'send') await roster([...args, '--dry-run'], false);
    fixture.sandbox.requests.length = 0;
    await roster(args);
    expect(fixture.sandbox.requests.map((r) => `${r.method} ${r.path}`)).toEqual([request]);
  });

  it('roster students SOURCED_ID', async () => {
    await cacheTokens();
    const id = JSON.parse((await roster(['roster', 'students', '--limit', '1', '--json'])).stdout)[0]
      .sourcedId;
    fixture.sandbox.requests.length = 0;
    await roster(['roster', 'students', id, '--json']);
    expect(fixture.sandbox.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      `GET /v1/ims/oneroster/v1p1/students/${id}`,
    ]);
  });
});

describe('what needs no request makes none', () => {
  it('roster token with a cached token: the same token, no request', async () => {
    await cacheTokens();
    const first = await roster(['token']);
    const again = await roster(['token']);
    expect(again.stdout).toBe(first.stdout);
    expect(fixture.sandbox.requests).toEqual([]);
  });

  it("school id completion at TAB time: from the district's schools as cached, no request", async () => {
    await cacheTokens();
    // Caches the district's schools, as a send does once a day.
    const send = ['invite', 'send', '--email', 'tab@example.org', '--school-id', 'org-sch-1'];
    await roster([...send, '--sent-by-user-id', 'u1', '--dry-run'], false);
    fixture.sandbox.requests.length = 0;
    const tab = await roster(['__complete', 'schools', '--', 'invite', 'send', '--school-id']);
    expect(tab.stdout.split('\n')[0]).toMatch(/^org-sch-1\t/);
    expect(fixture.sandbox.requests).toEqual([]);
  });
});

describe('concurrent work shares one token request and reuses keep-alive connections', () => {
  it('invite send --file with --concurrency 8: one token request, at most 8 + 1 connections', async () => {
    fixture.sandbox.setOptions({ latencyMs: 20 });
    const rows = Array.from({ length: 120 }, (_, i) => `economy-${i}@example.org,org-sch-${(i % 4) + 1},1`);
    const file = join(tempDir(), 'rows.csv');
    writeFileSync(file, `email,schoolId,studentCount\n${rows.join('\n')}\n`);
    await roster(
      ['invite', 'send', '--file', file, '--sent-by-user-id', 'usr-1', '--concurrency', '8'],
      false,
    );
    const sends = fixture.sandbox.requests.filter((r) => r.method === 'POST' && !isToken(r));
    expect(sends).toHaveLength(120);
    // One read of the district's schools checks the 120 rows' school ids.
    expect(fixture.sandbox.requests.filter((r) => r.method === 'GET').map((r) => r.path)).toEqual([
      '/v1/ims/oneroster/v1p1/schools',
    ]);
    expect(fixture.sandbox.requests.filter(isToken)).toHaveLength(1);
    expect(connections(sends)).toBeLessThanOrEqual(8);
    expect(connections(fixture.sandbox.requests)).toBeLessThanOrEqual(9);
  }, 60_000);

  it('roster students --all with parallel pages: one token request, at most 4 + 1 connections', async () => {
    fixture.sandbox.setOptions({ latencyMs: 20 });
    const { stdout } = await roster(['roster', 'students', '--all', '--ndjson', '--page-size', '100']);
    expect(stdout.trim().split('\n')).toHaveLength(2000);
    const pages = fixture.sandbox.requests.filter((r) => !isToken(r));
    expect(pages).toHaveLength(20);
    expect(fixture.sandbox.requests.filter(isToken)).toHaveLength(1);
    // The first page alone, then up to four at a time (the default --concurrency).
    expect(connections(pages)).toBeLessThanOrEqual(4);
    expect(connections(fixture.sandbox.requests)).toBeLessThanOrEqual(5);
  }, 60_000);

  it('a sequential read reuses one connection for every page, token request included', async () => {
    const { stdout } = await roster([
      'roster',
      'students',
      '--all',
      '--ndjson',
      '--page-size',
      '250',
      '--concurrency',
      '1',
    ]);
    expect(stdout.trim().split('\n')).toHaveLength(2000);
    expect(fixture.sandbox.requests.filter((r) => !isToken(r))).toHaveLength(8);
    expect(connections(fixture.sandbox.requests)).toBe(1);
  });
});
