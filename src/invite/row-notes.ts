// What a bulk send's worker (bulk-runner.ts) writes of a row around its request: the row in flight in the
// run's journal before it leaves (with its claim), and after it the outcome (with the claim settled).
import type { RunState } from './bulk-run-state.js';
import type { PlannedRow } from './invite-file.js';
import type { RequestResult } from './row-results.js';
import type { JournalEntry, RowGuard } from './store/index.js';

export interface NotesOptions {
  guard: RowGuard;
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

/** The entry on disk before the request leaves: a crash from then on leaves the row in doubt, never forgotten. */
export function inFlightEntry(options: NotesOptions, noted: NotedRow): JournalEntry {
  return {
    ...entry(options, noted),
    state: 'in-flight',
    ...(options.resending.has(noted.key) && { resend: true }),
  };
}

/**
 * The outcome into the journal and the record, not waited for: the worker claims its next row meanwhile
 * (both share one transaction when they come in one turn of the event loop). A failure to write it ends
 * the run: the row stays in flight in the journal, so in doubt for the next run.
 */
export function noteOutcome(
  options: NotesOptions,
  run: Pick<RunState, 'track' | 'journalFailed'>,
  noted: NotedRow,
  result: RequestResult,
  requestedAt: string,
): void {
  const outcome: JournalEntry =
    result.state === 'sent'
      ? { ...entry(options, noted), state: result.state }
      : {
          ...entry(options, noted),
          state: result.state,
          requestedAt,
          reason: result.reason,
          ...(result.status !== undefined && { status: result.status }),
        };
  run.track(options.guard.end(noted.row, outcome).catch((error: unknown) => run.journalFailed(error)));
}
