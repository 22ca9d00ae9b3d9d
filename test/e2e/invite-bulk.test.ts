import { writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { runCli, startCli, until } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { demoEnv } from '../helpers/sandbox.js';

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
    `email,schoolId,studentCount\r\n${emails.map((e, i) => `${e},sch-${i % 5},1`).join('\r\n')}\r\n`,
  );
  return { file, emails };
}

const start = (args: string[]) => startCli(args, home, { env: env(), timeoutMs: 60_000 });

const deliveredTo = (emails: string[]) => emails.map((e) => sandbox.outbox.filter((m) => m.to === e).length);

describe('invite send --file, end to end', () => {
  it('500 rows at 50 ms latency with --concurrency 8 take close to rows × latency / concurrency', async () => {
    sandbox.setOptions({ latencyMs: 50 });
    const { file, emails } = csv('perf', 500);
    const started = performance.now();
    const result = await runCli(
      ['invite', 'send', '--file', file, '--sent-by-user-id', 'usr-1', '--concurrency', '8'],
      home,
      { env: env(), timeoutMs: 60_000 },
    );
    const elapsed = performance.now() - started;
    expect(result.code).toBe(0);
    expect(deliveredTo(emails).every((n) => n === 1)).toBe(true);
    const ideal = (500 * 50) / 8;
    // A sanity bound (process start, token, journal fsyncs included); real figures belong to benchmarks.
    console.log(
      `500 rows, 50 ms, concurrency 8: ${Math.round(elapsed)} ms, ${(elapsed / ideal).toFixed(2)}× the ideal ${ideal} ms`,
    );
    expect(elapsed).toBeLessThan(ideal * 2.5);
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
    const journal = /Journal: (\S+\.jsonl)/.exec(killed.stderr)?.[1];
    expect(journal).toBeDefined();
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
    expect(await readFile(journal!, 'utf8')).toContain('"state":"sent"');
  }, 60_000);

  it('Ctrl-C: stops taking rows, lets in-flight ones finish, saves the journal, prints the summary, exit 130', async () => {
    sandbox.setOptions({ latencyMs: 20 });
    const { file, emails } = csv('sigint', 300);
    const args = ['invite', 'send', '--file', file, '--sent-by-user-id', 'usr-1', '--concurrency', '4'];
    const first = start(args);
    await until(() => sandbox.outbox.length >= 40);
    first.child.kill('SIGINT');
    const interrupted = await first.done;
    expect(interrupted.code).toBe(130);
    expect(interrupted.stderr).toMatch(/Sent \d+ of 300 invitations from .* before the interrupt\./);
    expect(interrupted.stderr).toMatch(/Not started: \d+/);
    expect(interrupted.stderr).toContain('Error: Interrupted');
    const journal = /Journal: (\S+\.jsonl)/.exec(interrupted.stderr)?.[1] ?? '';
    const states = new Map<number, string>();
    for (const line of (await readFile(journal, 'utf8')).trim().split('\n').slice(1)) {
      const entry = JSON.parse(line);
      states.set(entry.line, entry.state);
    }
    expect([...states.values()]).not.toContain('in-flight'); // every request in flight was let finish
    expect([...states.values()].filter((s) => s === 'sent').length).toBe(sandbox.outbox.length);

    sandbox.setOptions({ latencyMs: 0 });
    const again = await runCli(args, home, { env: env() });
    expect(again.code).toBe(0);
    expect(deliveredTo(emails).every((n) => n === 1)).toBe(true);
  }, 60_000);
});
