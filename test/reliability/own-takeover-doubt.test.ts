// A row a run took over another run's doubt (--resend-in-doubt) stays that other run's doubt unless this run
// has it confirmed sent: the claim says so (over: in-doubt), and the next run of the same file, without
// --resend-*, does not take it for its own (its journal says only failed, or nothing), so it neither sends
// the row nor lets the doubt go. Real journals and records, one process.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors.js';
import { sendRows } from '../../src/invite/bulk-runner.js';
import { contentHash, FileRun, invitationIdentity, SentRecord } from '../../src/invite/store/index.js';
import { destination, inDoubtByC, plainClaim, plannedRow } from '../helpers/claims.js';
import { tempDir } from '../helpers/context.js';

const X = invitationIdentity('x@x.org', 's1');
const rows = [plannedRow('a@x.org', 2), plannedRow('x@x.org', 3), plannedRow('b@x.org', 4)];

/** One run of file A (as bulk-send.ts does it); `refuse` makes X's request certainly fail. */
async function runA(state: string, file: string, resendInDoubt: boolean, refuse: boolean, sent: string[]) {
  const store = await FileRun.open(
    { stateDir: state, file, sha256: contentHash('a'), destination },
    rows,
    { resendInDoubt, resendSent: false },
    new Date(),
  );
  try {
    const now = () => new Date();
    const planned = store.view.plan.toSend.map((r) => r.body.email);
    await sendRows({
      rows: store.view.plan.toSend,
      journal: store.rowJournal,
      guard: store.guard({ timeoutMs: 30_000, now, warn: () => {}, info: () => {} }),
      concurrency: 1,
      signal: new AbortController().signal,
      resending: store.view.plan.resending,
      now,
      onProgress: () => {},
      send: async (r) => {
        sent.push(r.body.email);
        if (refuse && r.body.email === 'x@x.org') throw new ApiError('api', 429, 'slow down');
        return { message: 'ok' };
      },
    });
    return planned;
  } finally {
    await store.close();
  }
}

describe("a row taken over another run's doubt, refused, then the file run again without --resend-*", () => {
  it("is not sent again, and the other run's doubt stands", async () => {
    const state = tempDir();
    const file = join(tempDir(), 'a.csv');
    writeFileSync(file, 'email,schoolId\n');
    await inDoubtByC(state, X);

    // A, with --resend-in-doubt: X's request is refused (429: certainly not sent by A).
    const first: string[] = [];
    await runA(state, file, true, true, first);
    expect(first).toContain('x@x.org');
    // X is in doubt again for other runs (C's request may have gone out): as designed.
    expect(await plainClaim(state, X)).toBe('in-doubt');

    // A again, no --resend-* at all: X is C's doubt, so it must not be sent.
    const second: string[] = [];
    await runA(state, file, false, true, second);
    const doubtAfter = await plainClaim(state, X);
    expect({ sentByPlainRun: second.includes('x@x.org'), doubtAfter }).toEqual({
      sentByPlainRun: false,
      doubtAfter: 'in-doubt',
    });
  }, 30_000);
});

describe("a row taken over another run's doubt, the run killed before the row's in-flight entry, then run again without --resend-*", () => {
  it('is not sent (the claim says over: in-doubt, and C may have sent it)', async () => {
    const { spawnSync } = await import('node:child_process');
    const { appendFileSync } = await import('node:fs');
    const state = tempDir();
    const file = join(tempDir(), 'a.csv');
    writeFileSync(file, 'email,schoolId\n');
    await inDoubtByC(state, X);
    // A first run of A plans its rows (its journal: the header alone) and is let go: it sent nothing.
    const none: string[] = [];
    const store = await FileRun.open(
      { stateDir: state, file, sha256: contentHash('a'), destination },
      rows,
      { resendInDoubt: true, resendSent: false },
      new Date(),
    );
    const journalPath = store.view.path;
    const began = store.view.header!.createdAt;
    const opened = await SentRecord.open(state, destination);
    const recordPath = opened.path;
    await opened.close();
    await store.close();
    // ... as a --resend-in-doubt run of A killed (kill -9) right after it took X over C's doubt, before X's
    // in-flight entry reached its journal: what that run left in the claims file.
    const deadPid = spawnSync(process.execPath, ['-e', '0']).pid as number;
    appendFileSync(
      `${recordPath}.claims`,
      `${JSON.stringify({ id: X, run: journalPath, file, began, over: 'in-doubt', state: 'sending', at: new Date().toISOString(), until: new Date(Date.now() + 600_000).toISOString(), pid: deadPid, host: (await import('node:os')).hostname() })}\n`,
    );
    expect(none).toEqual([]);
    expect(await plainClaim(state, X)).toBe('stopped');

    // A again, no --resend-* at all.
    const second: string[] = [];
    await runA(state, file, false, true, second);
    expect({ sentByPlainRun: second.includes('x@x.org'), doubtAfter: await plainClaim(state, X) }).toEqual({
      sentByPlainRun: false,
      // A's dead claim still stands for every other run: stopped while sending it (in doubt).
      doubtAfter: 'stopped',
    });
  }, 30_000);
});
