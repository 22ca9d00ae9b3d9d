// Many roster processes sending the same CSV at once, as a retried CI job or an impatient admin would: the
// file's run in the destination's database (its `runs` row, naming the process sending it) must let exactly
// one send each row, whether it is free or names a run killed with kill -9. Counted where it matters:
// e-mails per address at the sandbox.
import { readdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { type CliResult, startCli, until } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { demoEnv, homeWithSchoolsCached } from '../helpers/sandbox.js';
import { claimRows, runRows, storeOf } from '../helpers/store.js';

const RACERS = Number(process.env.RACERS ?? 12);
const ROUNDS = Number(process.env.ROUNDS ?? 4);
const ROWS = 12;
const BUSY = /^Error: Another roster run \(pid \d+\) is sending invitations from this file\./m;

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());

/** A CSV of ROWS rows with addresses unique to the tag. */
function csv(tag: string): { file: string; emails: string[] } {
  const emails = Array.from({ length: ROWS }, (_, i) => `${tag}-${i}@example.org`);
  const file = join(tempDir(), `${tag}.csv`);
  writeFileSync(file, `email,schoolId,studentCount\n${emails.map((e) => `${e},org-sch-1,1`).join('\n')}\n`);
  return { file, emails };
}

/**
 * One run of `invite send --file`. Every run has its own HOME (so its own token cache: each asks for its
 * own token) and shares one state folder, where the database (the file's journal and its run) lives.
 */
function start(file: string, state: string, home = tempDir()) {
  return startCli(
    ['invite', 'send', '--file', file, '--sent-by-user-id', 'usr-1', '--concurrency', '4'],
    home,
    { env: demoEnv(sandbox, 'demo-allowed', { XDG_STATE_HOME: state }), timeoutMs: 60_000 },
  );
}

const emailsTo = (address: string) => sandbox.outbox.filter((m) => m.to === address).length;

/** RACERS runs started together; each address must get exactly one e-mail, every loser a clear refusal. */
async function race(file: string, emails: string[], state: string): Promise<{ winners: number }> {
  const runs = Array.from({ length: RACERS }, () => start(file, state));
  const results: CliResult[] = await Promise.all(runs.map((r) => r.done));
  const duplicates = emails.filter((e) => emailsTo(e) > 1);
  const missing = emails.filter((e) => emailsTo(e) === 0);
  const told = results.map((r) => `exit ${r.code}: ${r.stderr}`).join('\n');
  expect({ duplicates, missing }, told).toEqual({ duplicates: [], missing: [] });
  for (const result of results) {
    if (result.code === 0) continue;
    expect({ code: result.code, stderr: result.stderr }).toEqual({
      code: 1,
      stderr: expect.stringMatching(BUSY),
    });
  }
  const winners = results.filter((r) => r.code === 0).length;
  expect(winners).toBeGreaterThanOrEqual(1);
  // Nothing of the lock is left behind once every run has ended: the file's run names no process, no
  // claim is open, and nothing but the database was written (no lock or journal files).
  const db = storeOf(join(state, 'roster'));
  expect(runRows(db)).toEqual([{ run: realpathSync(file), pid: null }]);
  expect(claimRows(db)).toEqual([]);
  expect(readdirSync(join(state, 'roster', 'invites'))).toEqual([]);
  return { winners };
}

describe("a file's run (its lock) under simultaneous runs", () => {
  it(`${RACERS} runs of one CSV at once, fresh and after kill -9 left a dead run holding it, ${ROUNDS} rounds: every address e-mailed exactly once`, async () => {
    const figures: string[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      // Fresh: no database yet.
      sandbox.setOptions({ latencyMs: 30 });
      const fresh = csv(`fresh${round}`);
      const freshState = tempDir();
      const a = await race(fresh.file, fresh.emails, freshState);

      // Stale: a run takes the file's run, is killed -9 while it waits for its token (nothing sent yet),
      // and leaves the run naming it, a dead process, for the racers to find.
      const stale = csv(`stale${round}`);
      const staleState = tempDir();
      sandbox.setOptions({ latencyMs: 5_000 });
      const tokensBefore = sandbox.requests.filter((r) => r.path.endsWith('/token')).length;
      // Its schools list is cached (as after any earlier run), so the token is its first request.
      const victimHome = await homeWithSchoolsCached(sandbox);
      const victim = start(stale.file, staleState, victimHome);
      await until(() => sandbox.requests.filter((r) => r.path.endsWith('/token')).length > tokensBefore);
      victim.child.kill('SIGKILL');
      expect((await victim.done).code).toBe(null);
      const db = storeOf(join(staleState, 'roster'));
      expect(runRows(db)).toEqual([{ run: realpathSync(stale.file), pid: victim.child.pid }]);
      expect(stale.emails.map(emailsTo).every((n) => n === 0)).toBe(true);
      sandbox.setOptions({ latencyMs: 30 });
      // race() checks the run names no process once the racers have ended: the dead one's was taken over.
      const b = await race(stale.file, stale.emails, staleState);
      figures.push(`round ${round}: ${a.winners} + ${b.winners} runs exited 0`);
    }
    console.log(
      `file runs: ${ROUNDS} rounds × 2 races × ${RACERS} processes, ${ROWS} rows each: 0 duplicates (${figures.join('; ')})`,
    );
  }, 240_000);
});
