// Behaviour under faults, as an admin meets them: the built CLI in a real process against the sandbox with
// seeded random failures, dropped connections, short-lived and revoked tokens, and a server that never
// answers. Each test prints the figures it checks (pages fetched / repeated / missing; rows sent / failed /
// in doubt / duplicated) and asserts them. Counts and outcomes only: how long a run takes depends on how busy
// the machine is, so no test here holds one to a duration (how fast is `npm run bench`'s question). A wait
// roster must make is checked as a lower bound, which a busy machine cannot break.
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RecordedRequest, type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { writeSchoolsCache } from '../../src/schools/cache.js';
import { type CliOptions, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { journalRows } from '../helpers/store.js';

const STUDENTS = 2345;
const PAGE = 100;
const SEED = 20240611;

let sandbox: Sandbox;
let home: string;

const credentials = (s: Sandbox) => ({
  ROSTER_BASE_URL: s.baseUrl,
  ROSTER_CLIENT_ID: 'demo-allowed',
  ROSTER_CLIENT_SECRET: s.clients.find((c) => c.clientId === 'demo-allowed')?.clientSecret,
});
const roster = (args: string[], options: CliOptions = {}) =>
  runCli(args, home, {
    timeoutMs: 60_000,
    ...options,
    env: { ...credentials(sandbox), ...options.env },
  });
const figures = (name: string, values: Record<string, number>) =>
  console.log(
    `${name}: ${Object.entries(values)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
  );

beforeAll(async () => {
  sandbox = await startSandbox({ seed: SEED, oneroster: { students: STUDENTS } });
});
afterAll(() => sandbox.close());
beforeEach(() => {
  home = tempDir();
  sandbox.requests.length = 0;
  sandbox.outbox.length = 0;
  sandbox.clearFaults();
  sandbox.setOptions({
    latencyMs: 0,
    jitterMs: 0,
    failRate: 0,
    dropRate: 0,
    rateLimit: 0,
    tokenTtlSeconds: 3600,
  });
});

/** When each request for `path` (under /v1) reached the sandbox: a spy first in line, never a fault. */
function arrivalsOf(path: string): number[] {
  const arrivals: number[] = [];
  sandbox.injectFault({
    match: (req) => {
      if (req.path === path) arrivals.push(performance.now());
      return false;
    },
  });
  return arrivals;
}

const isTokenRequest = (r: RecordedRequest) => r.path.endsWith('/token');
const studentPages = () => sandbox.requests.filter((r) => r.path.endsWith('/students'));
const offsetOf = (r: RecordedRequest) => Number(new URLSearchParams(r.rawQuery).get('offset') ?? 0);

/** Pages the export needed, and which of them were answered 200 once, more than once, or never. */
function pageFigures() {
  const expected = Array.from({ length: Math.ceil(STUDENTS / PAGE) }, (_, i) => i * PAGE);
  const ok = new Map<number, number>();
  for (const r of studentPages()) if (r.status === 200) ok.set(offsetOf(r), (ok.get(offsetOf(r)) ?? 0) + 1);
  return {
    expected: expected.length,
    requests: studentPages().length,
    fetched: ok.size,
    repeated: [...ok.values()].filter((n) => n > 1).length,
    missing: expected.filter((o) => !ok.has(o)).length,
    failedAnswers: studentPages().filter((r) => r.status !== 200).length,
    tokenRequests: sandbox.requests.filter(isTokenRequest).length,
  };
}

/** Every sourcedId once, none missing, as NDJSON on stdout. */
function recordFigures(stdout: string) {
  const ids = stdout
    .trim()
    .split('\n')
    .map((line) => (JSON.parse(line) as { sourcedId: string }).sourcedId);
  const unique = new Set(ids);
  const want = Array.from({ length: STUDENTS }, (_, i) => `stu-${String(i + 1).padStart(6, '0')}`);
  return {
    records: ids.length,
    unique: unique.size,
    duplicated: ids.length - unique.size,
    missing: want.filter((id) => !unique.has(id)).length,
  };
}

describe('(a) an export under 10% failures and expiring tokens', () => {
  it('fails 10% of pages with 503 + Retry-After and tokens live 1 s: every student once, no page lost or repeated', async () => {
    sandbox.setOptions({ failRate: 0.1, tokenTtlSeconds: 1, latencyMs: 100, jitterMs: 40 });
    // The random failures depend on the order requests reach the sandbox (24 pages at 10% meet none one
    // run in twelve): one planted 503 + Retry-After makes sure the retry path is taken every run.
    sandbox.injectFault({
      match: (req) => req.path.endsWith('/students') && req.query.get('offset') === '1200',
      status: 503,
      headers: { 'Retry-After': '1' },
    });
    const result = await roster([
      'roster',
      'students',
      '--all',
      '--ndjson',
      '--page-size',
      String(PAGE),
      '--concurrency',
      '2',
    ]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const pages = pageFigures();
    const records = recordFigures(result.stdout);
    figures('export, failRate 0.1 + token TTL 1 s', { ...pages, ...records });
    // The export outlived its first token (a fresh one was asked for), and met injected failures.
    expect(pages.failedAnswers).toBeGreaterThan(0);
    expect(pages.tokenRequests).toBeGreaterThan(1);
    expect(pages).toMatchObject({ expected: 24, fetched: 24, repeated: 0, missing: 0 });
    expect(records).toEqual({ records: STUDENTS, unique: STUDENTS, duplicated: 0, missing: 0 });
    // Every request carried a token the sandbox still honoured: no 401 at all, none replayed.
    expect(studentPages().filter((r) => r.status === 401)).toHaveLength(0);
  });

  it('every token revoked mid-export: one 401, one fresh token, the page replayed once, nothing lost or repeated', async () => {
    sandbox.setOptions({ failRate: 0.1 });
    let revoked = 0;
    sandbox.injectFault({
      // A hook, not a fault: when the page at offset 1200 arrives, revoke every token (its own included).
      match: (req) => {
        if (revoked === 0 && req.path.endsWith('/students') && req.query.get('offset') === '1200') {
          revoked++;
          sandbox.revokeAllTokens();
        }
        return false;
      },
    });
    const result = await roster([
      'roster',
      'students',
      '--all',
      '--ndjson',
      '--page-size',
      String(PAGE),
      '--concurrency',
      '1',
    ]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const pages = pageFigures();
    const records = recordFigures(result.stdout);
    const unauthorized = studentPages().filter((r) => r.status === 401);
    figures('export, tokens revoked at offset 1200', {
      ...pages,
      ...records,
      unauthorized: unauthorized.length,
    });
    expect(revoked).toBe(1);
    expect(unauthorized.map(offsetOf)).toEqual([1200]);
    expect(pages.tokenRequests).toBe(2);
    expect(pages).toMatchObject({ fetched: 24, repeated: 0, missing: 0 });
    expect(records).toEqual({ records: STUDENTS, unique: STUDENTS, duplicated: 0, missing: 0 });
  });
});

/** The last state of each row in the run's journal (its database, named on stderr), by e-mail. */
function journalStates(stderr: string): Map<string, string> {
  const path = /Journal: (\S+\.db)/.exec(stderr)?.[1];
  expect(path).toBeDefined();
  return new Map(journalRows(path as string).map((r) => [r.email, r.state]));
}

describe('(b) a bulk send under 10% failures and 10% drops', () => {
  it('ends with every row sent once, failed or in doubt: none lost, none doubled; a re-run sends the failed rows only', async () => {
    const ROWS = 200;
    const emails = Array.from({ length: ROWS }, (_, i) => `bulk-fault-${i}@example.org`);
    const file = join(tempDir(), 'invites.csv');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(
      file,
      `email,schoolId\n${emails.map((e, i) => `${e},org-sch-${(i % 7) + 1}`).join('\n')}\n`,
    );
    // A few rows refused outright (the API's own 422 is certainly unprocessed and not retried; a 503
    // without Retry-After would be in doubt, as gateways answer in the same shape): the "failed" rows a
    // re-run must pick up.
    const refused = new Set(emails.filter((_, i) => i % 40 === 7));
    sandbox.injectFault({
      match: (req) =>
        req.method === 'POST' &&
        req.path === '/enrollment/invitations' &&
        refused.has(JSON.parse(req.body.toString()).email),
      status: 422,
      body: { message: 'Scripted refusal' },
      times: refused.size,
    });
    sandbox.setOptions({ failRate: 0.1, dropRate: 0.1, latencyMs: 5 });
    const args = [
      'invite',
      'send',
      '--file',
      file,
      '--sent-by-user-id',
      'adm-1',
      '--concurrency',
      '8',
      '--json',
    ];
    const first = await roster(args);
    sandbox.setOptions({ failRate: 0, dropRate: 0 });

    const report = JSON.parse(first.stdout) as { counts: Record<string, number> };
    const states = journalStates(first.stderr);
    const outboxCount = (email: string) => sandbox.outbox.filter((m) => m.to === email).length;
    const byState = (state: string) => emails.filter((e) => states.get(e) === state);
    const sent = byState('sent');
    const failed = byState('failed');
    const inDoubt = byState('in-doubt');
    const posts = sandbox.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/invitations'));
    const run1 = {
      rows: ROWS,
      sent: sent.length,
      failed: failed.length,
      inDoubt: inDoubt.length,
      lost: ROWS - sent.length - failed.length - inDoubt.length,
      duplicated: emails.filter((e) => outboxCount(e) > 1).length,
      posts: posts.length,
      injected503: posts.filter((r) => r.status === 503).length,
      dropped: posts.filter((r) => r.dropped).length,
    };
    figures('bulk run 1, failRate 0.1 + dropRate 0.1', run1);
    expect(first.code).toBe(5);
    expect(run1.lost).toBe(0);
    expect(run1.duplicated).toBe(0);
    expect(run1.dropped).toBeGreaterThan(0);
    expect(run1.injected503).toBeGreaterThan(0);
    expect(report.counts).toMatchObject({ sent: run1.sent, failed: run1.failed, inDoubt: run1.inDoubt });
    // Sent means delivered exactly once; failed means never delivered; in doubt was cut mid-answer.
    for (const e of sent) expect(outboxCount(e), e).toBe(1);
    for (const e of failed) expect(outboxCount(e), e).toBe(0);
    // Failed: the refused rows, and any row whose every try met an injected 503 (10% a try: rare, legitimate).
    const failedSet = new Set(failed);
    for (const e of refused) expect(failedSet.has(e), e).toBe(true);
    const postsFor = (email: string) => posts.filter((r) => JSON.parse(String(r.body)).email === email);
    for (const e of failed.filter((e) => !refused.has(e))) {
      expect(
        postsFor(e).map((r) => r.status),
        e,
      ).toEqual(postsFor(e).map(() => 503));
    }
    // A dropped answer came after the sandbox created the invitation: the server's list settled it as sent,
    // unless its read failed too (10% of tries fail, 10% drop: rare), which roster says once.
    const dropped = posts.filter((r) => r.dropped).map((r) => JSON.parse(String(r.body)).email as string);
    const listFailed = /roster cannot settle invitations in doubt by the server's list/.test(first.stderr);
    if (!listFailed) for (const e of dropped) expect(states.get(e), e).toBe('sent');
    for (const e of inDoubt) expect(dropped, e).toContain(e);

    const before = new Map(emails.map((e) => [e, outboxCount(e)]));
    sandbox.requests.length = 0;
    const second = await roster(args);
    const posted = sandbox.requests
      .filter((r) => r.method === 'POST' && r.path.endsWith('/invitations'))
      .map((r) => JSON.parse(r.body).email as string);
    const run2 = {
      posts: posted.length,
      resentFailed: posted.filter((e) => failedSet.has(e)).length,
      resentOther: posted.filter((e) => !failedSet.has(e)).length,
      duplicated: emails.filter((e) => outboxCount(e) > 1).length,
    };
    figures('bulk run 2 (no faults)', run2);
    // The failed rows went out now; nothing sent or in doubt was sent again, so no one has two e-mails.
    expect(run2, `${second.code}\n${second.stderr}`).toEqual({
      posts: failed.length,
      resentFailed: failed.length,
      resentOther: 0,
      duplicated: 0,
    });
    for (const e of emails) expect(outboxCount(e)).toBe((before.get(e) ?? 0) + (failedSet.has(e) ? 1 : 0));
    // Rows the first run left in doubt are settled by the server's list on the re-run (no faults now): every
    // one is listed, noted sent and not sent again, so nothing stays in doubt.
    expect(second.code).toBe(0);
  }, 90_000); // 200 rows under faults and a re-run: 10 s alone, 30 s and more beside busy CPU loops
});

describe('(c) GET retries', () => {
  it('give up after 4 tries with a clear message when every answer is a 503', async () => {
    sandbox.setOptions({ failRate: 1 });
    const arrivals = arrivalsOf('/attendance/status');
    const result = await roster(['attendance', 'check']);
    const gets = sandbox.requests.filter((r) => r.path === '/v1/attendance/status');
    const gaps = arrivals.slice(1).map((at, i) => at - (arrivals[i] ?? 0));
    figures('attendance check at failRate 1', { tries: gets.length });
    expect(result.code).toBe(1);
    expect(gets.map((r) => r.status)).toEqual([503, 503, 503, 503]);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/Attendance check failed \(HTTP 503\).*\(after 4 tries\)/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    // Three waits of Retry-After: 1 s each, at least (a busy machine only makes them longer).
    expect(gaps).toHaveLength(3);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(990);
  });

  it('wait as long as Retry-After asks before the next try', async () => {
    const arrivals = arrivalsOf('/attendance/status');
    sandbox.injectFault({
      match: (req) => req.path === '/attendance/status',
      status: 429,
      headers: { 'Retry-After': '2' },
      body: { message: 'Slow down' },
    });
    // The spy is first in line, so it sees both tries; the 429 answers the first. --debug names the wait
    // roster chose: exactly what Retry-After asked, no backoff added; the arrivals show it was waited.
    const result = await roster(['--debug', 'attendance', 'check']);
    expect(result.code).toBe(0);
    expect(arrivals).toHaveLength(2);
    expect(result.stderr).toContain('HTTP 429; retry 1/3 in 2000 ms');
    const waited = (arrivals[1] ?? 0) - (arrivals[0] ?? 0);
    figures('Retry-After: 2', { waitedMs: Math.round(waited) });
    expect(waited).toBeGreaterThanOrEqual(1950);
  });

  it('a Retry-After longer than a minute is reported at once, not waited', async () => {
    sandbox.injectFault({
      match: (req) => req.path === '/attendance/status',
      status: 503,
      headers: { 'Retry-After': '3600' },
      body: { message: 'Down for maintenance' },
    });
    // Had it waited the hour, the helper would have killed it after 20 s (exit code null, not 1).
    const result = await roster(['attendance', 'check'], { timeoutMs: 20_000 });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/HTTP 503.*Down for maintenance/);
    expect(sandbox.requests.filter((r) => r.path === '/v1/attendance/status')).toHaveLength(1);
  });
});

describe('(d) the invitation POST under a dropped connection', () => {
  it("is settled by the server's list (it created the invitation): sent, exit 0, exactly one POST", async () => {
    sandbox.injectFault({
      match: (req) => req.method === 'POST' && req.path === '/enrollment/invitations',
      drop: true,
    });
    const result = await roster([
      'invite',
      'send',
      '--email',
      'dropped@example.org',
      '--school-id',
      'org-sch-2',
      '--sent-by-user-id',
      'adm-1',
    ]);
    const posts = sandbox.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/invitations'));
    figures('POST under a drop', {
      posts: posts.length,
      emails: sandbox.outbox.length,
      exit: result.code ?? -1,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^✓ Invitation to dropped@example\.org was sent: the server lists it \(created at .*\); it was not sent again\.\n$/,
    );
    expect(result.stderr).toBe('');
    expect(posts).toHaveLength(1);
    expect(posts[0]?.dropped).toBe(true);
    expect(sandbox.outbox.filter((m) => m.to === 'dropped@example.org')).toHaveLength(1);
  });
});

/**
 * A raw TCP server on loopback that reads each request and answers it with `answer` (nothing, when
 * undefined); counts the connections and the requests (their first lines).
 */
function rawServer(answer?: string) {
  const sockets = new Set<Socket>();
  const server = {
    base: '',
    connections: 0,
    requests: [] as string[],
    start: async () => {
      const listening: Server = createServer((socket) => {
        server.connections++;
        sockets.add(socket);
        socket.on('error', () => {});
        socket.on('data', (chunk) => {
          const first = /^(GET|POST) \S+/.exec(chunk.toString('latin1'));
          if (!first) return;
          server.requests.push(first[0]);
          if (answer !== undefined) socket.write(answer);
        });
        socket.on('close', () => sockets.delete(socket));
      });
      await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
      const address = listening.address();
      server.base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/v1`;
      server.stop = async () => {
        for (const socket of sockets) socket.destroy();
        await new Promise<void>((resolve) => listening.close(() => resolve()));
      };
    },
    stop: async () => {},
    reset: () => {
      server.connections = 0;
      server.requests.length = 0;
    },
  };
  return server;
}

describe('(e) --timeout bounds a server that accepts and never answers', () => {
  const hung = rawServer();
  let base = '';
  beforeAll(async () => {
    await hung.start();
    base = hung.base;
  });
  afterEach(() => hung.reset());
  afterAll(() => hung.stop());

  // Each test is bounded: a run that ignored the timeout would be killed by the helper (exit code null).
  it('a GET: 4 tries of 0.5 s plus the backoff between them, then a clear message, exit 1', async () => {
    const started = Date.now();
    const result = await runCli(['--timeout', '0.5', 'attendance', 'check'], home, {
      env: { ROSTER_BASE_URL: base, ROSTER_TOKEN: 'a-ready-token-for-the-hung-server' },
    });
    const elapsed = Date.now() - started;
    figures('GET to a hung server, --timeout 0.5', { connections: hung.connections });
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toMatch(
      /^Error: No answer from http:\/\/127\.0\.0\.1:\d+\/v1\/attendance\/status within 0\.5 s \(gave up after 4 tries\)\./,
    );
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    // Four tries, each on a new connection (a timed-out one is closed), each waited out: 4 × 0.5 s at least.
    // undici opens one more connection after each request it aborts, and sends nothing on it (its issue
    // 5845): at most one spare a try.
    expect(hung.requests).toHaveLength(4);
    expect(hung.connections).toBeGreaterThanOrEqual(4);
    expect(hung.connections).toBeLessThanOrEqual(8);
    expect(elapsed).toBeGreaterThanOrEqual(2000);
  });

  it('a token request (a POST, never replayed): one try of 0.5 s, then a clear message, exit 1', async () => {
    const started = Date.now();
    const result = await runCli(['token', '--timeout', '0.5'], home, {
      env: { ROSTER_BASE_URL: base, ROSTER_CLIENT_ID: 'id', ROSTER_CLIENT_SECRET: 'secret-for-hung-server' },
    });
    const elapsed = Date.now() - started;
    figures('token request to a hung server, --timeout 0.5', { connections: hung.connections });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/No answer from http:\/\/127\.0\.0\.1:\d+\/v1\/oauth\/token within 0\.5 s/);
    expect(hung.requests).toEqual(['POST /v1/oauth/token']);
    expect(hung.connections).toBeLessThanOrEqual(2); // the spare undici opens after an abort, unused
    expect(elapsed).toBeGreaterThanOrEqual(500);
  });

  it('ROSTER_TIMEOUT does the same for an invitation: outcome unknown after one try, never replayed', async () => {
    // The district's schools as cached by an earlier run, so the school id needs no read of the hung server.
    const key = { profile: 'default', baseUrl: base, clientId: '', oneroster: '1.1' };
    const schools = [{ sourcedId: 'org-sch-1', name: 'Alder', identifier: '', status: 'active' }];
    await writeSchoolsCache(join(home, '.cache', 'roster'), key, { readAt: Date.now(), schools });
    const result = await runCli(
      [
        'invite',
        'send',
        '--email',
        'hung@example.org',
        '--school-id',
        'org-sch-1',
        '--sent-by-user-id',
        'u1',
      ],
      home,
      {
        env: {
          ROSTER_BASE_URL: base,
          ROSTER_TOKEN: 'a-ready-token-for-the-hung-server',
          ROSTER_TIMEOUT: '0.4',
        },
      },
    );
    figures('POST to a hung server, ROSTER_TIMEOUT 0.4', { connections: hung.connections });
    expect(result.code).toBe(5);
    expect(result.stderr).toMatch(/outcome is unknown.*No answer .* within 0\.4 s/);
    // One POST; then the list's read (4 tries, each timed out) could not settle it, which roster says.
    expect(result.stderr).toMatch(/roster cannot settle invitations in doubt by the server's list/);
    expect(hung.requests).toHaveLength(5);
    expect(hung.requests[0]).toBe('POST /v1/enrollment/invitations');
    expect(hung.requests.slice(1).every((line) => line.startsWith('GET '))).toBe(true);
  });
});

describe('(f) a server that switches protocols (HTTP 101) instead of answering', () => {
  // Node closes an upgraded connection nobody asked for without an error: unhandled, each request waited
  // out its whole timeout (30 s by default). Each test is bounded well under that by the helper.
  const upgrading = rawServer(
    'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n',
  );
  beforeAll(() => upgrading.start());
  afterEach(() => upgrading.reset());
  afterAll(() => upgrading.stop());
  const limits = { timeoutMs: 20_000 };

  it('a GET fails at once with a clear message, exit 1, and is not retried', async () => {
    const result = await runCli(['--timeout', '60', 'attendance', 'check'], home, {
      ...limits,
      env: { ROSTER_BASE_URL: upgrading.base, ROSTER_TOKEN: 'a-ready-token-for-the-upgrading-server' },
    });
    figures('GET to a server answering 101', { requests: upgrading.requests.length });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim()).toMatch(
      /^Error: The server switched protocols \(HTTP 101\) instead of answering GET http:\/\/127\.0\.0\.1:\d+\/v1\/attendance\/status\. Check the base URL/,
    );
    expect(upgrading.requests).toEqual(['GET /v1/attendance/status']);
  });

  it('an invitation: outcome unknown (the server had it), exit 5, one POST, never replayed', async () => {
    const key = { profile: 'default', baseUrl: upgrading.base, clientId: '', oneroster: '1.1' };
    const schools = [{ sourcedId: 'org-sch-1', name: 'Alder', identifier: '', status: 'active' }];
    await writeSchoolsCache(join(home, '.cache', 'roster'), key, { readAt: Date.now(), schools });
    const result = await runCli(
      ['invite', 'send', '--email', 'up@example.org', '--school-id', 'org-sch-1', '--sent-by-user-id', 'u1'],
      home,
      {
        ...limits,
        env: { ROSTER_BASE_URL: upgrading.base, ROSTER_TOKEN: 'a-ready-token-for-the-upgrading-server' },
      },
    );
    figures('POST to a server answering 101', {
      requests: upgrading.requests.length,
      exit: result.code ?? -1,
    });
    expect(result.code).toBe(5);
    expect(result.stderr).toMatch(/outcome is unknown.*switched protocols \(HTTP 101\)/);
    // One POST, never replayed; then one read of the list, which the server switched protocols on too.
    expect(upgrading.requests).toEqual([
      'POST /v1/enrollment/invitations',
      'GET /v1/enrollment/invitations?email=up%40example.org&perPage=100&page=1',
    ]);
  });
});
