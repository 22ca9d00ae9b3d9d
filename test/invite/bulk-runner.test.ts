import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NetworkError } from '../../src/api/transport.js';
import { ApiError, ForeignAnswerError, InDoubtError, RosterError } from '../../src/errors.js';
import { CLAIM_FRESH_MS, classify, sendRows } from '../../src/invite/bulk-runner.js';
import { invitationKey } from '../../src/invite/invitation.js';
import type { PlannedRow } from '../../src/invite/invite-file.js';
import { contentHash, Journal } from '../../src/invite/store/index.js';
import { tempDir } from '../helpers/context.js';

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
/** Each row's last entry in the journal on disk, by key (the journal keeps no run's entries in memory). */
function journaled(path: string): Map<string, { state: string }> {
  const entries = readFileSync(path, 'utf8').trim().split('\n').slice(1);
  return new Map(entries.map((line) => JSON.parse(line)).map((e) => [e.key, e]));
}

const openJournal = () =>
  Journal.open(
    join(tempDir(), 'j.jsonl'),
    {
      journal: 'roster invite send',
      version: 1,
      file: '/f.csv',
      destination: { baseUrl: 'https://a.example/v1', clientId: 'c1' },
      sha256: contentHash(''),
    },
    new Date(),
  );

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
  it('never has more than `concurrency` requests in flight, and journals each row before and after', async () => {
    const journal = await openJournal();
    let inFlight = 0;
    let peak = 0;
    const outcome = await sendRows({
      rows: rows(30),
      journal,
      concurrency: 4,
      signal: new AbortController().signal,
      resending: new Set(),
      send: async (row) => {
        expect(journaled(journal.path).get(invitationKey(row.body.email, row.body.schoolId))?.state).toBe(
          'in-flight',
        );
        peak = Math.max(peak, ++inFlight);
        await new Promise((r) => setTimeout(r, 2));
        inFlight--;
        return { message: 'ok' };
      },
      now: () => new Date(),
      onProgress: () => {},
    });
    await journal.close();
    expect(peak).toBe(4);
    expect([...outcome.results.values()].every((r) => r.state === 'sent')).toBe(true);
    expect([...journaled(journal.path).values()].every((e) => e.state === 'sent')).toBe(true);
  });

  it("keeps the server's message of each sent row only when asked (--json's report); else none is held", async () => {
    for (const keepMessages of [true, false]) {
      const journal = await openJournal();
      const outcome = await sendRows({
        rows: rows(3),
        journal,
        concurrency: 2,
        signal: new AbortController().signal,
        resending: new Set(),
        send: async (row) => ({ message: `Invitation sent to ${row.body.email}` }),
        keepMessages,
        now: () => new Date(),
        onProgress: () => {},
      });
      await journal.close();
      expect([...outcome.results.values()]).toEqual(
        keepMessages
          ? ['p0', 'p1', 'p2'].map((p) => ({ state: 'sent', message: `Invitation sent to ${p}@x.org` }))
          : Array(3).fill({ state: 'sent' }),
      );
    }
  });

  it('keeps results by row and journal entries by e-mail and school; marks rows sent again on purpose', async () => {
    const journal = await openJournal();
    const [first, second] = rows(2);
    const resent = invitationKey(second!.body.email, second!.body.schoolId);
    const outcome = await sendRows({
      rows: [first!, second!],
      journal,
      concurrency: 1,
      signal: new AbortController().signal,
      resending: new Set([resent]),
      send: async () => ({ message: 'ok' }),
      now: () => new Date(),
      onProgress: () => {},
    });
    await journal.close();
    expect(outcome.results.size).toBe(2);
    expect([outcome.results.get(0), outcome.results.get(1)]).toEqual([{ state: 'sent' }, { state: 'sent' }]);
    const entries = readFileSync(journal.path, 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => JSON.parse(l));
    expect(entries.filter((e) => e.resend).map((e) => e.key)).toEqual([resent]);
    expect(entries.every((e) => typeof e.bodyHash === 'string' && e.line >= 2)).toBe(true);
  });

  it('an abort stops taking rows but lets the ones in flight finish', async () => {
    const journal = await openJournal();
    const controller = new AbortController();
    let started = 0;
    const outcome = await sendRows({
      rows: rows(20),
      journal,
      concurrency: 3,
      signal: controller.signal,
      resending: new Set(),
      send: async () => {
        if (++started === 5) controller.abort();
        await new Promise((r) => setTimeout(r, 5));
        return { message: 'ok' };
      },
      now: () => new Date(),
      onProgress: () => {},
    });
    await journal.close();
    expect(outcome.results.size).toBe(started);
    expect(started).toBeLessThan(8);
    expect([...journaled(journal.path).values()].filter((e) => e.state === 'in-flight')).toHaveLength(0);
  });

  it('an authentication failure stops the run after the rows in flight', async () => {
    const journal = await openJournal();
    const outcome = await sendRows({
      rows: rows(20),
      journal,
      concurrency: 2,
      signal: new AbortController().signal,
      resending: new Set(),
      send: async () => {
        throw new ApiError('auth', 401, 'token rejected');
      },
      now: () => new Date(),
      onProgress: () => {},
    });
    await journal.close();
    expect(outcome.stoppedBy?.message).toBe('token rejected');
    expect(outcome.results.size).toBeLessThanOrEqual(2);
  });
});

describe('sendRows with a guard (claims in roster’s record)', () => {
  const guardLog = () => {
    const calls: string[] = [];
    const guard = {
      claim: async (row: PlannedRow) => {
        calls.push(`claim ${row.body.email}`);
        return row.body.email === 'p1@x.org'
          ? ({ state: 'in-doubt', reason: 'another run was stopped while sending it' } as const)
          : ('go' as const);
      },
      settle: async (row: PlannedRow, outcome: string) => {
        calls.push(`settle ${row.body.email} ${outcome}`);
      },
      flush: async () => {
        calls.push('flush');
      },
      checkRecord: () => {},
    };
    return { calls, guard };
  };

  /**
   * sendRows of `count` rows under guardLog's guard, each request logged (`send <email>`); `before` runs as
   * a row's request leaves, and may throw for it.
   */
  async function guarded(
    count: number,
    concurrency: number,
    before: (email: string) => void = () => {},
    now = () => new Date(),
  ) {
    const journal = await openJournal();
    const { calls, guard } = guardLog();
    const outcome = await sendRows({
      rows: rows(count),
      journal,
      guard,
      concurrency,
      signal: new AbortController().signal,
      resending: new Set(),
      send: async (row) => {
        calls.push(`send ${row.body.email}`);
        before(row.body.email);
        return { message: 'ok' };
      },
      now,
      onProgress: () => {},
    });
    await journal.close();
    return { calls, outcome, journal };
  }

  it('claims the rows ahead of their requests, settles each after its own, and flushes the settles at the end; a row withheld is neither journaled nor sent', async () => {
    const { calls, outcome, journal } = await guarded(3, 1, (email) => {
      if (email === 'p2@x.org') throw new ApiError('api', 400, 'refused');
    });
    expect(calls).toEqual([
      'claim p0@x.org',
      'claim p1@x.org',
      'claim p2@x.org',
      'send p0@x.org',
      'settle p0@x.org sent',
      'send p2@x.org',
      'settle p2@x.org failed',
      'flush',
    ]);
    expect(outcome.results.get(1)).toEqual({
      state: 'in-doubt',
      reason: 'another run was stopped while sending it',
    });
    expect(journaled(journal.path).has('p1@x.org s1')).toBe(false);
  });

  it('a journal that fails after a confirmed send still settles the row as sent (the record learns it), then ends the run', async () => {
    const journal = await openJournal();
    const { calls, guard } = guardLog();
    const record = journal.record.bind(journal);
    let writes = 0;
    journal.record = async (entries) => {
      if (++writes === 2) throw new RosterError('failure', 'disk full');
      return record(entries);
    };
    await expect(
      sendRows({
        rows: rows(1),
        journal,
        guard,
        concurrency: 1,
        signal: new AbortController().signal,
        resending: new Set(),
        send: async () => ({ message: 'ok' }),
        now: () => new Date(),
        onProgress: () => {},
      }),
    ).rejects.toThrow('disk full');
    await journal.close();
    expect(calls).toEqual(['claim p0@x.org', 'settle p0@x.org sent', 'flush']);
  });

  it('claims a batch of rows at once, half a window ahead of the workers, not one claim per request', async () => {
    const { calls } = await guarded(40, 2);
    // 16 claims (the window at concurrency 2), then 8 more each time 8 of them were taken.
    const firstSend = calls.indexOf('send p0@x.org');
    expect(calls.slice(0, firstSend)).toEqual(Array.from({ length: 16 }, (_, i) => `claim p${i}@x.org`));
    expect(calls.filter((c) => c.startsWith('claim'))).toHaveLength(40);
    // Every row sent was claimed first (p1 is withheld: another run's, never sent).
    for (let i = 0; i < 40; i++)
      if (i !== 1) expect(calls.indexOf(`claim p${i}@x.org`)).toBeLessThan(calls.indexOf(`send p${i}@x.org`));
    expect(calls).not.toContain('send p1@x.org');
  });

  it('releases the rows it claimed ahead but never sent when the run stops (an authentication failure): each settled once, as unsent', async () => {
    const { calls, outcome } = await guarded(30, 1, (email) => {
      if (email === 'p3@x.org') throw new ApiError('auth', 401, 'token rejected');
    });
    expect(outcome.stoppedBy?.message).toBe('token rejected');
    expect(calls.filter((c) => c.startsWith('send'))).toEqual([
      'send p0@x.org',
      'send p2@x.org',
      'send p3@x.org',
    ]);
    // p1 is withheld (in doubt elsewhere): never this run's, never settled by it.
    expect(calls.filter((c) => c.startsWith('settle'))).toEqual([
      'settle p0@x.org sent',
      'settle p2@x.org sent',
      'settle p3@x.org failed',
      ...Array.from({ length: 12 }, (_, i) => `settle p${i + 4}@x.org unsent`),
    ]);
    expect(calls.at(-1)).toBe('flush');
  });

  it('takes a claim again when its request leaves more than CLAIM_FRESH_MS after it was taken', async () => {
    let clock = Date.parse('2026-01-01T00:00:00Z');
    const { calls } = await guarded(
      3,
      1,
      // A slow request: the rows claimed with it wait longer than a claim stays fresh.
      (email) => {
        if (email === 'p0@x.org') clock += CLAIM_FRESH_MS + 1;
      },
      () => new Date(clock),
    );
    expect(calls.filter((c) => !c.startsWith('settle') && c !== 'flush')).toEqual([
      'claim p0@x.org',
      'claim p1@x.org',
      'claim p2@x.org',
      'send p0@x.org',
      'claim p2@x.org',
      'send p2@x.org',
    ]);
  });

  it("a failure that stops the run ends a worker's wait for another run's row at once, not after the claim's hold", async () => {
    const journal = await openJournal();
    const events: string[] = [];
    const guard = {
      claim: async (row: PlannedRow, signal: AbortSignal, ahead?: boolean) => {
        if (row.body.email !== 'p1@x.org') return 'go' as const;
        if (ahead) return 'later' as const;
        // Held by another live run: waited for until the run is told to stop.
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
        events.push('wait for p1 ended');
        return 'aborted' as const;
      },
      settle: async () => {},
      flush: async () => {},
      checkRecord: () => {},
    };
    const outcome = await sendRows({
      rows: rows(2),
      journal,
      guard,
      concurrency: 2,
      signal: new AbortController().signal,
      resending: new Set(),
      send: async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        throw new ApiError('auth', 401, 'token rejected');
      },
      now: () => new Date(),
      onProgress: () => {},
    });
    await journal.close();
    expect(outcome.stoppedBy?.message).toBe('token rejected');
    expect(events).toEqual(['wait for p1 ended']);
  }, 5_000);
});
