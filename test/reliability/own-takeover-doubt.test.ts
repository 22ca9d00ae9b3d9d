// A row a run took over another run's doubt (--resend-in-doubt) stays that other run's doubt unless this run
// has it confirmed sent: the claim says so (over: in-doubt), and the next run of the same file, without
// --resend-*, does not take it for its own (its journal says only failed, or in flight), so it neither sends
// the row nor lets the doubt go. Real journals and records in the destination's database; the run killed
// mid-request is a process of its own.
import { realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors.js';
import { sendRows } from '../../src/invite/bulk-runner.js';
import { contentHash, FileRun, invitationIdentity } from '../../src/invite/store/index.js';
import { destination, inDoubtByC, plainClaim, plannedRow } from '../helpers/claims.js';
import { tempDir } from '../helpers/context.js';
import { bundleDriver, startDriver } from '../helpers/driver.js';
import { journalRows, storeDump, storeOf } from '../helpers/store.js';

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
      guard: store.guard({ timeoutMs: 30_000, now, info: () => {} }),
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

describe("a row taken over another run's doubt, the run killed (kill -9) while its request was out, then run again without --resend-*", () => {
  it('is not sent (its journal says in flight, the claim says over: in-doubt, and C may have sent it)', async () => {
    const state = tempDir();
    const file = join(tempDir(), 'a.csv');
    writeFileSync(file, 'email,schoolId\n');
    await inDoubtByC(state, X);
    // A, with --resend-in-doubt, in a process of its own: it takes X over C's doubt, X's request leaves and
    // hangs, and the process is killed there.
    const driver = await bundleDriver(
      'resend-killed',
      `
      import { sendRows } from './src/invite/bulk-runner.ts';
      import { contentHash, FileRun } from './src/invite/store/index.ts';
      const [state, file] = process.argv.slice(2);
      const row = (email, line) => ({ line, body: { email, schoolId: 's1', scopes: ['fillEnrollment'], studentCount: 1, sentByUserId: 'u1' } });
      const rows = [row('a@x.org', 2), row('x@x.org', 3), row('b@x.org', 4)];
      const store = await FileRun.open({ stateDir: state, file, sha256: contentHash('a'), destination: ${JSON.stringify(destination)} }, rows, { resendInDoubt: true, resendSent: false }, new Date());
      const now = () => new Date();
      await sendRows({
        rows: store.view.plan.toSend,
        guard: store.guard({ timeoutMs: 30_000, now, info: () => {} }),
        concurrency: 1,
        signal: new AbortController().signal,
        resending: store.view.plan.resending,
        now,
        onProgress: () => {},
        send: async (r) => {
          process.stdout.write('sending ' + r.body.email + '\\n');
          if (r.body.email === 'x@x.org') await new Promise(() => setInterval(() => {}, 1000));
          return { message: 'ok' };
        },
      });`,
    );
    const killed = startDriver(driver, [state, file]);
    await new Promise<void>((resolve) =>
      killed.child.stdout.on('data', (d) => {
        if (String(d).includes('sending x@x.org')) resolve();
      }),
    );
    killed.child.kill('SIGKILL');
    expect((await killed.done).out).toBe('sending a@x.org\nsending x@x.org\n');
    // What the killed run left: X in flight in its journal, and its claim over C's doubt, written together.
    const db = storeOf(state);
    expect(journalRows(db, realpathSync(file)).map(({ email, state: s }) => ({ email, state: s }))).toEqual([
      { email: 'a@x.org', state: 'sent' },
      { email: 'x@x.org', state: 'in-flight' },
    ]);
    expect(storeDump(db).claims).toEqual([
      expect.objectContaining({ identity: X, state: 'sending', over: 'in-doubt', pid: killed.child.pid }),
    ]);
    expect(await plainClaim(state, X)).toBe('stopped');

    // A again, no --resend-* at all.
    const second: string[] = [];
    const planned = await runA(state, file, false, true, second);
    expect(planned).toEqual(['b@x.org']);
    expect({ sentByPlainRun: second.includes('x@x.org'), doubtAfter: await plainClaim(state, X) }).toEqual({
      sentByPlainRun: false,
      // A's dead claim still stands for every other run: stopped while sending it (in doubt).
      doubtAfter: 'stopped',
    });
  }, 30_000);
});
