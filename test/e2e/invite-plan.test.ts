// `roster invite plan` end to end: the built CLI against the sandbox over HTTP, its plan checked against an
// independent computation from the sandbox's own users (test/helpers/families.ts), then sent by
// `invite send --file` and counted at the sandbox.
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { runCli, startCli, until } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { actualPlan, expectedPlan, fetchUsers, type Version } from '../helpers/families.js';
import { startPty } from '../helpers/pty.js';
import { demoClient, demoEnv } from '../helpers/sandbox.js';

type Agents = 'both' | 'students' | 'guardians';
const ALL = ['org-sch-1', 'org-sch-2', 'org-sch-3', 'org-sch-4', 'org-sch-5'];
const today = () => new Date().toISOString().slice(0, 10);

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

async function start(
  options: { agents?: Agents; refuseFields?: boolean; familyTraps?: boolean; students?: number } = {},
): Promise<Sandbox> {
  sandbox = await startSandbox({ oneroster: options });
  return sandbox;
}

const users = (sb: Sandbox, version: Version) =>
  fetchUsers(sb.baseUrl, 'demo-allowed', demoClient(sb).clientSecret, version);

function plan(sb: Sandbox, home: string, args: string[], version: Version = '1.1') {
  return runCli(['invite', 'plan', '--oneroster', version, ...args], home, {
    env: demoEnv(sb),
    timeoutMs: 60_000,
  });
}

/** GET /__sandbox/… over HTTP, as any client of the sandbox would. */
async function admin<T>(sb: Sandbox, path: string, method = 'GET'): Promise<T> {
  return (await (await fetch(`${sb.origin}/__sandbox/${path}`, { method })).json()) as T;
}

interface Delivered {
  to: string;
  invitationId: string;
}
interface InvitationRecord {
  id: string;
  email: string;
  schoolId: string;
  studentCount: number;
}

/** E-mails per address and the studentCount each carried, as the sandbox counted them. */
async function countedAtSandbox(sb: Sandbox) {
  const outbox = await admin<Delivered[]>(sb, 'outbox');
  const invitations = await admin<InvitationRecord[]>(sb, 'invitations');
  const byId = new Map(invitations.map((i) => [i.id, i]));
  const perKey = new Map<string, number[]>();
  for (const mail of outbox) {
    const record = byId.get(mail.invitationId);
    const key = `${mail.to.trim().toLowerCase()}|${record?.schoolId}`;
    perKey.set(key, [...(perKey.get(key) ?? []), record?.studentCount ?? -1]);
  }
  return perKey;
}

describe.each(['1.1', '1.2'] as const)('invite plan over OneRoster %s', (version) => {
  it.each(['both', 'students', 'guardians'] as const)(
    'links on %s: the plan equals the one computed from the sandbox data, with every trap (--family-traps)',
    async (agents) => {
      const sb = await start({ agents, familyTraps: true });
      const home = tempDir();
      const result = await plan(sb, home, ['--all-schools', '--json'], version);
      expect(result.stderr).not.toContain('Error');
      expect(result.code).toBe(0);
      const expected = expectedPlan(await users(sb, version), version, { schools: ALL, today: today() });
      const actual = actualPlan(JSON.parse(result.stdout));
      expect(actual).toEqual(expected);
      // The traps are there to be handled, not absent: a shared address (two guardians, one invitation),
      // siblings, a family at two schools, and each reason a student is left out.
      expect(expected.invitations.some((i) => i.guardians.length >= 2)).toBe(true);
      expect(expected.invitations.some((i) => i.studentCount >= 2)).toBe(true);
      const schoolsPerEmail = new Map<string, number>();
      for (const i of expected.invitations)
        schoolsPerEmail.set(i.email, (schoolsPerEmail.get(i.email) ?? 0) + 1);
      expect([...schoolsPerEmail.values()].some((n) => n >= 2)).toBe(true);
      const reasons = new Set(expected.uncovered.flatMap((u) => u.reason.split('; ')));
      expect([...reasons].sort()).toEqual(
        expect.arrayContaining([
          'no guardian linked',
          'linked relative (not in --roles)',
          'guardian without e-mail',
          'guardian to be deleted',
          'guardian e-mail invite send would refuse',
          ...(agents === 'guardians' ? [] : ['linked guardian not returned by the API']),
        ]),
      );
      expect(expected.refused.length).toBeGreaterThan(0);
    },
    60_000,
  );

  it('one school, kindergarten by its alias, every child at the school counted with --count school', async () => {
    const sb = await start();
    const home = tempDir();
    const data = await users(sb, version);
    for (const count of ['in-scope', 'school'] as const) {
      const result = await plan(
        sb,
        home,
        ['--school', 'Alder Elementary School', '--grade', 'Kindergarten', '--count', count, '--json'],
        version,
      );
      expect(result.code).toBe(0);
      const expected = expectedPlan(data, version, {
        schools: ['org-sch-1'],
        grades: ['KG'],
        today: today(),
        count,
      });
      expect(actualPlan(JSON.parse(result.stdout))).toEqual(expected);
      expect(expected.invitations.length).toBeGreaterThan(0);
    }
  }, 60_000);
});

describe('the plan sent by invite send --file', () => {
  it('each guardian e-mailed exactly once with the right studentCount; a re-plan lists nobody; after churn, exactly the new families', async () => {
    // With the traps: addresses invite send would refuse stay refused on the re-plan.
    // 400 students (not the default 1,200): every trap is still planted, and each invitation is still checked.
    const sb = await start({ familyTraps: true, students: 400 });
    const home = tempDir();
    const out = join(tempDir(), 'plan.csv');
    const made = await plan(sb, home, ['--all-schools', '--out', out, '--json']);
    expect(made.code).toBe(0);
    expect(statSync(out).mode & 0o777).toBe(0o600);
    const planned = JSON.parse(made.stdout);
    // A UTF-8 BOM first, for Excel; the header after it.
    expect(readFileSync(out, 'utf8').split('\r\n')[0]).toBe(
      '\ufeffemail,schoolId,studentCount,guardianNames,studentIds',
    );

    const sent = await runCli(
      ['invite', 'send', '--file', out, '--sent-by-user-id', 'usr-1', '--yes'],
      home,
      {
        env: demoEnv(sb),
        timeoutMs: 120_000,
      },
    );
    expect(sent.stderr).toMatch(/Sent (\d+) of \1 invitations/);
    expect(sent.code).toBe(0);
    const counted = await countedAtSandbox(sb);
    const expected = expectedPlan(await users(sb, '1.1'), '1.1', { schools: ALL, today: today() });
    expect(counted.size).toBe(expected.invitations.length);
    for (const i of expected.invitations)
      expect(counted.get(`${i.email}|${i.schoolId}`), i.email).toEqual([i.studentCount]);
    expect(planned.invitations.length).toBe(expected.invitations.length);

    const again = await plan(sb, home, ['--all-schools', '--json']);
    expect(again.code).toBe(0);
    const replanned = JSON.parse(again.stdout);
    expect(replanned.invitations).toEqual([]);
    expect(replanned.summary.alreadyInvited).toBe(expected.invitations.length);
    expect(again.stderr).toContain('0 invitations');
    const reasons = new Set(replanned.skipped.map((k: { reason: string }) => k.reason.replace(/:.*/, '')));
    expect([...reasons].sort()).toEqual(["already invited (roster's record)", 'e-mail refused']);
    expect(again.stderr).toContain(
      "Already invited: checked against roster's record of sent invitations and the server's invitation list.",
    );
    // --include-invited lists them again, marked, for a deliberate re-send.
    const deliberate = JSON.parse(
      (await plan(sb, home, ['--all-schools', '--json', '--include-invited'])).stdout,
    );
    expect(deliberate.invitations).toHaveLength(expected.invitations.length);
    expect(
      deliberate.invitations.every((i: { invitedBefore?: string }) => i.invitedBefore === 'roster'),
    ).toBe(true);
    // Another user (no record of roster's): the server's own list still says who was invited.
    const elsewhere = await plan(sb, tempDir(), ['--all-schools', '--json']);
    const seenByServer = JSON.parse(elsewhere.stdout);
    expect(seenByServer.invitations).toEqual([]);
    expect(
      seenByServer.skipped.filter((k: { reason: string }) => k.reason.startsWith('already invited')),
    ).toHaveLength(expected.invitations.length);
    expect(seenByServer.skipped.every((k: { reason: string }) => !k.reason.includes("roster's record"))).toBe(
      true,
    );

    const { changes: churn } = await admin<{
      changes: { collection: string; change: string; sourcedId: string }[];
    }>(sb, 'churn?n=30', 'POST');
    // The guardians of the new students: new ones, or one the district knew (a sibling joining).
    const newGuardians = new Set(
      churn.filter((c) => c.change === 'new-guardian' || c.change === 'new-child').map((c) => c.sourcedId),
    );
    expect(newGuardians.size).toBeGreaterThan(0);
    const after = await plan(sb, home, ['--all-schools', '--json']);
    expect(after.code).toBe(0);
    const fresh = actualPlan(JSON.parse(after.stdout));
    const sentKeys = new Set(expected.invitations.map((i) => `${i.email}|${i.schoolId}`));
    const wanted = expectedPlan(await users(sb, '1.1'), '1.1', {
      schools: ALL,
      today: today(),
    }).invitations.filter((i) => !sentKeys.has(`${i.email}|${i.schoolId}`));
    expect(fresh.invitations).toEqual(wanted);
    expect(fresh.invitations.length).toBeGreaterThan(0);
    for (const i of fresh.invitations) for (const g of i.guardians) expect(newGuardians).toContain(g);
  }, 180_000);

  it('kill -9 in the middle of the send, then the same command: still each invitation exactly once', async () => {
    const sb = await start({ students: 400 }); // the test checks the kill landed mid-send (fewer sent than planned)
    const home = tempDir();
    const out = join(tempDir(), 'plan.csv');
    expect((await plan(sb, home, ['--all-schools', '--out', out])).code).toBe(0);
    sb.setOptions({ latencyMs: 20 });
    const args = [
      'invite',
      'send',
      '--file',
      out,
      '--sent-by-user-id',
      'usr-1',
      '--yes',
      '--concurrency',
      '8',
    ];
    const first = startCli(args, home, { env: demoEnv(sb), timeoutMs: 120_000 });
    await until(() => sb.outbox.length >= 100, 60_000);
    first.child.kill('SIGKILL');
    expect((await first.done).code).toBe(null);
    const total = readFileSync(out, 'utf8').trim().split('\r\n').length - 1;
    expect(sb.outbox.length).toBeLessThan(total);
    sb.setOptions({ latencyMs: 0 });
    const resumed = await runCli([...args, '--json'], home, { env: demoEnv(sb), timeoutMs: 120_000 });
    const report = JSON.parse(resumed.stdout);
    const inDoubt = report.rows.filter((r: { result: string }) => r.result === 'in-doubt');
    expect(resumed.code).toBe(inDoubt.length > 0 ? 5 : 0);
    const counted = await countedAtSandbox(sb);
    // Nothing twice; every row not in doubt exactly once; an in-doubt row (in flight at the kill) at most once.
    expect(report.rows).toHaveLength(total);
    expect(Math.max(...[...counted.values()].map((c) => c.length))).toBe(1);
    for (const row of report.rows as { email: string; schoolId: string; result: string }[]) {
      const times = counted.get(`${row.email.toLowerCase()}|${row.schoolId}`)?.length ?? 0;
      if (row.result === 'in-doubt') expect(times).toBeLessThanOrEqual(1);
      else expect(times, row.email).toBe(1);
    }
    expect(inDoubt.length).toBeLessThanOrEqual(8);
  }, 180_000);
});

describe('already sent, when the server cannot list its invitations', () => {
  it("warns and relies on roster's record alone", async () => {
    const sb = await start();
    const home = tempDir();
    const out = join(tempDir(), 'kg.csv');
    expect((await plan(sb, home, ['--school', 'org-sch-1', '--grade', 'KG', '--out', out])).code).toBe(0);
    const sent = await runCli(
      ['invite', 'send', '--file', out, '--sent-by-user-id', 'usr-1', '--yes'],
      home,
      {
        env: demoEnv(sb),
      },
    );
    expect(sent.code).toBe(0);
    const n = sb.outbox.length;
    expect(n).toBeGreaterThan(0);
    const listing = (r: { method: string; path: string }) =>
      r.method === 'GET' && r.path.endsWith('/enrollment/invitations');
    sb.injectFault({ match: listing, status: 403, times: 100 });
    const again = await plan(sb, home, ['--school', 'org-sch-1', '--grade', 'KG', '--json']);
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(
      /Warning: the server's invitation list cannot tell who was invited \(.*403.*\); relying on roster's record of sent invitations\./,
    );
    const replanned = JSON.parse(again.stdout);
    expect(replanned.invitations).toEqual([]);
    expect(replanned.summary).toMatchObject({
      alreadyInvited: n,
      alreadyInvitedFrom: "roster's record of sent invitations",
    });
    // Without roster's record (another user) and without the list, nothing can say they were invited.
    const blind = JSON.parse(
      (await plan(sb, tempDir(), ['--school', 'org-sch-1', '--grade', 'KG', '--json'])).stdout,
    );
    expect(blind.invitations).toHaveLength(n);
    sb.clearFaults();
  }, 60_000);
});

describe('a 1.2 server that refuses the roles filter and fields=', () => {
  it('asks again without fields= (said under --debug), and the plan is still right; --debug shows no guardian', async () => {
    const sb = await start({ refuseFields: true });
    const home = tempDir();
    const result = await plan(sb, home, ['--all-schools', '--json', '--debug'], '1.2');
    expect(result.code).toBe(0);
    const data = await users(sb, '1.2');
    expect(actualPlan(JSON.parse(result.stdout))).toEqual(
      expectedPlan(data, '1.2', { schools: ALL, today: today() }),
    );
    expect(result.stderr).toMatch(
      /reading the district's users: the server refused fields= \(HTTP 400\); asking again without it/,
    );
    // One read (--all-schools: the district's users, its students among them): refused once, then asked
    // without fields= at all.
    const withFields = sb.requests.filter((r) => r.rawQuery.includes('fields='));
    expect(withFields.map((r) => [r.path.replace(/.*\//, ''), r.status])).toEqual([['users', 400]]);
    expect(sb.requests.some((r) => r.path.endsWith('/students'))).toBe(false);
    // No request filters on roles; every users read after the refusal went without fields=.
    expect(sb.requests.some((r) => /filter=[^&]*roles/i.test(decodeURIComponent(r.rawQuery)))).toBe(false);
    for (const g of data.filter((u) => u.roles?.some((r: { role: string }) => r.role !== 'student'))) {
      if (g.email) expect(result.stderr).not.toContain(g.email.trim());
      if (g.familyName) expect(result.stderr).not.toContain(`${g.givenName} ${g.familyName}`);
    }
  }, 60_000);
});

describe('invite plan on a terminal', () => {
  it('shows the preview and the summary, asks, and on yes saves the plan and sends it through invite send --file', async () => {
    const sb = await start();
    const home = tempDir();
    const run = startPty(
      ['invite', 'plan', '--school', 'org-sch-1', '--grade', 'KG', '--sent-by-user-id', 'usr-1'],
      home,
      demoEnv(sb),
    );
    await run.waitFor('e-mail');
    await run.waitFor(
      /Alder Elementary School: \d+ students in scope: \d+ covered by (\d+) invitations, \d+ without a guardian e-mail; 0 already invited/,
    );
    const n = Number(/Alder Elementary School: .* covered by (\d+) invitations/.exec(run.screen())?.[1]);
    await run.waitFor(`Send these ${n} invitations now?`);
    expect(sb.outbox.length).toBe(0);
    run.type('y\r');
    await run.waitFor(/Plan saved to (\S+\.csv)/);
    await run.waitFor(`Sent ${n} of ${n} invitations`);
    const result = await run.done;
    expect(result.code).toBe(0);
    expect(sb.outbox.length).toBe(n);
    const saved = /Plan saved to (\S+\.csv)/.exec(run.screen())?.[1] as string;
    expect(statSync(saved).mode & 0o777).toBe(0o600);
    // The same file resumes (here: finds everything sent) with invite send --file.
    const again = await runCli(
      ['invite', 'send', '--file', saved, '--sent-by-user-id', 'usr-1', '--yes'],
      home,
      {
        env: demoEnv(sb),
      },
    );
    expect(again.code).toBe(0);
    expect(sb.outbox.length).toBe(n);
  }, 60_000);

  it('--include-invited lists the invitations already sent for a deliberate re-send, and yes does send them again', async () => {
    const sb = await start();
    const home = tempDir();
    const args = ['invite', 'plan', '--school', 'org-sch-1', '--grade', 'KG', '--sent-by-user-id', 'usr-1'];
    const first = startPty(args, home, demoEnv(sb));
    await first.waitFor(/Alder Elementary School: .* covered by (\d+) invitations/);
    const n = Number(/Alder Elementary School: .* covered by (\d+) invitations/.exec(first.screen())?.[1]);
    await first.waitFor('now?');
    first.type('y\r');
    await first.waitFor(`Sent ${n} of ${n} invitations`);
    expect((await first.done).code).toBe(0);
    expect(sb.outbox.length).toBe(n);

    const again = startPty([...args, '--include-invited'], home, demoEnv(sb));
    await again.waitFor(`Send these ${n} invitations now?`);
    again.type('y\r');
    await again.waitFor('--resend-sent');
    await again.waitFor(`Sent ${n} of ${n} invitations`);
    expect((await again.done).code).toBe(0);
    expect(sb.outbox.length).toBe(2 * n);
  }, 60_000);

  it('without a sender (no --sent-by-user-id, none in the profile): no question, and how to send it', async () => {
    const sb = await start();
    const run = startPty(
      ['invite', 'plan', '--school', 'org-sch-2', '--grade', 'KG'],
      tempDir(),
      demoEnv(sb),
    );
    await run.waitFor('To send them: save the plan with --out FILE');
    const result = await run.done;
    expect(result.code).toBe(0);
    expect(run.screen()).not.toContain('now?');
    expect(sb.outbox.length).toBe(0);
  }, 60_000);

  it('no: nothing is sent', async () => {
    const sb = await start();
    const home = tempDir();
    const run = startPty(
      ['invite', 'plan', '--school', 'org-sch-2', '--sent-by-user-id', 'usr-1'],
      home,
      demoEnv(sb),
    );
    await run.waitFor('now?');
    run.type('n\r');
    await run.waitFor('Nothing was sent.');
    expect((await run.done).code).toBe(0);
    expect(sb.outbox.length).toBe(0);
  }, 60_000);

  it.each([
    ['Ctrl-C', '\u0003'],
    ['Esc', '\u001b'],
  ])(
    '%s at the question: cancelled (exit 130), nothing sent, no plan saved to send',
    async (_, key) => {
      const sb = await start();
      const home = tempDir();
      try {
        const run = startPty(
          ['invite', 'plan', '--school', 'org-sch-2', '--sent-by-user-id', 'usr-1'],
          home,
          demoEnv(sb),
        );
        await run.waitFor('now?');
        run.type(key);
        await run.waitFor('Cancelled; nothing was sent.');
        expect((await run.done).code).toBe(130);
        expect(sb.outbox.length).toBe(0);
        expect(sb.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/invitations'))).toEqual([]);
        expect(() => statSync(join(home, '.local', 'state', 'roster', 'plans'))).toThrow();
      } finally {
        rmSync(home, { recursive: true, force: true });
      }
    },
    60_000,
  );
});

describe('invite plan: files and usage', () => {
  it('--uncovered-csv lists the students left out with their reasons; --out replaces a planted link, never writes through it', async () => {
    const sb = await start({ familyTraps: true });
    const home = tempDir();
    const dir = tempDir();
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'keep me');
    const out = join(dir, 'plan.csv');
    const { symlinkSync } = await import('node:fs');
    symlinkSync(victim, out);
    const uncoveredFile = join(dir, 'uncovered.csv');
    const result = await plan(sb, home, [
      '--school',
      'org-sch-1',
      '--out',
      out,
      '--uncovered-csv',
      uncoveredFile,
      '--json',
    ]);
    expect(result.code).toBe(0);
    expect(readFileSync(victim, 'utf8')).toBe('keep me');
    expect(statSync(out).mode & 0o777).toBe(0o600);
    const json = JSON.parse(result.stdout);
    const lines = readFileSync(uncoveredFile, 'utf8').trimEnd().split('\r\n');
    expect(lines[0]).toBe('\ufeffsourcedId,name,reason');
    expect(lines.length - 1).toBe(json.uncovered.length);
    expect(json.uncovered.length).toBeGreaterThan(0);
    expect(statSync(uncoveredFile).mode & 0o777).toBe(0o600);
  }, 60_000);

  it.each([
    [[], /Give --school/],
    [['--school', 'org-sch-1', '--all-schools'], /not both/],
    [['--school', 'org-sch-1', '--roles', 'teacher'], /Invalid --roles/],
    [['--school', 'org-sch-1', '--count', 'all'], /Invalid --count/],
    [['--school', 'org-sch-1', '--grade', 'K,,1'], /Invalid --grade/],
    [['--school', 'org-sch-1', '--out', '-'], /--out needs a file path/],
  ])('%j: a usage error (exit 2) before any request', async (args, message) => {
    const sb = await start();
    const result = await plan(sb, tempDir(), args as string[]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(sb.requests).toHaveLength(0);
  });

  it('a school name matching no school: exit 2, nothing read but the schools', async () => {
    const sb = await start();
    const result = await plan(sb, tempDir(), ['--school', 'Nowhere High']);
    expect(result.code).toBe(2);
    expect(sb.requests.every((r) => r.path.includes('/schools') || r.path.endsWith('/token'))).toBe(true);
  });
});
