// The RowGuard of `invite send --file`: each row is claimed in roster's record before its request leaves,
// in the transaction that writes its in-flight entry in the run's journal, and settled after it in the
// transaction that writes its outcome (and, sent, its record entry): a run of another file never sends it
// meanwhile, a row this run leaves in doubt stays in doubt for every other run too, and a kill at any
// instant leaves the journal, the record and the claim saying the same. A row taken over another run's
// doubt (--resend-*) and not sent is in doubt again.

import { hostname } from 'node:os';
import { basename } from 'node:path';
import type { InvitationBody } from '../../api/enrollment.js';
import { MAX_RETRIES, MAX_RETRY_AFTER_MS } from '../../api/retry.js';
import type { PlannedRow } from '../invite-file.js';
import { type ClaimingRun, isCommandRun } from './claims.js';
import { keyOf, rowVerdict, type Withheld } from './decide.js';
import type { Journal, JournalEntry } from './journal.js';
import { invitationIdentity, type SentEntry, type SentRecord } from './sent-record.js';

/** Keeps other runs (other files) from sending a row while this run does, and after it. */
export interface RowGuard {
  /**
   * Before the row's request: 'go' once this run holds the row (waiting while another run sends it) and
   * `inFlight` is on disk, else what becomes of the row instead; 'aborted' when `signal` fired while
   * waiting. Throws when the database was deleted or replaced since the run began (database.ts).
   */
  begin(row: PlannedRow, inFlight: JournalEntry, signal: AbortSignal): Promise<'go' | 'aborted' | Withheld>;
  /** After it: `outcome` in the journal, the claim settled (and, sent, the record told), on disk together. */
  end(row: PlannedRow, outcome: JournalEntry): Promise<void>;
}

export interface GuardOptions {
  /** This run: its file's real path, the file as given (named to other runs), and when its journal began. */
  run: ClaimingRun;
  /** --resend-sent: rows recorded sent by other runs are sent again (never those in doubt: --resend-in-doubt). */
  resendSent: boolean;
  /** --resend-in-doubt: rows in doubt, in this run's journal or another's claim, are sent again. */
  resendInDoubt: boolean;
  /** Keys of this run's own in-doubt rows being sent again. */
  resending: Set<string>;
  /** The HTTP timeout of one attempt (--timeout), which bounds how long a row's claim may be held. */
  timeoutMs: number;
  now(): Date;
  /** Told when a row has waited a few seconds for another run. */
  info(message: string): void;
}

/**
 * The longest a row's request can take: every attempt timing out (a 401 replayed once), and the longest
 * pauses a server may ask for between them, with a minute to spare. Past it, a claim nobody settled was
 * left by a run that stopped or hangs, and other runs stop waiting for it.
 */
export function claimHoldMs(timeoutMs: number): number {
  return (MAX_RETRIES + 2) * timeoutMs + MAX_RETRIES * MAX_RETRY_AFTER_MS + 60_000;
}

export function recordGuard(record: SentRecord, journal: Journal, options: GuardOptions): RowGuard {
  /** Rows this run took over another run's doubt: in doubt again unless this run has them confirmed sent. */
  const over = new Set<string>();
  return {
    async begin(row, inFlight, signal) {
      const again = options.resending.has(keyOf(row));
      const outcome = await record.claim(identityOf(row), options.run, {
        // Recorded sent means some run had it confirmed: even this run's own doubt is settled by that.
        ignoreSent: options.resendSent,
        // --resend-sent is for rows confirmed sent: another run's doubt is left alone (--resend-in-doubt is for it).
        ignoreDoubt: options.resendInDoubt || again,
        signal,
        holdMs: claimHoldMs(options.timeoutMs),
        onWait: (other, until) =>
          options.info(
            `Line ${row.line} waits for another roster run (pid ${other.pid}${other.host && other.host !== hostname() ? ` on ${other.host}` : ''}${other.file ? `, ${other.file}` : ''}) sending the same invitation; at most until ${Number.isFinite(until) ? `${new Date(until).toISOString()} by this machine's clock` : 'it ends'}.`,
          ),
        alsoWhenClaimed: () => journal.write([inFlight]),
      });
      if (outcome.kind === 'claimed' && outcome.over) over.add(identityOf(row));
      return rowVerdict(outcome);
    },
    end(row, outcome) {
      const identity = identityOf(row);
      const sent = outcome.state === 'sent';
      // Another run's doubt stands until this run has the invitation confirmed sent: a failure now says
      // nothing of what that run's request did.
      const doubtOver = !sent && over.has(identity);
      // The same for this file's own earlier doubt, sent again (--resend-in-doubt) and not confirmed.
      const again = !sent && options.resending.has(keyOf(row));
      over.delete(identity);
      return record.batch(() => {
        journal.write([outcome]);
        if (sent) record.note([sentEntry(row.body, options.now(), fileRunName(options.run.file))]);
        const doubt = outcome.state === 'in-doubt' || doubtOver || again;
        record.release(identity, options.run, doubt ? 'in-doubt' : 'done', doubtOver);
      });
    },
  };
}

/** An invitation confirmed sent, as roster's record of sent invitations keeps it. */
export function sentEntry(body: InvitationBody, at: Date, by?: string): SentEntry {
  return {
    email: body.email,
    schoolId: body.schoolId,
    ...(body.schoolYearId !== undefined && { schoolYearId: body.schoolYearId }),
    sentAt: at.toISOString(),
    ...(by !== undefined && { by }),
  };
}

/** A file run as the record names it (SentEntry.by): the file's name, short, for every line it sends. */
export const fileRunName = (file: string | undefined) => (file === undefined ? undefined : basename(file));

/**
 * The run of a claim as the record names runs (SentEntry.by): a file run's file name; a command's own run
 * (a single send: commandRun) by its name without backticks or "roster ".
 */
export function claimRunName(claim: ClaimingRun): string | undefined {
  if (!isCommandRun(claim.run)) return fileRunName(claim.file);
  return claim.file?.replaceAll('\u0060', '').replace(/^roster /, '');
}

export const identityOf = (row: PlannedRow) =>
  invitationIdentity(row.body.email, row.body.schoolId, row.body.schoolYearId);
