import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { constants } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { runCli, startCli, until } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { demoEnv } from '../helpers/sandbox.js';
import { claimRows, journalRows } from '../helpers/store.js';

let sandbox: Sandbox;
let home: string;
const env = () => demoEnv(sandbox);

beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());
beforeEach(() => {
  home = tempDir();
  sandbox.requests.length = 0;
  sandbox.outbox.length = 0;
  sandbox.setOptions({ latencyMs: 0 });
});

/** A CSV of `count` rows with addresses unique to this test. */
function csv(tag: string, count: number): { file: string; emails: string[] } {
  const emails = Array.from({ length: count }, (_, i) => `${tag}-${i}@example.org`);
  const file = join(tempDir(), `${tag}.csv`);
  writeFileSync(
    file,
    `email,schoolId,studentCount\r\n${emails.map((e, i) => `${e},org-sch-${(i % 5) + 1},1`).join('\r\n')}\r\n`,
  );
  return { file, emails };
}

const start = (args: string[]) => startCli(args, home, { env: env(), timeoutMs: 60_000 });

/** Whether the signal is still pending for the process (Linux /proc; elsewhere assumed delivered). */
function pending(pid: number, signal: NodeJS.Signals): boolean {
  const status = existsSync(`/proc/${pid}/status`) ? readFileSync(`/proc/${pid}/status`, 'utf8') : '';
  const masks = [...status.matchAll(/^(?:SigPnd|ShdPnd):\s*([0-9a-f]+)$/gm)].map((m) => BigInt(`0x${m[1]}`));
  const bit = 1n << BigInt(constants.signals[signal] - 1);
  return masks.some((mask) => (mask & bit) !== 0n);
}

const deliveredTo = (emails: string[]) => emails.map((e) => sandbox.outbox.filter((m) => m.to === e).length);

describe('invite send --file, end to end', () => {
  // How fast is a benchmark's question (npm run bench -- bulk); this counts what a busy machine does not change.
  it('500 rows at 50 ms latency with --concurrency 8: each sent once, 8 requests in flight on 8 kept-alive sockets', async () => {
    sandbox.setOptions({ latencyMs: 50 });
    const { file, emails } = csv('perf', 500);
    const result = await runCli(
      ['invite', 'send', '--file', file, '--sent-by-user-id', 'usr-1', '--concurrency', '8'],
      home,
      { env: env(), timeoutMs: 60_000 },
    );
    expect(result.code).toBe(0);
    expect(deliveredTo(emails).every((n) => n === 1)).toBe(true);
    const posts = sandbox.requests.filter(
      (r) => r.method === 'POST' && r.path.endsWith('/enrollment/invitations'),
    );
    expect(posts).toHaveLength(500);
    // A kept-alive socket is reused whenever one is free, so a new one opens only while all the others are
    // busy: the number of sockets is the most requests ever in flight at once.
    expect(new Set(posts.map((r) => r.connection)).size).toBe(8);
  }, 60_000);

  it('kill -9 mid-way, then the same command: every row sent exactly once except in-doubt rows (≤ concurrency), listed and not re-sent', async () => {
    sandbox.setOptions({ latencyMs: 20 });
    const { file, emails } = csv('kill', 300);
    const args = ['invite', 'send', '--file', file, '--sent-by-user-id', 'usr-1', '--concurrency', '8'];
    const first = start(args);
    await until(() => sandbox.outbox.length >= 100);
    first.child.kill('SIGKILL');
    const killed = await first.done;
    expect(killed.code).toBe(null);
    const journal = /Journal: (\S+\.db)/.exec(killed.stderr)?.[1];
    expect(journal).toBeDefined();
    // What the kill left: each row's state on disk, every row answered sent, at most the 8 in flight not.
    const left = journalRows(journal!);
    expect(left.filter((r) => r.state === 'in-flight').length).toBeLessThanOrEqual(8);
    expect(left.filter((r) => r.state === 'sent').length).toBeGreaterThan(0);
    // Each row in flight holds its claim (written in one transaction), so other runs know it may be sent.
    expect(
      claimRows(journal!)
        .map((c) => `${c.state} ${c.pid}`)
        .sort(),
    ).toEqual(left.filter((r) => r.state === 'in-flight').map(() => `sending ${first.child.pid}`));
    const deliveredBefore = sandbox.outbox.length;
    expect(deliveredBefore).toBeLessThan(300);

    sandbox.setOptions({ latencyMs: 0 });
    const firstRunRequests = sandbox.requests.length;
    const again = await runCli([...args, '--json'], home, { env: env() });
    const report = JSON.parse(again.stdout);
    const inDoubt: { line: number; email: string }[] = report.rows.filter(
      (r: { result: string }) => r.result === 'in-doubt',
    );
    expect(again.code).toBe(inDoubt.length > 0 ? 5 : 0);
    expect(inDoubt.length).toBeLessThanOrEqual(8);
    expect(report.counts.sent + report.counts.skipped + inDoubt.length).toBe(300);
    expect(report.counts.failed).toBe(0);

    // Nothing twice; nothing lost: every row not in doubt got exactly one e-mail.
    const counts = deliveredTo(emails);
    expect(Math.max(...counts)).toBe(1);
    const doubtful = new Set(inDoubt.map((r) => r.email));
    emails.forEach((email, i) => {
      if (!doubtful.has(email)) expect(counts[i], email).toBe(1);
    });
    // The in-doubt rows are listed with how to check them, and were not sent again.
    for (const row of inDoubt) {
      expect(again.stderr).toContain(`line ${row.line}: ${row.email}`);
      expect(again.stderr).toContain(`roster invite list --email ${row.email}`);
    }
    const resent = sandbox.requests
      .slice(firstRunRequests)
      .filter(
        (r) =>
          r.method === 'POST' && r.path.endsWith('/invitations') && doubtful.has(JSON.parse(r.body).email),
      );
    expect(resent).toHaveLength(0);
    console.log(
      `kill -9 after ${deliveredBefore} e-mails: ${inDoubt.length} rows in doubt, ${report.counts.sent} sent by the re-run`,
    );
    // The journal now: every row sent but the ones in doubt (each a row of its own, none lost).
    const states = journalRows(journal!);
    expect(states).toHaveLength(300);
    expect(
      states
        .filter((r) => r.state !== 'sent')
        .map((r) => r.email)
        .sort(),
    ).toEqual([...doubtful].sort());
  }, 60_000);

  it.each([
    ['Ctrl-C', 'SIGINT'],
    ['SIGTERM (a cancelled CI job, kill)', 'SIGTERM'],
    ['SIGHUP (the terminal closed)', 'SIGHUP'],
  ] as const)(
    '%s: stops taking rows, lets in-flight ones finish, saves the journal, prints the summary, exit 130',
    async (_, signal) => {
      sandbox.setOptions({ latencyMs: 20 });
      const { file, emails } = csv(signal.toLowerCase(), 300);
      const args = ['invite', 'send', '--file', file, '--sent-by-user-id', 'usr-1', '--concurrency', '4'];
      const first = start(args);
      await until(() => sandbox.outbox.length >= 40);
      first.child.kill(signal);
      const interrupted = await first.done;
      expect(interrupted.code).toBe(130);
      expect(interrupted.stderr).toMatch(/Sent \d+ of 300 invitations from .* before the interrupt\./);
      expect(interrupted.stderr).toMatch(/Not started: \d+/);
      expect(interrupted.stderr).toContain('Error: Interrupted');
      const journal = /Journal: (\S+\.db)/.exec(interrupted.stderr)?.[1] ?? '';
      const states = new Map(journalRows(journal).map((r) => [r.line, r.state]));
      // Every request in flight was let finish: no row is in doubt, and every answered one is journaled sent.
      expect([...states.values()]).not.toContain('in-flight');
      expect([...states.values()].filter((s) => s === 'sent').length).toBe(sandbox.outbox.length);

      sandbox.setOptions({ latencyMs: 0 });
      const again = await runCli(args, home, { env: env() });
      expect(again.code).toBe(0);
      expect(deliveredTo(emails).every((n) => n === 1)).toBe(true);
    },
    60_000,
  );

  it("a second SIGTERM ends the run at once (exit 130); the rows it left in flight are settled by the server's list on the next run, never sent twice", async () => {
    sandbox.setOptions({ latencyMs: 3_000 });
    const { file, emails } = csv('twice', 40);
    const args = ['invite', 'send', '--file', file, '--sent-by-user-id', 'usr-1', '--concurrency', '4'];
    const first = start(args);
    await until(() => sandbox.outbox.length >= 4); // four requests in flight, answers 3 s away
    first.child.kill('SIGTERM');
    // Two signals pending at once are one: the second is sent once the first has reached the process, and
    // over a quarter of a second later (sooner, the same signal is the first one delivered twice: see below).
    await until(() => !pending(first.child.pid ?? 0, 'SIGTERM'));
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    first.child.kill('SIGTERM');
    const ended = await first.done;
    expect(ended.code).toBe(130);
    expect(ended.stderr).not.toContain('before the interrupt'); // no summary: it left at once
    expect(ended.stderr).toContain('Error: Stopped at once by a second interrupt');

    sandbox.setOptions({ latencyMs: 0 });
    const again = await runCli([...args, '--json'], home, { env: env() });
    // The sandbox had created the 4 in flight: the list settles them (skipped as sent), the rest go out.
    expect(again.code).toBe(0);
    const report = JSON.parse(again.stdout);
    expect(report.counts).toMatchObject({ inDoubt: 0, sent: 36, skipped: 4 });
    expect(again.stderr.match(/was sent: the server lists it .*; it is not sent again\./g)).toHaveLength(4);
    expect(Math.max(...deliveredTo(emails))).toBe(1);
  }, 60_000);

  it('the same signal twice within a quarter of a second (timeout(1) signals the process group too) is one: a summary, nothing in doubt', async () => {
    sandbox.setOptions({ latencyMs: 300 });
    const { file, emails } = csv('delivered-twice', 40);
    const args = ['invite', 'send', '--file', file, '--sent-by-user-id', 'usr-1', '--concurrency', '4'];
    const first = start(args);
    await until(() => sandbox.outbox.length >= 4);
    first.child.kill('SIGTERM');
    await until(() => !pending(first.child.pid ?? 0, 'SIGTERM'));
    first.child.kill('SIGTERM');
    const ended = await first.done;
    expect(ended.code).toBe(130);
    expect(ended.stderr).toMatch(/Sent \d+ of 40 invitations from .* before the interrupt\./);
    expect(ended.stderr).not.toContain('Stopped at once');

    sandbox.setOptions({ latencyMs: 0 });
    const again = await runCli([...args, '--json'], home, { env: env() });
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout).counts.inDoubt).toBe(0);
    expect(deliveredTo(emails).every((n) => n === 1)).toBe(true);
  }, 60_000);

  it("a re-run's report gives each row its own fate where sent, skipped and failed rows interleave", async () => {
    const { file, emails } = csv('fates', 6);
    const refuse = (email: string) =>
      sandbox.injectFault({
        match: (req) => req.method === 'POST' && req.body.includes(`"${email}"`),
        status: 400,
        body: { message: `Refused ${email}` },
      });
    const send = () =>
      runCli(['invite', 'send', '--file', file, '--sent-by-user-id', 'usr-1', '--json'], home, {
        env: env(),
        timeoutMs: 60_000,
      });
    for (const i of [1, 4, 5]) refuse(emails[i]!);
    expect((await send()).code).toBe(5);
    // The re-run sends rows 2 and 5 of the six among three skipped; row 6 fails again.
    refuse(emails[5]!);
    const again = await send();
    expect(again.code).toBe(5);
    const report = JSON.parse(again.stdout);
    expect(report.rows.map((r: { email: string; result: string }) => [r.email, r.result])).toEqual([
      [emails[0], 'skipped'],
      [emails[1], 'sent'],
      [emails[2], 'skipped'],
      [emails[3], 'skipped'],
      [emails[4], 'sent'],
      [emails[5], 'failed'],
    ]);
    expect(report.rows[5].reason).toContain(`Refused ${emails[5]}`);
    expect(report.counts).toMatchObject({ total: 6, sent: 2, skipped: 3, failed: 1 });
    expect(deliveredTo(emails)).toEqual([1, 1, 1, 1, 1, 0]);
  }, 60_000);
});
