// Sends planned rows with bounded concurrency: N workers each take the next row, claim it from other runs
// and journal it in flight (one transaction: store/row-guard.ts), send it, and note its outcome (row-notes.ts:
// sent, failed or in-doubt); what they share is in one place (bulk-run-state.ts). Stops taking new rows on
// interrupt or on an error every later row would meet too (credentials, permission, an unreachable server);
// rows already in flight always finish.
import { ApiError, ForeignAnswerError, RosterError } from '../errors.js';
import { RunState } from './bulk-run-state.js';
import { invitationKey } from './invitation.js';
import type { PlannedRow } from './invite-file.js';
import { inFlightEntry, type NotedRow, noteOutcome } from './row-notes.js';
import { type RequestResult, type RowResult, type RowResults, type RunCounts, SENT } from './row-results.js';
import { bodyHash, type RowGuard } from './store/index.js';

export { type RowResult, RowResults, type RunCounts } from './row-results.js';

export interface RunnerOptions {
  rows: PlannedRow[];
  /** Claims each row in roster's record and journals it (which every row confirmed sent joins). */
  guard: RowGuard;
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

/** Sends `rows` with `concurrency` workers; resolves once every row taken is done and noted. */
export async function sendRows(options: RunnerOptions): Promise<RunOutcome> {
  const run = new RunState(options.rows.length, options.signal, options.onProgress);
  const workers = Array.from({ length: Math.min(options.concurrency, options.rows.length) }, () =>
    worker(options, run),
  );
  const settled = await Promise.allSettled(workers);
  run.endClaims();
  await run.noted();
  // A journal that cannot be written is the one failure that must end the run as it is.
  const broken = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (broken) throw broken.reason;
  if (run.journalFailure) throw run.journalFailure.error;
  return { results: run.results, ...(run.stoppedBy && { stoppedBy: run.stoppedBy }) };
}

/**
 * One of the run's workers: takes the next row, claims it and marks it in flight, sends it and notes its
 * outcome, until the run stops taking rows or none is left. A row withheld (sent elsewhere, in doubt) is
 * counted without a request.
 */
async function worker(options: RunnerOptions, run: RunState): Promise<void> {
  for (let index = run.take(); index !== undefined; index = run.take()) {
    const row = options.rows[index]!;
    const noted = { row, key: invitationKey(row.body.email, row.body.schoolId), hash: bodyHash(row.body) };
    const inFlight = inFlightEntry(options, noted);
    const claimed = await claim(options, run, noted, inFlight);
    if (claimed === 'aborted') {
      // Interrupted while another run held the row, or the record failed: not started, like every row after it.
      run.untake();
      return;
    }
    if (claimed !== 'go') {
      run.count(index, claimed);
      continue;
    }
    const result = await request(options, run, row);
    run.count(index, result);
    noteOutcome(options, run, noted, result, inFlight.at);
  }
}

/** The row claimed from other runs and journaled in flight: 'go', withheld, or 'aborted'. */
async function claim(
  options: RunnerOptions,
  run: RunState,
  noted: NotedRow,
  inFlight: ReturnType<typeof inFlightEntry>,
) {
  try {
    return await options.guard.begin(noted.row, inFlight, run.claimSignal);
  } catch (error) {
    // Unclaimed, a row could go out beside another run's: this one and every later row stay unsent.
    run.stopWith(error);
    return 'aborted' as const;
  }
}

/** The request, and what its answer (or its failure) means for the row. */
async function request(options: RunnerOptions, run: RunState, row: PlannedRow): Promise<RequestResult> {
  try {
    const { message } = await options.send(row);
    return options.keepMessages ? { state: 'sent', message } : SENT;
  } catch (error) {
    const { outcome, stops } = classify(error);
    if (stops) run.stopWith(error, outcome.reason);
    return outcome;
  }
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
