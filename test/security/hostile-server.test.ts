// A hostile HTTP server on 127.0.0.1 against the built CLI in a real process: pathological error pages,
// bombs and endless bodies, redirects and look-alike answers to an invitation, and totals that lie. Each test
// asserts what the user sees (stdout, stderr, exit code) and what reached the server.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type CliOptions, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { type Hostile, startHostile } from '../helpers/hostile.js';

const TOKEN = 'a-ready-token-for-the-hostile-server';
let server: Hostile;
let home: string;

beforeAll(async () => {
  server = await startHostile();
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
