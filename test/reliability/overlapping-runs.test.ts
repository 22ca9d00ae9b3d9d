// Different CSV files that share families, sent by runs that overlap (a nightly campaign and an admin's own
// file, two admins, a retried CI job with an edited file): each file has its own journal, so only roster's
// record of sent invitations stands between a family and a second e-mail. Every row is claimed (the claims
// table of the destination's database) before its request leaves; a run that meets another's claim waits
// for it, and one left by a run killed in the middle is in doubt for everyone but that run. Counted at the
// sandbox: e-mails per address.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invitationIdentity } from '../../src/invite/store/index.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { type CliResult, startCli, until } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { demoEnv, homeWithSchoolsCached, listOutOfUse } from '../helpers/sandbox.js';
import { claimRows, storeOf, storeWrite } from '../helpers/store.js';

const RUNS = 6;
const ROUNDS = 3;
const SHARED = 10;
const OWN = 4;

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());

const emailsTo = (address: string) => sandbox.outbox.filter((m) => m.to === address).length;

function writeCsv(name: string, emails: string[]): string {
  const file = join(tempDir(), `${name}.csv`);
  writeFileSync(file, `email,schoolId,studentCount\n${emails.map((e) => `${e},org-sch-1,1`).join('\n')}\n`);
  return file;
}

/** `invite send --file` with its own HOME (its own token) and the state folder every run shares. */
function send(file: string, state: string, extra: string[] = [], home = tempDir()) {
  return startCli(
    [
      'invite',
      'send',
      '--file',
      file,
      '--sent-by-user-id',
      'usr-1',
      '--concurrency',
      '4',
      '--json',
      ...extra,
    ],
    home,
    { env: demoEnv(sandbox, 'demo-allowed', { XDG_STATE_HOME: state }), timeoutMs: 60_000 },
  );
}

interface ReportRow {
  email: string;
  result: string;
  reason?: string;
  sentElsewhere?: string;
}
const rowsOf = (result: CliResult): ReportRow[] => (JSON.parse(result.stdout) as { rows: ReportRow[] }).rows;

describe('overlapping files sent at the same time', () => {
  it(`${RUNS} different files sharing ${SHARED} families, started together, ${ROUNDS} rounds: each family e-mailed exactly once`, async () => {
    sandbox.setOptions({ latencyMs: 40, jitterMs: 40 });
    for (let round = 1; round <= ROUNDS; round++) {
      const shared = Array.from({ length: SHARED }, (_, i) => `r${round}-shared-${i}@example.org`);
      const state = tempDir();
      const files = Array.from({ length: RUNS }, (_, run) => {
        const own = Array.from({ length: OWN }, (_, i) => `r${round}-run${run}-${i}@example.org`);
        // Each file meets the shared families in another order, so the runs reach them at the same time.
        const rotated = [...shared.slice(run % SHARED), ...shared.slice(0, run % SHARED)];
        return { file: writeCsv(`run${run}`, [...rotated, ...own]), own };
      });
      const results = await Promise.all(files.map(({ file }) => send(file, state).done));
      for (const result of results)
        expect({ code: result.code, stderr: result.stderr }).toMatchObject({ code: 0 });
      const everyone = [...shared, ...files.flatMap((f) => f.own)];
      expect(everyone.filter((e) => emailsTo(e) !== 1)).toEqual([]);
      // Each shared family is reported sent by one run and skipped, with when, by the others.
      for (const email of shared) {
        const outcomes = results.map((r) => rowsOf(r).find((row) => row.email === email));
        expect(outcomes.filter((o) => o?.result === 'sent')).toHaveLength(1);
        const others = outcomes.filter((o) => o?.result !== 'sent');
        expect(others.every((o) => o?.result === 'skipped' && typeof o.sentElsewhere === 'string')).toBe(
          true,
        );
      }
    }
  }, 120_000);
});

describe('a run killed with requests in flight, then another file with the same families', () => {
  it('the other file leaves the rows in flight in doubt (never e-mailed twice) and sends the rest; --resend-in-doubt is the way to send them', async () => {
    // The list out of use: these rows stay in doubt (the list settling them: settle-rerun.test.ts).
    listOutOfUse(sandbox);
    const state = tempDir();
    const families = Array.from({ length: 6 }, (_, i) => `killed-${i}@example.org`);
    const extra = ['killed-extra-0@example.org', 'killed-extra-1@example.org'];
    // The first 4 are in flight at the kill (concurrency 4): the sandbox has e-mailed them, roster has no
    // answer yet. Its schools list is cached (as after any earlier run), so only its token comes first.
    sandbox.setOptions({ latencyMs: 3_000, jitterMs: 0 });
    const firstFile = writeCsv('first', families);
    const home = await homeWithSchoolsCached(sandbox);
    const first = send(firstFile, state, [], home);
    await until(() => families.slice(0, 4).every((e) => emailsTo(e) === 1));
    first.child.kill('SIGKILL');
    expect((await first.done).code).toBe(null);
    // What it left: the four it was sending, claimed by a process that is gone.
    const db = storeOf(join(state, 'roster'));
    expect(claimRows(db).map((c) => `${c.identity} ${c.state} ${c.pid}`)).toEqual(
      families
        .slice(0, 4)
        .map((e) => `${invitationIdentity(e, 'org-sch-1')} sending ${first.child.pid}`)
        .sort(),
    );
    sandbox.setOptions({ latencyMs: 10, jitterMs: 0 });

    const second = await send(writeCsv('second', [...families, ...extra]), state).done;
    // In doubt is not confirmed sent: exit 5 (the contract's partial outcome), each one named.
    expect(second.code, second.stderr).toBe(5);
    expect([...families, ...extra].map(emailsTo)).toEqual([1, 1, 1, 1, 1, 1, 1, 1]);
    const rows = rowsOf(second);
    const byEmail = new Map(rows.map((r) => [r.email, r]));
    for (const email of families.slice(0, 4)) {
      expect(byEmail.get(email)).toMatchObject({
        result: 'in-doubt',
        reason: expect.stringMatching(/another run .*stopped while sending it/),
      });
    }
    for (const email of [...families.slice(4), ...extra]) expect(byEmail.get(email)?.result).toBe('sent');
    expect(second.stderr).toMatch(/In doubt: 4 /);

    // Run again, the second file still leaves them alone; the first file's own resume knows them in doubt.
    const again = await send(writeCsv('second-again', [...families, ...extra]), state).done;
    expect(again.code).toBe(5);
    const resumed = await send(firstFile, state).done;
    expect(resumed.code).toBe(5);
    expect([...families, ...extra].map(emailsTo)).toEqual([1, 1, 1, 1, 1, 1, 1, 1]);
    const resumedRows = new Map(rowsOf(resumed).map((r) => [r.email, r]));
    for (const email of families.slice(0, 4)) expect(resumedRows.get(email)?.result).toBe('in-doubt');
    for (const email of families.slice(4)) expect(resumedRows.get(email)?.result).toBe('skipped');

    // A deliberate re-send of what is in doubt: exactly those four get a second e-mail.
    const resend = await send(writeCsv('second-resend', [...families, ...extra]), state, [
      '--resend-in-doubt',
    ]).done;
    expect({ code: resend.code, stderr: resend.stderr }).toMatchObject({ code: 0 });
    expect([...families, ...extra].map(emailsTo)).toEqual([2, 2, 2, 2, 1, 1, 1, 1]);

    // The first file's own doubt about them is settled by that confirmed send: --resend-in-doubt skips them.
    const firstAgain = await send(firstFile, state, ['--resend-in-doubt']).done;
    expect({ code: firstAgain.code, stderr: firstAgain.stderr }).toMatchObject({ code: 0 });
    expect([...families, ...extra].map(emailsTo)).toEqual([2, 2, 2, 2, 1, 1, 1, 1]);
    const firstRows = new Map(rowsOf(firstAgain).map((r) => [r.email, r]));
    for (const email of families.slice(0, 4))
      expect(firstRows.get(email)).toMatchObject({ result: 'skipped', sentElsewhere: expect.any(String) });
    sandbox.clearFaults();
  }, 60_000);
});

describe('a single `--email` send killed with its request in flight, then a file with that family', () => {
  it('the file leaves it in doubt (never e-mailed twice); a later single send settles it', async () => {
    const state = tempDir();
    const family = 'killed-single@example.org';
    sandbox.setOptions({ latencyMs: 3_000, jitterMs: 0 });
    const home = await homeWithSchoolsCached(sandbox);
    const single = startCli(
      ['invite', 'send', '--email', family, '--school-id', 'org-sch-1', '--sent-by-user-id', 'usr-1'],
      home,
      { env: demoEnv(sandbox, 'demo-allowed', { XDG_STATE_HOME: state }), timeoutMs: 60_000 },
    );
    await until(() => emailsTo(family) === 1);
    single.child.kill('SIGKILL');
    expect((await single.done).code).toBe(null);
    expect(claimRows(storeOf(join(state, 'roster')))).toEqual([
      expect.objectContaining({
        identity: invitationIdentity(family, 'org-sch-1'),
        state: 'sending',
        pid: single.child.pid,
      }),
    ]);
    sandbox.setOptions({ latencyMs: 10, jitterMs: 0 });

    const file = await send(writeCsv('after-single', [family]), state).done;
    expect(file.code, file.stderr).toBe(5);
    expect(emailsTo(family)).toBe(1);
    expect(rowsOf(file)[0]).toMatchObject({
      result: 'in-doubt',
      reason: expect.stringMatching(
        /another run \(`roster invite send --email`\) was stopped while sending it/,
      ),
    });

    // After checking, the admin sends it on purpose: confirmed, so the file now skips it as sent elsewhere.
    const again = await startCli(
      ['invite', 'send', '--email', family, '--school-id', 'org-sch-1', '--sent-by-user-id', 'usr-1'],
      home,
      { env: demoEnv(sandbox, 'demo-allowed', { XDG_STATE_HOME: state }), timeoutMs: 60_000 },
    ).done;
    expect(again.code, again.stderr).toBe(0);
    expect(emailsTo(family)).toBe(2);
    const settled = await send(writeCsv('after-single-again', [family]), state).done;
    expect(settled.code, settled.stderr).toBe(0);
    expect(rowsOf(settled)[0]?.result).toBe('skipped');
    expect(emailsTo(family)).toBe(2);
  });
});

describe('a claim from another host whose clock runs a year ahead', () => {
  it('another run waits for it no longer than its length from when it first saw it, then leaves the row in doubt (never e-mailed)', async () => {
    const state = tempDir();
    const claimed = 'ahead-claimed@example.org';
    const free = 'ahead-free@example.org';
    // The destination's database, made by an earlier run of another file.
    sandbox.setOptions({ latencyMs: 10, jitterMs: 0 });
    const earlier = await send(writeCsv('earlier', ['ahead-earlier@example.org']), state).done;
    expect(earlier.code, earlier.stderr).toBe(0);
    // As written by a run on a machine whose clock is a year ahead: made "next year", held 8 s from then.
    const made = Date.now() + 365 * 86_400_000;
    const db = storeOf(join(state, 'roster'));
    storeWrite(
      db,
      'INSERT INTO claims (identity, run, file, state, at, until, pid, host) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      invitationIdentity(claimed, 'org-sch-1'),
      '/elsewhere/a.csv',
      '/elsewhere/a.csv',
      'sending',
      new Date(made).toISOString(),
      new Date(made + 8_000).toISOString(),
      4242,
      'other-host.example',
    );
    expect(claimRows(db)).toEqual([
      {
        identity: invitationIdentity(claimed, 'org-sch-1'),
        run: '/elsewhere/a.csv',
        state: 'sending',
        pid: 4242,
      },
    ]);
    const started = Date.now();

    const result = await send(writeCsv('ahead', [free, claimed]), state).done;

    expect(result.code, result.stderr).toBe(5);
    expect([emailsTo(free), emailsTo(claimed)]).toEqual([1, 0]);
    const byEmail = new Map(rowsOf(result).map((r) => [r.email, r]));
    expect(byEmail.get(free)?.result).toBe('sent');
    expect(byEmail.get(claimed)).toMatchObject({
      result: 'in-doubt',
      reason: expect.stringMatching(/another run \(\/elsewhere\/a\.csv\) was stopped while sending it/),
    });
    // The wait it announced ends by this machine's clock within the claim's length, not next year.
    const wait =
      /Line 3 waits for another roster run \(pid 4242 on other-host\.example, \/elsewhere\/a\.csv\) sending the same invitation; at most until (\S+) by this machine's clock\./.exec(
        result.stderr,
      );
    expect(wait, result.stderr).not.toBeNull();
    const until = Date.parse(wait?.[1] ?? '');
    expect(until).toBeGreaterThan(started + 8_000);
    expect(until).toBeLessThan(Date.now());
  }, 60_000);
});
