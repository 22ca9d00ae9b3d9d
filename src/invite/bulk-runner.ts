// Sends planned rows with bounded concurrency, journaling each row before its request (in-flight) and after
// it (sent, failed or in-doubt), and claiming it from other runs around both (RowGuard): claims are asked for
// a batch of rows ahead of the workers, so the record takes one lock and one fsync for many rows; a row
// something stands in the way of is claimed just before its request, and while a worker waits so, and at the
// end, the rows claimed ahead and not taken are released. Stops taking new rows on interrupt or on an error
// every later row would meet too (credentials, permission, an unreachable server); rows already in flight
// always finish.
import { ApiError, ForeignAnswerError, RosterError } from '../errors.js';
import { invitationKey } from './invitation.js';
import type { PlannedRow } from './invite-file.js';
import { bodyHash, type Journal, type RowGuard } from './store/index.js';

export type RowResult =
  /** The server's message, kept only when asked (keepMessages): a district's run holds a result per row. */
  | { state: 'sent'; message?: string }
  | { state: 'failed' | 'in-doubt'; reason: string; status?: number }
  /** Not sent: roster's record shows it sent by another run at `sentAt`. */
  | { state: 'elsewhere'; sentAt: string };

export interface RunCounts {
  sent: number;
  failed: number;
  inDoubt: number;
  remaining: number;
}

export interface RunnerOptions {
  rows: PlannedRow[];
  journal: Journal;
  /** Claims each row in roster's record of sent invitations (which every row confirmed sent joins). */
  guard?: RowGuard;
  concurrency: number;
  signal: AbortSignal;
  /** Keys of rows that were in doubt and are sent again on purpose (--resend-in-doubt). */
  resending: Set<string>;
  send(row: PlannedRow): Promise<{ message: string }>;
  /** Keep each sent row's message from the server (for --json's report of every row). */
  keepMessages?: boolean;
  now(): Date;
  onProgress(counts: RunCounts): void;
}

export interface RunOutcome {
  /** By the row's place in `rows`. */
  results: RowResults;
  /** The error that made the run stop taking rows, when one did. */
  stoppedBy?: RosterError;
}

/** Rows whose claims are asked for ahead of the workers; a new batch is asked for when half are taken. */
const claimsAhead = (concurrency: number) => Math.max(16, 4 * concurrency);

/**
 * A claim taken ahead is taken again when its row's request has not left this long after (earlier rows'
 * requests were slow): other runs wait for a claim at least a minute longer than a request can take
 * (row-guard.ts's claimHoldMs), and a claim taken again starts their wait anew.
 */
export const CLAIM_FRESH_MS = 20_000;

type Verdict = Awaited<ReturnType<RowGuard['claim']>>;

/** The result of every row sent whose message is not kept: one object for them all. */
const SENT: RowResult & { state: 'sent' } = Object.freeze({ state: 'sent' });

/**
 * Each row's result by its place in the run's rows: a byte a row, and an object only for a row with more
 * to tell than "sent" (a failure's reason, a kept message). A district's run held a key and a map entry
 * per row (about 80 bytes).
 */
export class RowResults {
  private readonly sent: Uint8Array;
  private readonly told = new Map<number, RowResult>();
  /** Rows given a result. */
  size = 0;

  constructor(rows: number) {
    this.sent = new Uint8Array(rows);
  }

  set(index: number, result: RowResult): void {
    if (this.get(index) === undefined) this.size++;
    if (result === SENT) this.sent[index] = 1;
    else this.told.set(index, result);
  }

  get(index: number): RowResult | undefined {
    return this.sent[index] === 1 ? SENT : this.told.get(index);
  }

  *values(): Generator<RowResult> {
    for (let i = 0; i < this.sent.length; i++) {
      const result = this.get(i);
      if (result) yield result;
    }
  }
}

export async function sendRows(options: RunnerOptions): Promise<RunOutcome> {
  const { rows, journal, signal } = options;
  const results = new RowResults(rows.length);
  const counts: RunCounts = { sent: 0, failed: 0, inDoubt: 0, remaining: rows.length };
  let stoppedBy: RosterError | undefined;
  let next = 0;
  /** Rows' outcomes on their way to the journal and to the record (claims settled), each dropped once there. */
  const noting = new Set<Promise<void>>();
  const track = (write: Promise<void>) => {
    noting.add(write);
    // A failed one stays, for the Promise.all below to throw.
    write.then(
      () => noting.delete(write),
      () => {},
    );
  };
  /** The first journal write that failed: the run takes no more rows, and throws it once the rest are done. */
  let journalFailure: { error: unknown } | undefined;

  /** A row's journal entry but its state; `hash` is its body's (bodyHash), taken once a row. */
  const entry = (row: PlannedRow, key: string, hash: string) => ({
    key,
    line: row.line,
    at: options.now().toISOString(),
    email: row.body.email,
    schoolId: row.body.schoolId,
    bodyHash: hash,
  });

  /** Ends every claim's wait for another run once the run stops taking rows (interrupted, or stopWith). */
  const stopClaims = new AbortController();
  const claimSignal = AbortSignal.any([signal, stopClaims.signal]);
  /** The run takes no more rows: the first error every later row would meet too. */
  const stopWith = (error: unknown, message = (error as Error).message) => {
    stoppedBy ??= error instanceof RosterError ? error : new RosterError('failure', message);
    stopClaims.abort();
  };
  /** Claims asked for ahead of the workers, by row index, each with when it was decided. */
  const ahead = new Map<number, Promise<{ verdict: Verdict; at: number }>>();
  /** Rows below this have had their claims asked for. */
  let claimedTo = 0;
  const window = claimsAhead(options.concurrency);

  /**
   * The row claimed from other runs: 'go', withheld, 'later' (asked ahead, something stood in the way), or
   * 'aborted' (interrupted, or the record failed).
   */
  async function claim(row: PlannedRow, early: boolean): Promise<Verdict> {
    try {
      return options.guard ? await options.guard.claim(row, claimSignal, early) : 'go';
    } catch (error) {
      // Unclaimed, a row could go out beside another run's: this one and every later row stay unsent.
      stopWith(error);
      return 'aborted';
    }
  }

  /** Workers claiming their row just before its request (it may wait for another run): while any does, no row is held ahead. */
  let waiting = 0;

  /**
   * The claim of row `index`: taken ahead with the rows after it when fewer than half a window were left
   * (asked in one turn of the event loop, they share one batch of the record), else (something stood in the
   * way, or the claim went stale) just before the request, where a row another run holds is waited for.
   */
  async function claimOf(index: number): Promise<Exclude<Verdict, 'later'>> {
    if (!options.guard) return 'go';
    // Rows below `index` were taken by workers already (claimed just before their requests while one waited).
    if (waiting === 0) claimedTo = Math.max(claimedTo, index);
    if (waiting === 0 && claimedTo - index <= window / 2) {
      const end = Math.min(rows.length, index + window);
      for (; claimedTo < end; claimedTo++) {
        const row = rows[claimedTo]!;
        // Fresh from before the claim was asked for: its deadline is counted from then.
        const at = options.now().getTime();
        ahead.set(
          claimedTo,
          claim(row, true).then((verdict) => ({ verdict, at })),
        );
      }
    }
    const taken = ahead.get(index);
    ahead.delete(index);
    if (taken) {
      const { verdict, at } = await taken;
      if (verdict === 'go' && options.now().getTime() - at <= CLAIM_FRESH_MS) return recordStillHeld(index);
      if (verdict !== 'go' && verdict !== 'later') return verdict;
    }
    // The row's claim taken ahead, if it is being let go, is let go first: a later "unsent" would undo this one.
    await releasing.get(index);
    return claimNow(index);
  }

  /** Just before the request: the row's claim, waiting if another run holds it; nothing held ahead meanwhile. */
  async function claimNow(index: number): Promise<Exclude<Verdict, 'later'>> {
    waiting++;
    try {
      // Two runs each waiting for a row the other holds ahead would wait out the whole hold.
      await releaseAhead();
      const verdict = await claim(rows[index]!, false);
      if (verdict === 'later') throw new Error('a claim asked just before its request was put off');
      return verdict;
    } finally {
      waiting--;
    }
  }

  /** A row claimed ahead goes only while the record it is claimed in is still the one other runs read. */
  function recordStillHeld(index: number): 'go' | 'aborted' {
    try {
      options.guard?.checkRecord();
      return 'go';
    } catch (error) {
      // Claimed in a record other runs no longer see: this row and every later one stay unsent.
      stopWith(error);
      if (options.guard) track(options.guard.settle(rows[index]!, 'unsent'));
      return 'aborted';
    }
  }

  /** Rows whose claims taken ahead are being let go: settled once their batch is written. */
  const releasing = new Map<number, Promise<void>>();

  /** Lets go of the rows claimed ahead that no worker has taken (claimed again when the workers reach them). */
  async function releaseAhead(): Promise<void> {
    const held = [...ahead];
    ahead.clear();
    claimedTo = next;
    await Promise.all(
      held.map(([index, taken]) => {
        const released = taken.then(({ verdict }) => {
          if (verdict === 'go' && options.guard) track(options.guard.settle(rows[index]!, 'unsent'));
          releasing.delete(index);
        });
        releasing.set(index, released);
        return released;
      }),
    );
  }

  /** On disk before the request leaves: a crash from here on leaves the row in doubt, never forgotten. */
  async function markInFlight(row: PlannedRow, key: string, hash: string): Promise<void> {
    try {
      await journal.record([
        { ...entry(row, key, hash), state: 'in-flight', ...(options.resending.has(key) && { resend: true }) },
      ]);
    } catch (error) {
      // Nothing left: the claim is let go, and the broken journal ends the run.
      await options.guard?.settle(row, 'failed');
      throw error;
    }
  }

  /** The request, and what its answer (or its failure) means for the row. */
  async function request(row: PlannedRow): Promise<Exclude<RowResult, { state: 'elsewhere' }>> {
    try {
      const { message } = await options.send(row);
      return options.keepMessages ? { state: 'sent', message } : SENT;
    } catch (error) {
      const { outcome, stops } = classify(error);
      if (stops) stopWith(error, outcome.reason);
      return outcome;
    }
  }

  function count(index: number, result: RowResult): void {
    results.set(index, result);
    if (result.state === 'sent') counts.sent++;
    else if (result.state === 'failed') counts.failed++;
    else if (result.state === 'in-doubt') counts.inDoubt++;
    options.onProgress({ ...counts });
  }

  /**
   * The outcome into the journal and the record, not waited for: the worker claims its next row meanwhile
   * (this settle and that claim share one batch of the record), and that row's in-flight entry follows this
   * outcome into the journal, so it is on disk before the next request leaves. The record may learn the
   * outcome first: a kill in between leaves the row in flight in the journal and sent in the record, which
   * the next run skips (sent, by the record).
   */
  function note(
    row: PlannedRow,
    key: string,
    hash: string,
    result: Exclude<RowResult, { state: 'elsewhere' }>,
    requestedAt: string,
  ): void {
    const outcome =
      result.state === 'sent'
        ? { ...entry(row, key, hash), state: result.state }
        : {
            ...entry(row, key, hash),
            state: result.state,
            requestedAt,
            reason: result.reason,
            ...(result.status !== undefined && { status: result.status }),
          };
    track(
      journal.record([outcome]).catch((error: unknown) => {
        journalFailure ??= { error };
        stopClaims.abort();
      }),
    );
    if (options.guard) track(options.guard.settle(row, result.state));
  }

  async function worker(): Promise<void> {
    while (!signal.aborted && stoppedBy === undefined && !journalFailure && next < rows.length) {
      const index = next++;
      const row = rows[index]!;
      const key = invitationKey(row.body.email, row.body.schoolId);
      counts.remaining--;
      const claimed = await claimOf(index);
      if (claimed === 'aborted') {
        // Interrupted while another run held the row: not started, like every row after it.
        counts.remaining++;
        break;
      }
      if (claimed !== 'go') {
        count(index, claimed);
        continue;
      }
      const hash = bodyHash(row.body);
      const requestedAt = options.now().toISOString();
      await markInFlight(row, key, hash);
      const result = await request(row);
      count(index, result);
      note(row, key, hash, result, requestedAt);
    }
  }

  const workers = Array.from({ length: Math.min(options.concurrency, rows.length) }, worker);
  const settled = await Promise.allSettled(workers);
  stopClaims.abort();
  await releaseAhead();
  await options.guard?.flush();
  await Promise.all(noting);
  // A journal that cannot be written is the one failure that must end the run as it is.
  const broken = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (broken) throw broken.reason;
  if (journalFailure) throw journalFailure.error;
  return { results, ...(stoppedBy && { stoppedBy }) };
}

/**
 * What a failed request means for its row, as the client decided it (api/post-outcome.ts): an ApiError is an
 * answer that proves the API did not act (a 429, the API's own 4xx, or its 503 with Retry-After), so the row `failed` and a re-run
 * retries it; 'outcome-unknown' means it may have been sent (a connection cut after sending, a gateway's
 * 503, a 500, a page that is not the API's), so it is `in-doubt`, never sent again without
 * --resend-in-doubt.
 */
export function classify(error: unknown): {
  outcome: RowResult & { state: 'failed' | 'in-doubt' };
  stops: boolean;
} {
  if (error instanceof ApiError) {
    return {
      outcome: { state: 'failed', reason: error.message, status: error.status },
      // Credentials or permission problems would fail every later row the same way.
      stops: error.code === 'auth' || error.code === 'forbidden',
    };
  }
  if (error instanceof RosterError) {
    // A cut connection or a gateway's 5xx concerns one row; an answer that is not the API's (a 303, a
    // sign-in page, a 4xx page) every row.
    if (error.code === 'outcome-unknown') {
      const status = (error as { status?: number }).status;
      return {
        outcome: { state: 'in-doubt', reason: error.message, ...(status !== undefined && { status }) },
        stops: error instanceof ForeignAnswerError,
      };
    }
    // 'api': a refusal in a success envelope. Anything else (network, credentials, a redirect) never
    // reached the service, since the client turns a request that may have arrived into outcome-unknown;
    // it would stop every later row too.
    return { outcome: { state: 'failed', reason: error.message }, stops: error.code !== 'api' };
  }
  // A bug of ours, possibly after the request went out: assume it may have been sent, and stop.
  const message = error instanceof Error ? error.message : String(error);
  return { outcome: { state: 'in-doubt', reason: `unexpected failure: ${message}` }, stops: true };
}
