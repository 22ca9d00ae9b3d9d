// What a bulk send's worker (bulk-runner.ts) writes of a row around its request: the row in flight in the
// run's journal before it leaves, and after it the outcome, in the journal and settled in the record.
import type { RunState } from './bulk-run-state.js';
import type { PlannedRow } from './invite-file.js';
import type { RequestResult } from './row-results.js';
import type { Journal, RowGuard } from './store/index.js';

export interface NotesOptions {
  journal: Journal;
  guard?: RowGuard;
  /** Keys of rows that were in doubt and are sent again on purpose (--resend-in-doubt). */
  resending: Set<string>;
  now(): Date;
}

/** A row as its journal entries name it: its key, and its body's hash (bodyHash), taken once a row. */
export interface NotedRow {
  row: PlannedRow;
  key: string;
  hash: string;
}

/** A row's journal entry but its state. */
function entry(options: NotesOptions, { row, key, hash }: NotedRow) {
  return {
    key,
    line: row.line,
    at: options.now().toISOString(),
    email: row.body.email,
    schoolId: row.body.schoolId,
    bodyHash: hash,
  };
}

/** On disk before the request leaves: a crash from here on leaves the row in doubt, never forgotten. */
export async function markInFlight(options: NotesOptions, noted: NotedRow): Promise<void> {
  try {
    await options.journal.record([
      {
        ...entry(options, noted),
        state: 'in-flight',
        ...(options.resending.has(noted.key) && { resend: true }),
      },
    ]);
  } catch (error) {
    // Nothing left: the claim is let go, and the broken journal ends the run.
    await options.guard?.settle(noted.row, 'failed');
    throw error;
  }
}

/**
 * The outcome into the journal and the record, not waited for: the worker claims its next row meanwhile
 * (this settle and that claim share one batch of the record), and that row's in-flight entry follows this
 * outcome into the journal, so it is on disk before the next request leaves. The record may learn the
 * outcome first: a kill in between leaves the row in flight in the journal and sent in the record, which
 * the next run skips (sent, by the record).
 */
export function noteOutcome(
  options: NotesOptions,
  run: Pick<RunState, 'track' | 'journalFailed'>,
  noted: NotedRow,
  result: RequestResult,
  requestedAt: string,
): void {
  const outcome =
    result.state === 'sent'
      ? { ...entry(options, noted), state: result.state }
      : {
          ...entry(options, noted),
          state: result.state,
          requestedAt,
          reason: result.reason,
          ...(result.status !== undefined && { status: result.status }),
        };
  run.track(options.journal.record([outcome]).catch((error: unknown) => run.journalFailed(error)));
  if (options.guard) run.track(options.guard.settle(noted.row, result.state));
}
