// Sends planned rows with bounded concurrency, journaling each row before its request (in-flight) and after
// it (sent, failed or in-doubt). Stops taking new rows on interrupt or on an error every later row would
// meet too (credentials, permission, an unreachable server); rows already in flight always finish.
import { ApiError, ForeignAnswerError, RosterError } from '../errors.js';
import { invitationKey } from './invitation.js';
import type { PlannedRow } from './invite-file.js';
import { bodyHash, type Journal } from './journal.js';
import type { SentEntry, SentRecord } from './sent-record.js';

export type RowResult =
  | { state: 'sent'; message: string }
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
  /** roster's record of sent invitations for this destination: every row confirmed sent is added. */
  record?: SentRecord;
  /** Asked just before each request: when another run has sent this row meanwhile, when it did. */
  sentElsewhere?(row: PlannedRow): string | undefined;
  concurrency: number;
  signal: AbortSignal;
  /** Keys of rows that were in doubt and are sent again on purpose (--resend-in-doubt). */
  resending: Set<string>;
  send(row: PlannedRow): Promise<{ message: string }>;
  now(): Date;
  onProgress(counts: RunCounts): void;
  /** A row was sent but roster could not note it in its record: said, never a failure of the row or run. */
  onRecordError?(error: unknown): void;
}

export interface RunOutcome {
  /** By row key (invitationKey). */
  results: Map<string, RowResult>;
  /** The error that made the run stop taking rows, when one did. */
  stoppedBy?: RosterError;
}

export async function sendRows(options: RunnerOptions): Promise<RunOutcome> {
  const { rows, journal, signal } = options;
  const results = new Map<string, RowResult>();
  const counts: RunCounts = { sent: 0, failed: 0, inDoubt: 0, remaining: rows.length };
  let stoppedBy: RosterError | undefined;
  let next = 0;

  const entry = (row: PlannedRow, key: string) => ({
    key,
    line: row.line,
    at: options.now().toISOString(),
    email: row.body.email,
    schoolId: row.body.schoolId,
    bodyHash: bodyHash(row.body),
  });

  async function worker(): Promise<void> {
    while (!signal.aborted && stoppedBy === undefined && next < rows.length) {
      const row = rows[next++]!;
      const key = invitationKey(row.body.email, row.body.schoolId);
      counts.remaining--;
      const sentAt = options.sentElsewhere?.(row);
      if (sentAt !== undefined) {
        results.set(key, { state: 'elsewhere', sentAt });
        options.onProgress({ ...counts });
        continue;
      }
      // On disk before the request leaves: a crash from here on leaves the row in doubt, never forgotten.
      await journal.record([
        {
          ...entry(row, key),
          state: 'in-flight',
          ...(options.resending.has(key) && { resend: true }),
        },
      ]);
      let result: Exclude<RowResult, { state: 'elsewhere' }>;
      try {
        result = { state: 'sent', message: (await options.send(row)).message };
      } catch (error) {
        const { outcome, stops } = classify(error);
        result = outcome;
        if (stops)
          stoppedBy ??= error instanceof RosterError ? error : new RosterError('failure', outcome.reason);
      }
      await journal.record([
        result.state === 'sent'
          ? { ...entry(row, key), state: 'sent' }
          : {
              ...entry(row, key),
              state: result.state,
              reason: result.reason,
              ...(result.status !== undefined && { status: result.status }),
            },
      ]);
      if (result.state === 'sent') {
        // The invitation went out (and its journal says so): failing to note it must not read as a failure.
        await options.record?.add([sentEntry(row, options.now())]).catch((error: unknown) => {
          options.onRecordError?.(error);
        });
      }
      results.set(key, result);
      if (result.state === 'sent') counts.sent++;
      else if (result.state === 'failed') counts.failed++;
      else counts.inDoubt++;
      options.onProgress({ ...counts });
    }
  }

  const workers = Array.from({ length: Math.min(options.concurrency, rows.length) }, worker);
  const settled = await Promise.allSettled(workers);
  // A journal that cannot be written is the one failure that must end the run as it is.
  const broken = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (broken) throw broken.reason;
  return { results, ...(stoppedBy && { stoppedBy }) };
}

/** A row confirmed sent, as roster's record of sent invitations keeps it. */
export function sentEntry(row: PlannedRow, at: Date): SentEntry {
  return {
    email: row.body.email,
    schoolId: row.body.schoolId,
    ...(row.body.schoolYearId !== undefined && { schoolYearId: row.body.schoolYearId }),
    sentAt: at.toISOString(),
  };
}

/**
 * What a failed request means for its row. `failed`: the server certainly did not send the e-mail (it
 * answered with a refusal, or the request never left), so a re-run retries it. `in-doubt`: it may have
 * been sent (the connection broke after the request went out, or the server failed part-way with a 5xx
 * other than 503), so it is never sent again without --resend-in-doubt.
 */
export function classify(error: unknown): {
  outcome: RowResult & { state: 'failed' | 'in-doubt' };
  stops: boolean;
} {
  if (error instanceof ApiError) {
    const definite = error.status < 500 || error.status === 503;
    return {
      outcome: { state: definite ? 'failed' : 'in-doubt', reason: error.message, status: error.status },
      // Credentials or permission problems would fail every later row the same way.
      stops: error.code === 'auth' || error.code === 'forbidden',
    };
  }
  if (error instanceof RosterError) {
    // A cut connection concerns one row; an answer that is not the API's (a 303, a sign-in page) every row.
    if (error.code === 'outcome-unknown')
      return {
        outcome: { state: 'in-doubt', reason: error.message },
        stops: error instanceof ForeignAnswerError,
      };
    // 'api': a refusal in a success envelope. Anything else (network, credentials, a redirect) never
    // reached the service, since the client turns a request that may have arrived into outcome-unknown;
    // it would stop every later row too.
    return { outcome: { state: 'failed', reason: error.message }, stops: error.code !== 'api' };
  }
  // A bug of ours, possibly after the request went out: assume it may have been sent, and stop.
  const message = error instanceof Error ? error.message : String(error);
  return { outcome: { state: 'in-doubt', reason: `unexpected failure: ${message}` }, stops: true };
}
