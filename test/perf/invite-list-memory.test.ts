// `roster invite list --all` at flat memory: --ndjson and --json leave a page at a time, so 200,000
// invitations (about 130 MB of JSON) cost what one page costs. Proved by a heap too small to hold them:
// the child runs with --max-old-space-size=128, so a run that kept the records would die out of memory.
// Peak RSS alone proves less: Node 24's V8 lets garbage pile up further on a machine with much memory (here
// 129 MiB for 20,000 invitations, 233 MiB for 200,000, 302 MiB for 600,000; Node 20: 134-144 MiB), though
// none of it is live. The RSS is printed, and bounded loosely. The table (tab-separated in a pipe) streams too.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { type ScriptedServer, startScriptedServer } from '../helpers/scripted-server.js';

const PER_PAGE = 2_000;
const PAGES = 100; // 200,000 invitations
const NOTE = 'x'.repeat(500);
/** The child's old-space limit: holding 200,000 of these records takes several times this. */
const HEAP_MIB = 128;

let server: ScriptedServer;
let rssHook: string;
beforeAll(async () => {
  rssHook = join(tempDir(), 'peak-rss.cjs');
  writeFileSync(
    rssHook,
    "process.on('exit', () => require('node:fs').writeFileSync(process.env.PEAK_RSS_FILE, String(process.resourceUsage().maxRSS)));\n",
  );
  server = await startScriptedServer((request) => {
    if (request.path.endsWith('/token'))
      return { body: { access_token: 'tok-1', token_type: 'bearer', expires_in: 3600 } };
    const page = Number(request.query.get('page') ?? 1);
    const records: string[] = [];
    for (let n = (page - 1) * PER_PAGE; n < page * PER_PAGE; n++) {
      records.push(
        `{"id":"inv-${n}","email":"family-${n}@example.org","schoolId":"org-sch-1","studentCount":1,"status":"sent","note":"${NOTE}"}`,
      );
    }
    const meta = { page, perPage: PER_PAGE, total: PAGES * PER_PAGE, totalPages: PAGES };
    return {
      headers: { 'Content-Type': 'application/json' },
      body: `{"data":[${records.join(',')}],"meta":${JSON.stringify(meta)}}`,
    };
  });
});
afterAll(() => server.close());

/** The CLI under the RSS hook: its result and peak RSS in MiB. */
async function measured(args: string[]) {
  const file = join(tempDir(), 'rss.txt');
  const result = await runCli(args, tempDir(), {
    env: {
      ROSTER_BASE_URL: server.baseUrl,
      ROSTER_CLIENT_ID: 'c',
      ROSTER_CLIENT_SECRET: 'secret-1',
      NODE_OPTIONS: `--require=${rssHook} --max-old-space-size=${HEAP_MIB}`,
      PEAK_RSS_FILE: file,
    },
    timeoutMs: 120_000,
  });
  const rssMiB = existsSync(file) ? Math.round(Number(readFileSync(file, 'utf8')) / 1024) : Number.NaN;
  return { ...result, rssMiB };
}

describe('invite list --all of 200,000 invitations', () => {
  it.each([['--ndjson'], ['--json']])(
    '%s: every record, at flat memory',
    { timeout: 120_000 },
    async (flag) => {
      const before = server.requests.length;
      const result = await measured(['invite', 'list', '--all', flag]);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(server.requests.length - before).toBe(PAGES + 1); // the token, then every page once
      const records =
        flag === '--json'
          ? (JSON.parse(result.stdout) as { data: { id: string }[]; meta: unknown }).data
          : result.stdout
              .trimEnd()
              .split('\n')
              .map((line) => JSON.parse(line) as { id: string });
      expect(records).toHaveLength(PAGES * PER_PAGE);
      expect(records.at(-1)?.id).toBe(`inv-${PAGES * PER_PAGE - 1}`);
      if (flag === '--json') {
        expect(JSON.parse(result.stdout).meta).toEqual({
          page: PAGES,
          perPage: PER_PAGE,
          total: PAGES * PER_PAGE,
          totalPages: PAGES,
        });
      }
      console.log(`invite list --all ${flag}: 200,000 invitations, peak RSS ${result.rssMiB} MiB`);
      // Measured on Node 20: ~118–135 MiB (600,000 take no more); Node 24 ~134 MiB with the reads' heap policy
      // (keepHeapSmall; 168–263 MiB under load without it). Before
      // streaming, holding them: 298 MiB (--ndjson), 754 MiB (--json) of RSS.
      expect(result.rssMiB).toBeLessThan(256);
    },
  );

  it('without --json or --ndjson (tab-separated in a pipe): every record, page by page, at flat memory', {
    timeout: 120_000,
  }, async () => {
    const result = await measured(['invite', 'list', '--all']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('id\temail\tschoolId\tstudentCount\tstatus\tnote');
    expect(lines).toHaveLength(PAGES * PER_PAGE + 1); // one header, then every record once
    expect(lines.at(-1)).toBe(
      `inv-${PAGES * PER_PAGE - 1}\tfamily-${PAGES * PER_PAGE - 1}@example.org\torg-sch-1\t1\tsent\t${NOTE}`,
    );
    console.log(`invite list --all (tab-separated): 200,000 invitations, peak RSS ${result.rssMiB} MiB`);
    // Before, the rows were held for the table's columns: 200,000 of these do not fit the 128 MiB heap.
    expect(result.rssMiB).toBeLessThan(256);
  });
});
