// A hostile HTTP server on 127.0.0.1 against the built CLI in a real process: pathological error pages,
// bombs and endless bodies, redirects and look-alike answers to an invitation, and totals that lie. Each test
// asserts what the user sees (stdout, stderr, exit code) and what reached the server.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type CliOptions, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { type Hostile, json, startHostile } from '../helpers/hostile.js';
import { demoEnv, useSandbox } from '../helpers/sandbox.js';

const TOKEN = 'a-ready-token-for-the-hostile-server';
let server: Hostile;
let home: string;

beforeAll(async () => {
  // Its district has the one school the invitations name, so --school-id s1 resolves without a warning.
  server = await startHostile(undefined, { schools: [{ sourcedId: 's1', name: 'Hostile Elementary' }] });
});
afterAll(() => server.close());
beforeEach(() => {
  home = tempDir();
  server.requests.length = 0;
});

const roster = (args: string[], options: CliOptions = {}) =>
  runCli(args, home, {
    timeoutMs: 60_000,
    ...options,
    env: { ROSTER_BASE_URL: server.baseUrl, ROSTER_TOKEN: TOKEN, ...options.env },
  });
const lines = (text: string) => text.trim().split('\n');
const figures = (name: string, values: Record<string, number>) =>
  console.log(
    `${name}: ${Object.entries(values)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
  );

describe('no super-linear parsing of server text', () => {
  it('a 1.2 MB error page of "<title" fragments is described promptly: exit 1, one line', async () => {
    // Each "<title" without a ">" made the old title regex scan to the end: quadratic, minutes of CPU.
    const page = `<html><head>${'<title'.repeat(200_000)}`;
    server.handle((_, res) => res.writeHead(500, { 'content-type': 'text/html' }).end(page));
    const result = await roster(['attendance', 'check'], { timeoutMs: 25_000 });
    expect(result.code).toBe(1);
    expect(lines(result.stderr)).toHaveLength(1);
    expect(result.stderr).toMatch(
      /^Error: Attendance check failed \(HTTP 500\): an HTML page \(a proxy or gateway\?\)/,
    );
    expect(server.requests).toHaveLength(4); // a GET answered 500 is tried four times
  }, 30_000);

  it('still names the title of an ordinary error page', async () => {
    server.handle((_, res) =>
      res
        .writeHead(502, { 'content-type': 'text/html; charset=utf-8' })
        .end('<html><head><TITLE lang="en">502 Bad Gateway</TITLE></head><body>nginx</body></html>'),
    );
    const result = await roster(['--timeout', '2', 'attendance', 'check']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/HTTP 502\): an HTML page "502 Bad Gateway" \(a proxy or gateway\?\)/);
  }, 30_000);
});

describe('bounded responses', () => {
  const MiB = 1024 * 1024;
  /** A 1 MB gzip bomb: 1,024 gzip members of 1 MiB of zeros each, 1 GiB unpacked. */
  const bomb = Buffer.concat(Array(1024).fill(gzipSync(Buffer.alloc(MiB), { level: 9 })));
  let rssHook: string;
  beforeAll(() => {
    // Preloaded into the CLI: writes the process's peak resident set size (KiB) when it exits.
    rssHook = join(tempDir(), 'peak-rss.cjs');
    writeFileSync(
      rssHook,
      "process.on('exit', () => require('node:fs').writeFileSync(process.env.PEAK_RSS_FILE, String(process.resourceUsage().maxRSS)));\n",
    );
  });

  /** The CLI under the RSS hook: its result and peak RSS in MiB. */
  async function measured(args: string[], env: Record<string, string> = {}) {
    const file = join(tempDir(), 'rss.txt');
    const result = await roster(args, {
      env: { NODE_OPTIONS: `--require=${rssHook}`, PEAK_RSS_FILE: file, ...env },
    });
    const rssMiB = existsSync(file) ? Math.round(Number(readFileSync(file, 'utf8')) / 1024) : Number.NaN;
    return { ...result, rssMiB };
  }

  const capError = (stderr: string, path: string, limit = '64 MiB') => {
    expect(lines(stderr)).toHaveLength(1);
    expect(stderr).toContain(
      `Error: The answer from ${server.baseUrl}${path} is larger than ${limit}, the most roster reads of one answer; it stopped reading there. `,
    );
    expect(stderr).toMatch(/raise the limit with --max-response-size or ROSTER_MAX_RESPONSE_SIZE/);
  };
  const STUDENTS = '/ims/oneroster/v1p1/students';

  it('a 1 MB gzip bomb (1 GiB unpacked): exit 1 (no crash), one line, one request, bounded memory', async () => {
    expect(bomb.length).toBeLessThan(1.1 * MiB);
    server.handle((_, res) =>
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(bomb),
    );
    const result = await measured(['roster', 'students', '--all', '--ndjson']);
    figures('gzip bomb', {
      sentBytes: bomb.length,
      requests: server.requests.length,
      peakRssMiB: result.rssMiB,
    });
    expect(result.code).toBe(1);
    capError(result.stderr, STUDENTS);
    expect(result.stdout).toBe('');
    expect(server.requests).toHaveLength(1);
    expect(result.rssMiB).toBeLessThan(400);
  });

  it('a 1.2 GB body without Content-Length: exit 1, one request, the connection closed near the cap', async () => {
    let written = 0;
    const chunk = Buffer.alloc(MiB, 'x');
    server.handle((_, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const pump = () => {
        while (written < 1200 * MiB) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.on('close', () => res.removeAllListeners('drain'));
      pump();
    });
    const result = await measured(['attendance', 'check']);
    figures('1.2 GB body', {
      writtenMiB: Math.round(written / MiB),
      requests: server.requests.length,
      peakRssMiB: result.rssMiB,
    });
    expect(result.code).toBe(1);
    capError(result.stderr, '/attendance/status');
    expect(server.requests).toHaveLength(1);
    expect(written).toBeLessThan(200 * MiB); // socket buffers aside, the server could not send much more
    expect(result.rssMiB).toBeLessThan(400);
  });

  it('a Content-Length of 1.2 GB is refused before reading it', async () => {
    server.handle((_, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(1200 * MiB) });
      res.write('{"users":[');
    });
    const result = await roster(['roster', 'students']);
    expect(result.code).toBe(1);
    capError(result.stderr, STUDENTS);
    expect(server.requests).toHaveLength(1);
  });

  it('an endless chunked stream: exit 1 long before the timeout, one request', async () => {
    let written = 0;
    server.handle((_, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
      const line = Buffer.from(`${'{"sourcedId":"stu","givenName":"Endless"},'.repeat(1000)}`);
      res.write('{"users":[');
      const pump = () => {
        while (!res.destroyed) {
          written += line.length;
          if (!res.write(line)) return void res.once('drain', pump);
        }
      };
      pump();
    });
    const result = await measured(['--timeout', '600', 'roster', 'students', '--all', '--ndjson']);
    figures('endless stream', {
      writtenMiB: Math.round(written / MiB),
      requests: server.requests.length,
      peakRssMiB: result.rssMiB,
    });
    expect(result.code).toBe(1);
    capError(result.stderr, STUDENTS);
    expect(server.requests).toHaveLength(1);
    expect(result.rssMiB).toBeLessThan(400);
  });

  it('an invitation answered with a bomb is in doubt (the server did answer), never sent again', async () => {
    server.handle((_, res) =>
      res.writeHead(201, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(bomb),
    );
    const result = await roster([
      'invite',
      'send',
      '--email',
      'bomb@example.org',
      '--school-id',
      's1',
      '--sent-by-user-id',
      'u1',
    ]);
    expect(result.code).toBe(5);
    // The error, after one line saying the server's list (a bomb too) could not settle the doubt.
    expect(lines(result.stderr)).toHaveLength(2);
    expect(lines(result.stderr)[0]).toMatch(
      /^Warning: roster cannot settle invitations in doubt by the server's list/,
    );
    expect(result.stderr).toMatch(/the outcome is unknown.*larger than 64 MiB/);
    expect(server.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
  });

  it.each([
    ['gzip', gzipSync],
    ['deflate', deflateSync],
    ['deflate', deflateRawSync], // raw deflate, as some servers send it
    ['br', brotliCompressSync],
  ] as const)('a %s answer within the cap is read as before', async (encoding, compress) => {
    const body = JSON.stringify({ success: true, clientLabel: 'Compressed district' });
    server.handle((req, res) => {
      expect(req.headers['accept-encoding']).toBe('gzip, deflate, br');
      res
        .writeHead(200, { 'content-type': 'application/json', 'content-encoding': encoding })
        .end(compress(body));
    });
    const result = await roster(['attendance', 'check', '--json']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ success: true, clientLabel: 'Compressed district' });
  });

  it('--max-response-size and ROSTER_MAX_RESPONSE_SIZE set the cap (a flag wins)', async () => {
    const page = JSON.stringify({
      users: Array.from({ length: 1000 }, (_, i) => ({ sourcedId: `s-${i}`, givenName: 'x'.repeat(100) })),
    });
    server.handle((_, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(page));
    const small = await roster(['roster', 'students', '--ndjson'], {
      env: { ROSTER_MAX_RESPONSE_SIZE: '64K' },
    });
    expect(small.code).toBe(1);
    capError(small.stderr, STUDENTS, '64 KiB');
    const flag = await roster(['--max-response-size', '1M', 'roster', 'students', '--ndjson'], {
      env: { ROSTER_MAX_RESPONSE_SIZE: '64K' },
    });
    expect(flag.stderr).toBe('');
    expect(flag.code).toBe(0);
    expect(lines(flag.stdout)).toHaveLength(1000);
  });

  it.each(['0', '1', '100', 'big', '1T', '300M', '-5M'])(
    '--max-response-size %s is a usage error, nothing sent',
    async (value) => {
      const result = await roster(['--max-response-size', value, 'attendance', 'check']);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/^Error: Invalid response size ".*": give bytes from 1K to 256M/);
      expect(server.requests).toHaveLength(0);
    },
  );
});

describe('"sent" means the API said so', () => {
  /** Another loopback origin that answers every request 200 with the JSON the API would send. */
  let elsewhere: Hostile;
  beforeAll(async () => {
    elsewhere = await startHostile((_, res) =>
      json(res, 200, { success: true, message: 'Invitation sent', clientLabel: 'Not the district' }),
    );
  });
  afterAll(() => elsewhere.close());
  beforeEach(() => {
    elsewhere.requests.length = 0;
  });

  const send = ['invite', 'send', '--school-id', 's1', '--sent-by-user-id', 'u1'];
  const posts = () => server.requests.filter((r) => r.method === 'POST');
  const redirectTo = (status: number) =>
    server.handle((req, res) =>
      res.writeHead(status, { location: `${elsewhere.origin}/login?next=${req.path}` }).end(),
    );
  const signInPage = () =>
    server.handle((_, res) =>
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<!doctype html><html><head><title>Sign in</title></head><body><form>…</form></body></html>'),
    );

  it.each([301, 302, 307, 308])(
    'an invitation answered %i is not followed: not sent, exit 1, nothing elsewhere',
    async (status) => {
      redirectTo(status);
      const result = await roster([...send, '--email', `r${status}@example.org`]);
      expect(result.stdout).toBe('');
      expect(result.code).toBe(1);
      expect(lines(result.stderr)).toHaveLength(1);
      expect(result.stderr).toContain(
        `Error: Invitation to r${status}@example.org was not sent: the server redirected it (HTTP ${status}) to ${elsewhere.origin}/login, and roster does not follow a redirect of an invitation.`,
      );
      expect(result.stderr).toMatch(/wrong base URL or a sign-in gateway/);
      expect(posts()).toHaveLength(1);
      expect(elsewhere.requests).toHaveLength(0);
    },
  );

  it('an invitation answered 303 See Other is in doubt (servers send it after processing), not followed', async () => {
    redirectTo(303);
    const result = await roster([...send, '--email', 'r303@example.org']);
    expect(result.stdout).toBe('');
    expect(result.code).toBe(5);
    expect(result.stderr).toMatch(
      /^Error: Invitation to r303@example\.org: the outcome is unknown\. The server answered 303 See Other/,
    );
    expect(result.stderr).toContain('roster invite list --email r303@example.org --school-id s1');
    expect(posts()).toHaveLength(1);
    expect(elsewhere.requests).toHaveLength(0);
  });

  it.each([
    [
      'a sign-in page',
      'text/html',
      '<html><head><title>Sign in</title></head></html>',
      /an HTML page "Sign in"/,
    ],
    [
      'JSON without success or message',
      'application/json',
      '{"status":"queued"}',
      /an application\/json body without a message/,
    ],
    ['an empty body', 'application/json', '', /an empty body/],
  ])(
    'an invitation answered 200 with %s is in doubt, exit 5, not "✓ sent"',
    async (_, type, body, described) => {
      server.handle((_req, res) => res.writeHead(200, { 'content-type': type }).end(body));
      const result = await roster([...send, '--email', 'page@example.org']);
      expect(result.stdout).toBe('');
      expect(result.code).toBe(5);
      expect(lines(result.stderr)).toHaveLength(1);
      expect(result.stderr).toMatch(
        /^Error: Invitation to page@example\.org: the outcome is unknown\. The server answered HTTP 200 with /,
      );
      expect(result.stderr).toMatch(described);
      expect(result.stderr).toMatch(/not the API's JSON.*roster invite list --email page@example\.org/);
      expect(posts()).toHaveLength(1);
    },
  );

  it.each([300, 304, 399])(
    'an invitation answered %i with a Location is no redirect: in doubt, exit 5, one POST, nothing elsewhere',
    async (status) => {
      // Only 301, 302, 303, 307 and 308 redirect (RFC 9110 §15.4); taken for one, a 300 was "not sent" and
      // every re-run posted the invitation again.
      redirectTo(status);
      const result = await roster([...send, '--email', `r${status}@example.org`]);
      expect(result.stdout).toBe('');
      expect(result.code).toBe(5);
      expect(result.stderr).toMatch(
        new RegExp(`^Error: Invitation to r${status}@example\\.org: the outcome is unknown.*HTTP ${status}`),
      );
      expect(posts()).toHaveLength(1);
      expect(elsewhere.requests).toHaveLength(0);
    },
  );

  it("the API's own answer still counts as sent", async () => {
    server.handle((_req, res) =>
      json(res, 201, { success: true, message: 'Invitation sent to ok@example.org' }),
    );
    const result = await roster([...send, '--email', 'ok@example.org']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('✓ Invitation sent to ok@example.org\n');
  });

  describe('in a bulk run', () => {
    const ROWS = 6;
    const emails = Array.from({ length: ROWS }, (_, i) => `bulk-${i}@example.org`);
    let file: string;
    beforeEach(() => {
      file = join(tempDir(), 'invites.csv');
      writeFileSync(file, `email,schoolId\n${emails.map((e) => `${e},s1`).join('\n')}\n`);
    });
    const bulk = (extra: string[] = []) =>
      roster([
        'invite',
        'send',
        '--file',
        file,
        '--sent-by-user-id',
        'u1',
        '--concurrency',
        '1',
        '--json',
        ...extra,
      ]);
    const results = (stdout: string) =>
      Object.fromEntries(
        (JSON.parse(stdout) as { rows: { email: string; result: string }[] }).rows.map((r) => [
          r.email,
          r.result,
        ]),
      );
    const api = () =>
      server.handle((req, res) =>
        req.method === 'GET'
          ? // The list a re-run asks before it lists a row in doubt: this API lists none.
            json(res, 200, { data: [], meta: { totalPages: 0 } })
          : json(res, 201, { success: true, message: `Invitation sent to ${JSON.parse(req.body).email}` }),
      );
    const postedEmails = () => posts().map((r) => JSON.parse(r.body).email as string);

    it.each([302, 307])(
      'a %i stops the run at the first row, failed (not sent); a re-run sends every row once',
      async (status) => {
        redirectTo(status);
        const first = await bulk();
        expect(first.code).toBe(1);
        expect(results(first.stdout)).toEqual({
          [emails[0] as string]: 'failed',
          ...Object.fromEntries(emails.slice(1).map((e) => [e, 'not-started'])),
        });
        expect(elsewhere.requests).toHaveLength(0);
        expect(postedEmails()).toEqual([emails[0]]);

        server.requests.length = 0;
        api();
        const second = await bulk();
        expect(second.code).toBe(0);
        expect(Object.values(results(second.stdout))).toEqual(Array(ROWS).fill('sent'));
        expect(postedEmails().sort()).toEqual([...emails].sort());
      },
    );

    it.each([
      ['a 303', () => redirectTo(303)],
      ['a 300 with a Location', () => redirectTo(300)],
      ['a 200 sign-in page', signInPage],
    ])('%s stops the run at the first row, in doubt; a re-run does not send it again', async (_, answer) => {
      answer();
      const first = await bulk();
      expect(first.code).toBe(5);
      expect(results(first.stdout)).toEqual({
        [emails[0] as string]: 'in-doubt',
        ...Object.fromEntries(emails.slice(1).map((e) => [e, 'not-started'])),
      });
      expect(elsewhere.requests).toHaveLength(0);

      server.requests.length = 0;
      api();
      const second = await bulk();
      expect(second.code).toBe(5); // the in-doubt row is still listed
      expect(results(second.stdout)[emails[0] as string]).toBe('in-doubt');
      expect(postedEmails().sort()).toEqual(emails.slice(1).sort());
      // Only on purpose: --resend-in-doubt sends it.
      server.requests.length = 0;
      const third = await bulk(['--resend-in-doubt']);
      expect(third.code).toBe(0);
      expect(postedEmails()).toEqual([emails[0]]);
    });
  });

  describe('attendance check', () => {
    it.each([302, 303, 307])(
      'a %i to another origin is not followed: exit 1, never "works", nothing elsewhere',
      async (status) => {
        redirectTo(status);
        const result = await roster(['attendance', 'check']);
        expect(result.stdout).toBe('');
        expect(result.code).toBe(1);
        expect(lines(result.stderr)).toHaveLength(1);
        expect(result.stderr).toContain(
          `Error: Refused to follow a redirect (HTTP ${status}) of GET ${server.baseUrl}/attendance/status to ${elsewhere.origin}/login.`,
        );
        expect(elsewhere.requests).toHaveLength(0);
        expect(server.requests).toHaveLength(1);
      },
    );

    it('a 200 sign-in page is an unexpected answer: exit 1, never "works"', async () => {
      signInPage();
      const result = await roster(['attendance', 'check']);
      expect(result.stdout).toBe('');
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        /^Error: Attendance check: unexpected answer \(HTTP 200, an HTML page "Sign in"/,
      );
    });

    it('a redirect within the same origin is followed, with the token', async () => {
      server.handle((req, res) =>
        req.path === '/v1/attendance/status'
          ? res.writeHead(302, { location: '/v1/attendance/status/' }).end()
          : json(res, 200, { success: true, clientLabel: 'Same origin' }),
      );
      const result = await roster(['attendance', 'check', '--json']);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout).clientLabel).toBe('Same origin');
      expect(server.requests.map((r) => r.headers.authorization)).toEqual([
        `Bearer ${TOKEN}`,
        `Bearer ${TOKEN}`,
      ]);
    });
  });
});

describe('answers nested deeper than any real one', () => {
  // JSON.parse takes thousands of levels; roster's own walks of an answer (the message of an error, JSON
  // output) recursed without a limit and overflowed the stack: "unexpected failure", exit 1, even after the
  // API had confirmed an invitation, so a re-run sent it again.
  const nested = (depth: number) => `${'{"errors":'.repeat(depth)}{"message":"deep"}${'}'.repeat(depth)}`;
  const arrays = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
  const send = ['invite', 'send', '--school-id', 's1', '--sent-by-user-id', 'u1'];
  const answer = (status: number, body: string) =>
    server.handle((req, res) =>
      req.method === 'POST' || req.path.endsWith('/attendance/status')
        ? res.writeHead(status, { 'content-type': 'application/json' }).end(body)
        : res.writeHead(404).end(),
    );

  it('an invitation confirmed with errors nested 3,000 deep is sent: exit 0, "✓ sent", one POST', async () => {
    answer(200, `{"success":true,"errors":${nested(3000)}}`);
    const result = await roster([...send, '--email', 'deep@example.org']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('✓ Invitation sent to deep@example.org.\n');
    expect(server.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
  });

  it('--json writes an answer nested 20,000 deep as valid JSON, the depth past 64 levels noted', async () => {
    answer(201, `{"success":true,"message":"Invitation sent","extra":${arrays(20_000)}}`);
    const result = await roster([...send, '--email', 'deeper@example.org', '--json']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const written = JSON.parse(result.stdout) as { message: string; extra: unknown };
    expect(written.message).toBe('Invitation sent');
    let value = written.extra;
    let depth = 0;
    for (; Array.isArray(value); depth++) value = value[0];
    expect(value).toBe('[nested deeper than 64 levels: not shown]');
    expect(depth).toBe(63); // the answer itself is the first of the 64 levels, extra's array the second
  });

  it('an error answer nested 3,000 deep is in doubt with its message: exit 5, one line, one POST', async () => {
    answer(500, nested(3000));
    const result = await roster([...send, '--email', 'deep500@example.org']);
    expect(result.code).toBe(5);
    // The error, after one line saying the server's list (a 500 too) could not settle the doubt.
    expect(lines(result.stderr)).toHaveLength(2);
    expect(lines(result.stderr)[0]).toMatch(
      /^Warning: roster cannot settle invitations in doubt by the server's list/,
    );
    expect(lines(result.stderr)[1]).toMatch(
      /^Error: Invitation to deep500@example\.org: the outcome is unknown/,
    );
    expect(server.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
  });

  it.each([
    ['roster students (a table in a pipe)', ['roster', 'students']],
    ['roster students --csv', ['roster', 'students', '--csv']],
    ['roster students --columns sourcedId,grades', ['roster', 'students', '--columns', 'sourcedId,grades']],
    ['invite list (a table in a pipe)', ['invite', 'list']],
    ['invite list --all --json', ['invite', 'list', '--all', '--json']],
  ])('%s of records with a field nested 20,000 deep: exit 0', async (_, args) => {
    const deep = arrays(20_000);
    server.handle((req, res) => {
      const body = req.path.endsWith('/students')
        ? `{"users":[{"sourcedId":"s1","status":"active","grades":${deep},"givenName":"Deep"}]}`
        : `{"data":[{"id":"i1","email":"deep@example.org","schoolId":"s1","extra":${deep}}],"meta":{"totalPages":1}}`;
      res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    });
    const result = await roster(args);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/s1|deep@example\.org/);
  });

  it('attendance check --json of an answer nested 20,000 deep: exit 0, valid JSON', async () => {
    answer(200, `{"success":true,"clientLabel":"Deep","extra":${arrays(20_000)}}`);
    const result = await roster(['attendance', 'check', '--json']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect((JSON.parse(result.stdout) as { clientLabel: string }).clientLabel).toBe('Deep');
  });
});

describe('a credential echoed into a redirect', () => {
  // new URL() rewrites a Location (a \ turned /, a host in lower case): followed, the rewritten form went
  // into the next request, its trace and the error, where the redactor did not know it.
  const secret = 'Tok\\en\\Value-9f8e7d6c';
  it.each([
    ['in its path', `/v1/${secret}`],
    ['as its host', `http://${secret.replaceAll('\\', '')}.example/`],
  ])('%s: not followed, exit 1, the credential in no form in the output', async (_, location) => {
    const token = location.includes('\\') ? secret : secret.replaceAll('\\', '');
    server.handle((req, res) =>
      req.path.endsWith('/attendance/status')
        ? res.writeHead(302, { location }).end()
        : res.writeHead(404).end(),
    );
    const result = await roster(['--debug', 'attendance', 'check'], { env: { ROSTER_TOKEN: token } });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /Error: Refused a redirect to an address that holds a credential \(from http:\/\/127\.0\.0\.1:\d+\/v1\/attendance\/status\)\./,
    );
    expect(server.requests).toHaveLength(1);
    for (const form of [token, token.toLowerCase(), token.replaceAll('\\', '/')]) {
      expect(result.stderr).not.toContain(form);
    }
  });
});

describe('a credential echoed into the redirect of an invitation', () => {
  it('a 303 to an address holding the token is still in doubt (exit 5), one POST, the token shown nowhere', async () => {
    const token = 'Echoed-Token-5c4b3a2d1e';
    server.handle((req, res) =>
      req.method === 'POST'
        ? res.writeHead(303, { location: `/v1/enrollment/invitations/1?access_token=${token}` }).end()
        : res.writeHead(404).end(),
    );
    const send = [
      'invite',
      'send',
      '--school-id',
      's1',
      '--sent-by-user-id',
      'u1',
      '--email',
      'e303@example.org',
    ];
    const result = await roster(send, { env: { ROSTER_TOKEN: token } });
    expect(result.code).toBe(5);
    expect(result.stderr).toMatch(
      /^Error: Invitation to e303@example\.org: the outcome is unknown\. The server answered 303/,
    );
    expect(result.stderr).not.toContain(token);
    expect(server.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
  });
});

describe('server text in messages is cut', () => {
  it.each([
    ['a list key of 2,000,000 characters', ['roster', 'students'], () => `{"${'k'.repeat(2_000_000)}":1}`],
    [
      'success and clientLabel of 3,000,000 characters each',
      ['attendance', 'check'],
      () => JSON.stringify({ success: 'n'.repeat(3_000_000), clientLabel: 'L'.repeat(3_000_000) }),
    ],
  ])('%s: one line of a few hundred characters, exit 1', async (_, args, body) => {
    const text = body();
    server.handle((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(text));
    const result = await roster(args);
    expect(result.code).toBe(1);
    expect(lines(result.stderr)).toHaveLength(1);
    expect(result.stderr.length).toBeLessThan(1_000);
    expect(result.stderr).toContain('…');
  });
});

describe('pages that cycle', () => {
  // Only a page equal to the one before it was caught: a server alternating two pages was read until
  // --max-records (25,000 requests in 20 s of `invite list --all`, every record written again and again).
  const invitationPage = (page: number, withIds: boolean) => ({
    // With ids, each page differs (its status), its invitation does not.
    data: [
      withIds
        ? { id: `inv-${page % 2}`, email: `p${page % 2}@example.org`, status: `sent ${page}` }
        : { email: `p${page % 2}@example.org`, status: 'sent' },
    ],
    meta: { page },
  });
  const cycling = (withIds: boolean) =>
    server.handle((req, res) => json(res, 200, invitationPage(Number(req.query.get('page') ?? 1), withIds)));

  it.each([
    [true, 'page 3 holds only invitations already listed'],
    [false, 'page 3 repeats an earlier page'],
  ])(
    'invite list --all of two alternating pages (ids: %s): exit 1 on the third, the two written',
    async (withIds, why) => {
      cycling(withIds);
      const result = await roster(['invite', 'list', '--all', '--ndjson']);
      expect(result.code).toBe(1);
      expect(lines(result.stdout)).toHaveLength(2);
      expect(result.stderr).toContain(
        `Listing invitations: stopped because the server's paging does not advance: ${why}`,
      );
      expect(server.requests.filter((r) => r.path.endsWith('/enrollment/invitations'))).toHaveLength(3);
    },
  );

  it('roster students --all of records without sourcedIds on two alternating pages: exit 1 on the third', async () => {
    server.handle((req, res) => {
      const offset = Number(req.query.get('offset') ?? 0);
      json(res, 200, { users: [{ givenName: `Kid ${offset % 2}`, role: 'student' }] });
    });
    const result = await roster(['roster', 'students', '--all', '--ndjson', '--page-size', '1']);
    expect(result.code).toBe(1);
    expect(lines(result.stdout)).toHaveLength(2);
    expect(result.stderr).toMatch(/the page at offset 2 repeats one already received/);
    expect(server.requests.filter((r) => r.path.endsWith('/students'))).toHaveLength(3);
  });
});

describe('totals that lie', () => {
  // The sandbox behind a lying proxy: X-Total-Count of users (students are users) claims `claim(real)`,
  // and no Link header says where the pages end, so only the pages themselves can.
  const STUDENTS = 300;
  const fixture = useSandbox({ oneroster: { students: STUDENTS } });
  let claim: (real: number) => number = (real) => real;
  beforeEach(() => {
    server.handle(async (req, res) => {
      const query = req.query.toString();
      const upstream = await fetch(`${fixture.sandbox.origin}${req.path}${query ? `?${query}` : ''}`, {
        method: req.method,
        headers: Object.fromEntries(
          ['authorization', 'content-type', 'accept']
            .filter((h) => req.headers[h] !== undefined)
            .map((h) => [h, String(req.headers[h])]),
        ),
        ...(req.method === 'POST' ? { body: req.body } : {}),
      });
      const headers: Record<string, string> = { 'content-type': upstream.headers.get('content-type') ?? '' };
      const total = upstream.headers.get('x-total-count');
      if (total !== null) {
        headers['x-total-count'] = /\/(users|students)$/.test(req.path)
          ? String(claim(Number(total)))
          : total;
      }
      res.writeHead(upstream.status, headers).end(Buffer.from(await upstream.arrayBuffer()));
    });
  });
  const env = () => ({
    ...demoEnv(fixture.sandbox),
    ROSTER_BASE_URL: server.baseUrl,
    ROSTER_TOKEN: undefined,
  });
  const studentPages = () => fixture.sandbox.requests.filter((r) => r.path.endsWith('/students'));
  const ids = (stdout: string) =>
    lines(stdout).map((l) => (JSON.parse(l) as { sourcedId: string }).sourcedId);
  const read = ['roster', 'students', '--all', '--ndjson', '--page-size', '50', '--concurrency', '4'];

  it('under-reported (150 of 300): every record once, a warning, exit 0', async () => {
    claim = (real) => real / 2;
    const result = await roster(read, { env: env() });
    figures('X-Total-Count 150 for 300', {
      records: ids(result.stdout).length,
      pages: studentPages().length,
    });
    expect(result.code).toBe(0);
    expect(new Set(ids(result.stdout)).size).toBe(STUDENTS);
    expect(ids(result.stdout)).toHaveLength(STUDENTS);
    expect(result.stderr).toBe(
      "Warning: the server reported 150 students (X-Total-Count) but served 300; all were read, to the server's last page.\n",
    );
    // Six full pages and an empty one: the server's own end.
    expect(studentPages()).toHaveLength(7);
  });

  it('over-reported (600 for 300): the 300 records, then an error, exit 1', async () => {
    claim = (real) => real * 2;
    const result = await roster(read, { env: env() });
    figures('X-Total-Count 600 for 300', {
      records: ids(result.stdout).length,
      pages: studentPages().length,
    });
    expect(result.code).toBe(1);
    expect(ids(result.stdout)).toHaveLength(STUDENTS);
    expect(lines(result.stderr)).toEqual([
      'Error: Reading students: the server reported 600 (X-Total-Count) but its pages ended at 300; the records written are incomplete. Run it again; if it keeps happening, report it to the vendor.',
    ]);
  });

  it('export, under-reported: users.csv complete, a warning, exit 0', async () => {
    claim = (real) => Math.floor(real / 2);
    const dir = join(tempDir(), 'out');
    const result = await roster(['roster', 'export', '--out', dir, '--page-size', '50'], { env: env() });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(
      /Warning: the server reported \d+ users \(X-Total-Count\) but served \d+; all were read/,
    );
    const users = readFileSync(join(dir, 'users.csv'), 'utf8').trim().split('\n').slice(1);
    const served = fixture.sandbox.requests.filter((r) => r.path.endsWith('/users') && r.status === 200);
    expect(users.length).toBeGreaterThan(STUDENTS);
    expect(served.length).toBeGreaterThan(1);
  });

  it('export, over-reported: exit 1, users.csv not published', async () => {
    claim = (real) => real * 2;
    const dir = join(tempDir(), 'out');
    const result = await roster(['roster', 'export', '--out', dir, '--page-size', '50'], { env: env() });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /Error: Reading users: the server reported \d+ \(X-Total-Count\) but its pages ended at \d+; the records written are incomplete\./,
    );
    expect(existsSync(join(dir, 'users.csv'))).toBe(false);
  });
});
