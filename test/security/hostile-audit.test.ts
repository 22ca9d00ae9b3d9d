// `roster roster audit` against a hostile district served over HTTP (a scripted server on 127.0.0.1): sizes
// and shapes no real SIS has but any server can send. Each check must stay linear (or near it) in what was
// read and keep every report line bounded, so one planted pathology cannot stall the audit, blow the call
// stack or fill memory. The outcome is asserted, never the time: the sizes are chosen so a quadratic check
// would not finish within the test's timeout.
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { type ScriptedServer, startScriptedServer } from '../helpers/scripted-server.js';

type Records = Record<string, unknown[]>;

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Serves each collection whole on its first page (then an empty page), as a 1.1 server would. */
async function serve(collections: Records): Promise<ScriptedServer> {
  const bodies = new Map(
    Object.entries(collections).map(([name, records]) => [name, JSON.stringify({ [name]: records })]),
  );
  server = await startScriptedServer((request) => {
    if (request.path.endsWith('/token'))
      return { body: { access_token: 'audit-token', token_type: 'bearer', expires_in: 3600 } };
    const name = request.path.split('/').at(-1) ?? '';
    const offset = Number(request.query.get('offset') ?? 0);
    const body =
      offset === 0 ? (bodies.get(name) ?? JSON.stringify({ [name]: [] })) : JSON.stringify({ [name]: [] });
    return { headers: { 'content-type': 'application/json' }, body };
  });
  return server;
}

function audit(sb: ScriptedServer, args: string[]) {
  return runCli(
    ['roster', 'audit', '--json', '--date', '2026-01-15', '--fail-on', 'never', ...args],
    tempDir(),
    {
      env: { ROSTER_BASE_URL: sb.baseUrl, ROSTER_CLIENT_ID: 'audit', ROSTER_CLIENT_SECRET: 'audit-secret' },
      timeoutMs: 60_000,
    },
  );
}

interface AuditJson {
  findings: { check: string; count: number; records: { sourcedId: string; detail: string }[] }[];
}
const finding = (json: AuditJson, check: string) => json.findings.find((f) => f.check === check);

describe('roster roster audit on a hostile district', () => {
  it('org-cycle: a parent chain 100,000 deep is no cycle, and a cycle of 50,000 orgs is reported once each, bounded', async () => {
    const orgs: unknown[] = [{ sourcedId: 'root', status: 'active', name: 'District', type: 'district' }];
    for (let i = 0; i < 100_000; i++)
      orgs.push({
        sourcedId: `chain${i}`,
        status: 'active',
        name: `Org ${i}`,
        type: 'department',
        parent: { sourcedId: i === 0 ? 'root' : `chain${i - 1}` },
      });
    const cycle = 50_000;
    for (let i = 0; i < cycle; i++)
      orgs.push({
        sourcedId: `loop${i}`,
        status: 'active',
        name: `Loop ${i}`,
        type: 'department',
        parent: { sourcedId: `loop${(i + 1) % cycle}` },
      });
    // An org hanging below the cycle leads into it but is not its own ancestor.
    orgs.push({ sourcedId: 'below', status: 'active', type: 'school', parent: { sourcedId: 'loop7' } });
    const sb = await serve({ orgs });
    const result = await audit(sb, ['--check', 'org-cycle,missing-reference']);
    expect(result.stderr).not.toMatch(/unexpected|RangeError|heap/i);
    expect(result.code).toBe(0);
    const json = JSON.parse(result.stdout);
    expect(finding(json, 'missing-reference')?.count).toBe(0);
    const found = finding(json, 'org-cycle');
    expect(found?.count).toBe(cycle);
    expect(new Set(found?.records.map((r) => r.sourcedId))).toEqual(
      new Set(Array.from({ length: cycle }, (_, i) => `loop${i}`)),
    );
    const one = found?.records.find((r) => r.sourcedId === 'loop3');
    expect(one?.detail).toMatch(
      /^its parent chain comes back to it: loop4 → loop5 → .* \(50000 orgs in the cycle\)$/,
    );
    for (const record of found?.records ?? []) expect(record.detail.length).toBeLessThan(400);
  }, 90_000);
});
