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

const school = { sourcedId: 'sch', status: 'active', name: 'School', type: 'school' };

describe('roster roster audit on a hostile district', () => {
  it('shared-email: one e-mail on 20,000 guardians of 10,000 families, each reported once with a bounded detail', async () => {
    const users: unknown[] = [];
    const families = 10_000;
    for (let i = 0; i < families; i++) {
      const a = `g${i}a`;
      const b = `g${i}b`;
      const parent = (id: string) => ({
        sourcedId: id,
        status: 'active',
        role: 'parent',
        email: 'Same@Example.org',
        orgs: [{ sourcedId: 'sch' }],
        agents: [],
      });
      users.push(parent(a), parent(b), {
        sourcedId: `s${i}`,
        status: 'active',
        role: 'student',
        orgs: [{ sourcedId: 'sch' }],
        agents: [{ sourcedId: a }, { sourcedId: b }],
      });
    }
    // And one family whose guardians link each other in a chain 5,000 long (one family, deep links).
    for (let i = 0; i < 5_000; i++)
      users.push({
        sourcedId: `c${i}`,
        status: 'active',
        role: 'relative',
        email: 'chain@example.org',
        orgs: [{ sourcedId: 'sch' }],
        agents: i > 0 ? [{ sourcedId: `c${i - 1}` }] : [],
      });
    const sb = await serve({ orgs: [school], users });
    const result = await audit(sb, ['--check', 'shared-email']);
    expect(result.stderr).not.toMatch(/unexpected|RangeError|heap/i);
    expect(result.code).toBe(0);
    const found = finding(JSON.parse(result.stdout), 'shared-email');
    // Every guardian shares the address with the 19,998 of the other families; the chain is one family.
    expect(found?.count).toBe(2 * families);
    const ids = new Set(found?.records.map((r) => r.sourcedId));
    expect(ids.size).toBe(2 * families);
    expect([...ids].some((id) => id.startsWith('c'))).toBe(false);
    const first = found?.records.find((r) => r.sourcedId === 'g0a');
    expect(first?.detail).toMatch(/^same@example\.org is also on 19998 users of 9999 other families: /);
    expect(first?.detail).not.toMatch(/\bg0b\b/); // its own family is not "another family"
    for (const record of found?.records ?? []) expect(record.detail.length).toBeLessThan(400);
  }, 90_000);

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

  it('one-sided-link: a guardian naming 100,000 students who name it back, and a few links on one side only', async () => {
    const children = 100_000;
    const student = (id: string, agents: string[]) => ({
      sourcedId: id,
      status: 'active',
      role: 'student',
      orgs: [{ sourcedId: 'sch' }],
      agents: agents.map((sourcedId) => ({ sourcedId })),
    });
    const users: unknown[] = [];
    for (let i = 0; i < children; i++) users.push(student(`s${i}`, ['big']));
    // Named by the guardian only, and naming the guardian only: 50 each.
    for (let i = 0; i < 50; i++)
      users.push(student(`only-named${i}`, []), student(`only-naming${i}`, ['big']));
    const agents = [
      ...Array.from({ length: children }, (_, i) => `s${i}`),
      ...Array.from({ length: 50 }, (_, i) => `only-named${i}`),
    ];
    users.push({
      sourcedId: 'big',
      status: 'active',
      role: 'guardian',
      email: 'big@example.org',
      orgs: [{ sourcedId: 'sch' }],
      agents: agents.map((sourcedId) => ({ sourcedId })),
    });
    const sb = await serve({ orgs: [school], users });
    const result = await audit(sb, ['--check', 'one-sided-link']);
    expect(result.stderr).not.toMatch(/unexpected|RangeError|heap/i);
    expect(result.code).toBe(0);
    const found = finding(JSON.parse(result.stdout), 'one-sided-link');
    expect(found?.count).toBe(100);
    const ids = found?.records.map((r) => r.sourcedId).sort();
    expect(ids).toEqual(
      [...Array(50).fill('big'), ...Array.from({ length: 50 }, (_, i) => `only-naming${i}`)].sort(),
    );
  }, 90_000);

  it('duplicate-sourcedid: a sourcedId holding line breaks is reported whole', async () => {
    const id = 'org\nwith\nbreaks';
    const org = { sourcedId: id, status: 'active', name: 'Twice', type: 'school' };
    const sb = await serve({ orgs: [school, org, org] });
    const result = await audit(sb, ['--check', 'duplicate-sourcedid']);
    expect(result.code).toBe(0);
    const found = finding(JSON.parse(result.stdout), 'duplicate-sourcedid');
    expect(found?.records.map((r) => r.sourcedId)).toEqual([id]);
  });
});
