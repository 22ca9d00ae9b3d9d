// sendRows: N workers, each row begun (claimed + journaled in flight) before its request and ended (outcome
// journaled, claim settled, record told) after it, through the run's RowGuard: a real one over the
// destination's database (helpers/claims.ts's guardedRun, read back straight from SQLite), or a fake one
// that logs what the runner asks of it.
import { describe, expect, it } from 'vitest';
import { NetworkError } from '../../src/api/transport.js';
import { ApiError, ForeignAnswerError, InDoubtError, RosterError } from '../../src/errors.js';
import { classify, sendRows } from '../../src/invite/bulk-runner.js';
import { invitationKey } from '../../src/invite/invitation.js';
import type { PlannedRow } from '../../src/invite/invite-file.js';
import type { JournalEntry, RowGuard } from '../../src/invite/store/index.js';
import { guardedRun, inDoubtByC } from '../helpers/claims.js';
import { tempDir } from '../helpers/context.js';
import { claimRows, journalRows, recordRows, storeDump, storeOf } from '../helpers/store.js';

const rows = (n: number): PlannedRow[] =>
  Array.from({ length: n }, (_, i) => ({
    line: i + 2,
    body: {
      email: `p${i}@x.org`,
      schoolId: 's1',
      scopes: ['fillEnrollment'],
      studentCount: 1,
      sentByUserId: 'u1',
    },
  }));
const keyOf = (row: PlannedRow) => invitationKey(row.body.email, row.body.schoolId);

/** A run of /data/f.csv over a real database in a new state folder. */
async function realRun() {
  const state = tempDir();
  const run = await guardedRun(state, 'f');
  /** Each row's last state in the journal on disk, by key. */
  const journaled = () => new Map(journalRows(storeOf(state), '/data/f.csv').map((e) => [e.key, e.state]));
  return { ...run, state, journaled };
}

const base = {
  signal: new AbortController().signal,
  resending: new Set<string>(),
  now: () => new Date(),
  onProgress: () => {},
};

describe('classify', () => {
  it.each([
    [new ApiError('api', 400, 'bad'), 'failed', false],
    [new ApiError('api', 409, 'conflict'), 'failed', false],
    [new ApiError('api', 503, 'busy'), 'failed', false],
    [new ApiError('api', 429, 'slow down'), 'failed', false],
    // The client throws these for answers that do not prove the API left the request alone.
    [new InDoubtError('a gateway 503', undefined, 503), 'in-doubt', false],
    [new InDoubtError('a 500', undefined, 500), 'in-doubt', false],
    [new ForeignAnswerError('outcome-unknown', 'a 403 page', undefined, 403), 'in-doubt', true],
    [new ApiError('auth', 401, 'nope'), 'failed', true],
    [new ApiError('forbidden', 403, 'nope'), 'failed', true],
    [new RosterError('outcome-unknown', 'maybe'), 'in-doubt', false],
    [new ForeignAnswerError('outcome-unknown', 'a sign-in page'), 'in-doubt', true],
    [new ForeignAnswerError('unexpected', 'redirected'), 'failed', true],
    [new NetworkError('refused', false, 'ECONNREFUSED'), 'failed', true],
    [new RosterError('api', 'success=false'), 'failed', false],
    [new TypeError('bug'), 'in-doubt', true],
  ])('%s → %s (stops: %s)', (error, state, stops) => {
    const result = classify(error);
    expect(result.outcome.state).toBe(state);
    expect(result.stops).toBe(stops);
    // The journal and the report keep the status of an answer, whichever way it went.
    expect(result.outcome.status).toBe((error as { status?: number }).status);
  });
});

describe('sendRows', () => {
  it('never has more than `concurrency` requests in flight; each row is in flight on disk before its request, and its outcome after', async () => {
    const run = await realRun();
    let inFlight = 0;
    let peak = 0;
    const outcome = await sendRows({
      ...base,
      rows: rows(30),
      guard: run.guard,
      concurrency: 4,
      send: async (row) => {
        expect(run.journaled().get(keyOf(row))).toBe('in-flight');
        expect(claimRows(storeOf(run.state)).map((c) => c.identity)).toContain(
          JSON.stringify([row.body.email, 's1', '']),
        );
        peak = Math.max(peak, ++inFlight);
        await new Promise((r) => setTimeout(r, 2));
        inFlight--;
        return { message: 'ok' };
      },
    });
    // Every outcome on disk when sendRows resolves, before the run closes.
    expect([...run.journaled().values()]).toEqual(Array(30).fill('sent'));
    expect(recordRows(storeOf(run.state))).toHaveLength(30);
    expect(claimRows(storeOf(run.state))).toEqual([]);
    await run.close();
    expect(peak).toBe(4);
    expect([...outcome.results.values()].every((r) => r.state === 'sent')).toBe(true);
  });

  it("keeps the server's message of each sent row only when asked (--json's report); else none is held", async () => {
    for (const keepMessages of [true, false]) {
      const run = await realRun();
      const outcome = await sendRows({
        ...base,
        rows: rows(3),
        guard: run.guard,
        concurrency: 2,
        send: async (row) => ({ message: `Invitation sent to ${row.body.email}` }),
        keepMessages,
      });
      await run.close();
      expect([...outcome.results.values()]).toEqual(
        keepMessages
          ? ['p0', 'p1', 'p2'].map((p) => ({ state: 'sent', message: `Invitation sent to ${p}@x.org` }))
          : Array(3).fill({ state: 'sent' }),
      );
    }
  });

  it('keeps results by row and journal entries by e-mail and school; marks rows sent again on purpose', async () => {
    const run = await realRun();
    const [first, second] = rows(2);
    const resent = keyOf(second!);
    const inFlight: unknown[][] = [];
    const outcome = await sendRows({
      ...base,
      rows: [first!, second!],
      guard: run.guard,
      concurrency: 1,
      resending: new Set([resent]),
      // Only the row sent again is marked so while it is in flight (what a run killed then leaves).
      send: async (row) => {
        const entry = storeDump(storeOf(run.state)).journal!.find((e) => e.key === keyOf(row));
        inFlight.push([entry?.key, entry?.state, entry?.resend]);
        if (row === first) throw new ApiError('api', 400, 'refused');
        return { message: 'ok' };
      },
    });
    expect([outcome.results.get(0), outcome.results.get(1)]).toEqual([
      { state: 'failed', reason: 'refused', status: 400 },
      { state: 'sent' },
    ]);
    const entries = storeDump(storeOf(run.state)).journal!;
    await run.close();
    expect(inFlight).toEqual([
      [keyOf(first!), 'in-flight', null],
      [resent, 'in-flight', 1],
    ]);
    // A row's last entry is its outcome.
    expect(entries.map((e) => [e.key, e.state, e.line])).toEqual([
      [keyOf(first!), 'failed', 2],
      [resent, 'sent', 3],
    ]);
    expect(entries.every((e) => typeof e.body_hash === 'string')).toBe(true);
    expect(entries[0]!.requested_at).toEqual(expect.any(String));
    expect(entries[0]!.status).toBe(400);
  });

  it("a row another run left in doubt is withheld: neither sent nor journaled, and that run's doubt stands", async () => {
    const state = tempDir();
    const p1 = JSON.stringify(['p1@x.org', 's1', '']);
    await inDoubtByC(state, p1);
    const run = await guardedRun(state, 'f');
    const sent: string[] = [];
    const outcome = await sendRows({
      ...base,
      rows: rows(3),
      guard: run.guard,
      concurrency: 2,
      send: async (row) => {
        sent.push(row.body.email);
        return { message: 'ok' };
      },
    });
    await run.close();
    expect(sent.sort()).toEqual(['p0@x.org', 'p2@x.org']);
    expect(outcome.results.get(1)).toEqual({
      state: 'in-doubt',
      reason: 'another run (/data/c.csv) could not tell whether it was sent; it may have been sent',
    });
    expect(journalRows(storeOf(state), '/data/f.csv').map((e) => [e.email, e.state])).toEqual([
      ['p0@x.org', 'sent'],
      ['p2@x.org', 'sent'],
    ]);
    expect(claimRows(storeOf(state))).toEqual([
      expect.objectContaining({ identity: p1, run: '/data/c.csv', state: 'in-doubt' }),
    ]);
  });

  it('an abort stops taking rows but lets the ones in flight finish, each journaled', async () => {
    const run = await realRun();
    const controller = new AbortController();
    let started = 0;
    const outcome = await sendRows({
      ...base,
      rows: rows(20),
      guard: run.guard,
      concurrency: 3,
      signal: controller.signal,
      send: async () => {
        if (++started === 5) controller.abort();
        await new Promise((r) => setTimeout(r, 5));
        return { message: 'ok' };
      },
    });
    const journaled = run.journaled();
    await run.close();
    expect(outcome.results.size).toBe(started);
    expect(started).toBeLessThan(8);
    expect([...journaled.values()]).toEqual(Array(started).fill('sent'));
  });

  it('an authentication failure stops the run after the rows in flight', async () => {
    const run = await realRun();
    const outcome = await sendRows({
      ...base,
      rows: rows(20),
      guard: run.guard,
      concurrency: 2,
      send: async () => {
        throw new ApiError('auth', 401, 'token rejected');
      },
    });
    const journaled = run.journaled();
    await run.close();
    expect(outcome.stoppedBy?.message).toBe('token rejected');
    expect(outcome.results.size).toBeLessThanOrEqual(2);
    expect([...journaled.values()]).toEqual(Array(outcome.results.size).fill('failed'));
  });
});

describe('sendRows and its RowGuard', () => {
  /** A guard that logs each begin and end; p1 is withheld (another run stopped while sending it). */
  const guardLog = (overrides: Partial<RowGuard> = {}) => {
    const calls: string[] = [];
    const entries: JournalEntry[] = [];
    const guard: RowGuard = {
      begin: async (row, inFlight) => {
        calls.push(`begin ${row.body.email}`);
        entries.push(inFlight);
        return row.body.email === 'p1@x.org'
          ? { state: 'in-doubt', reason: 'another run was stopped while sending it' }
          : 'go';
      },
      end: async (row, outcome) => {
        calls.push(`end ${row.body.email} ${outcome.state}`);
        entries.push(outcome);
      },
      ...overrides,
    };
    return { calls, entries, guard };
  };

  /** sendRows of `count` rows under `guard`, each request logged in `calls` (`send <email>`). */
  function guarded(
    count: number,
    concurrency: number,
    { calls, guard }: ReturnType<typeof guardLog>,
    before: (email: string) => void = () => {},
  ) {
    return sendRows({
      ...base,
      rows: rows(count),
      guard,
      concurrency,
      send: async (row) => {
        calls.push(`send ${row.body.email}`);
        before(row.body.email);
        return { message: 'ok' };
      },
    });
  }

  it('begins each row before its request and ends it after with its outcome; a row withheld is neither sent nor ended', async () => {
    const log = guardLog();
    const outcome = await guarded(3, 1, log, (email) => {
      if (email === 'p2@x.org') throw new ApiError('api', 400, 'refused');
    });
    expect(log.calls).toEqual([
      'begin p0@x.org',
      'send p0@x.org',
      'end p0@x.org sent',
      'begin p1@x.org',
      'begin p2@x.org',
      'send p2@x.org',
      'end p2@x.org failed',
    ]);
    expect(outcome.results.get(1)).toEqual({
      state: 'in-doubt',
      reason: 'another run was stopped while sending it',
    });
    // What begin is given is the in-flight entry; a failure's outcome says when that request left.
    const [p0, p0end, , p2, p2end] = log.entries;
    expect(p0).toMatchObject({ key: 'p0@x.org s1', line: 2, state: 'in-flight', email: 'p0@x.org' });
    expect(p0end).toMatchObject({ key: 'p0@x.org s1', line: 2, state: 'sent', bodyHash: p0!.bodyHash });
    expect(p2end).toMatchObject({
      key: 'p2@x.org s1',
      state: 'failed',
      status: 400,
      reason: 'refused',
      requestedAt: p2!.at,
    });
  });

  it('an end that fails (the journal cannot be written) after a confirmed send ends the run with that error, taking no more rows', async () => {
    const log = guardLog();
    let ends = 0;
    const end = log.guard.end;
    log.guard.end = async (row, outcome) => {
      await end(row, outcome);
      if (++ends === 1) throw new RosterError('failure', 'disk full');
    };
    await expect(guarded(5, 1, log)).rejects.toThrow('disk full');
    expect(log.calls.filter((c) => c.startsWith('send'))).toHaveLength(ends);
    expect(log.calls.filter((c) => c.startsWith('send')).length).toBeLessThan(3);
  });

  it('a begin that throws (the record deleted or replaced) stops the run: that row and every later one not started', async () => {
    const log = guardLog({
      begin: async (row) => {
        log.calls.push(`begin ${row.body.email}`);
        if (row.body.email === 'p2@x.org') throw new RosterError('failure', 'the record was deleted');
        return 'go';
      },
    });
    const outcome = await guarded(6, 1, log);
    expect(outcome.stoppedBy?.message).toBe('the record was deleted');
    expect(log.calls).toEqual([
      'begin p0@x.org',
      'send p0@x.org',
      'end p0@x.org sent',
      'begin p1@x.org',
      'send p1@x.org',
      'end p1@x.org sent',
      'begin p2@x.org',
    ]);
    expect([outcome.results.size, outcome.results.get(2)]).toEqual([2, undefined]);
  });

  it("a failure that stops the run ends a worker's wait for another run's row at once, not after the claim's hold", async () => {
    const events: string[] = [];
    const log = guardLog({
      begin: async (row, _inFlight, signal) => {
        if (row.body.email !== 'p1@x.org') return 'go';
        // Held by another live run: waited for until the run is told to stop.
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
        events.push('wait for p1 ended');
        return 'aborted';
      },
    });
    const outcome = await sendRows({
      ...base,
      rows: rows(2),
      guard: log.guard,
      concurrency: 2,
      send: async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        throw new ApiError('auth', 401, 'token rejected');
      },
    });
    expect(outcome.stoppedBy?.message).toBe('token rejected');
    expect(events).toEqual(['wait for p1 ended']);
    // p1 was never started: not a result.
    expect([outcome.results.size, outcome.results.get(1)]).toEqual([1, undefined]);
  }, 5_000);
});
