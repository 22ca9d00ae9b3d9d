// Runs of `invite send --file` over a real journal and record, opened as the command opens them, for tests
// that drive sendRows and its guard directly; and the claims other runs leave on an invitation.
import { expect } from 'vitest';
import type { PlannedRow } from '../../src/invite/invite-file.js';
import { contentHash, Journal, SentRecord } from '../../src/invite/store/index.js';
import { recordGuard } from '../../src/invite/store/row-guard.js';

export const destination = { baseUrl: 'http://127.0.0.1:4010/v1', clientId: 'demo-allowed' };

export const plannedRow = (email: string, line: number): PlannedRow => ({
  line,
  body: { email, schoolId: 's1', scopes: ['fillEnrollment'], studentCount: 1, sentByUserId: 'u1' },
});

/** The journal, record and guard of a run of `/data/<name>.csv` in `state` (no --resend-*); close() after. */
export async function guardedRun(state: string, name: string) {
  const record = await SentRecord.open(state, destination);
  const journal = Journal.open(
    record.store,
    {
      journal: 'roster invite send',
      version: 1,
      file: `/data/${name}.csv`,
      destination,
      sha256: contentHash(''),
    },
    new Date(),
  );
  record.load();
  const guard = recordGuard(record, journal, {
    run: { run: journal.run, file: `/data/${name}.csv`, began: journal.header.createdAt },
    resendSent: false,
    resendInDoubt: false,
    resending: new Set(),
    timeoutMs: 30_000,
    now: () => new Date(),
    info: () => {},
  });
  const close = async () => {
    journal.close();
    await record.close();
  };
  return { journal, record, guard, close };
}

/** Run C sent `identity` and could not tell whether it went out: in doubt for every run. */
export async function inDoubtByC(state: string, identity: string): Promise<void> {
  const c = await SentRecord.open(state, destination);
  const run = { run: '/data/c.csv', file: '/data/c.csv' };
  const never = new AbortController().signal;
  const claimed = await c.claim(identity, run, {
    ignoreSent: false,
    ignoreDoubt: false,
    signal: never,
    holdMs: 60_000,
  });
  expect(claimed.kind).toBe('claimed');
  await c.settle(identity, run, 'in-doubt');
  await c.close();
}

/** What a plain run (no --resend-*) of another file gets for `identity`. */
export async function plainClaim(state: string, identity: string): Promise<string> {
  const b = await SentRecord.open(state, destination);
  const outcome = await b.claim(
    identity,
    { run: '/data/b.csv', file: '/data/b.csv' },
    { ignoreSent: false, ignoreDoubt: false, signal: AbortSignal.timeout(3000), holdMs: 60_000 },
  );
  await b.close();
  return outcome.kind;
}
