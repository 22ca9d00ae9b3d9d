// The RowGuard of `invite send --file` over roster's record of sent invitations: each row is claimed there
// before its request leaves and settled after, so a run of another file never sends it meanwhile, and a row
// this run leaves in doubt stays in doubt for every other run too, until this file's run settles it. Rows
// are claimed a batch ahead of their requests where nothing stands in the way (invite/claims-ahead.ts), and settled
// with the next batch: one lock and one fsync per file for a batch of rows. A row claimed but never sent is
// released ('unsent'); if the run dies first, its journal shows the request never left, and other runs take
// the row (decide.ts). A row taken over another run's doubt (--resend-*) and not sent is in doubt again.

import { hostname } from 'node:os';
import { basename } from 'node:path';
import type { InvitationBody } from '../../api/enrollment.js';
import { MAX_RETRIES, MAX_RETRY_AFTER_MS } from '../../api/retry.js';
import type { PlannedRow } from '../invite-file.js';
import type { ClaimingRun } from './claims.js';
import { keyOf, rowVerdict, type Withheld } from './decide.js';
import { invitationIdentity, type SentEntry, type SentRecord } from './sent-record.js';

/** Keeps other runs (other files' journals) from sending a row while this run does, and after it. */
export interface RowGuard {
  /**
   * Before the row's request: 'go' once this run holds the row (waiting while another run sends it), else
   * what becomes of the row instead; 'aborted' when `signal` fired while waiting. `ahead`: a batch ahead of
   * the request, never waiting: 'later' when something stands in the way (ask again just before it).
   */
  claim(
    row: PlannedRow,
    signal: AbortSignal,
    ahead?: boolean,
  ): Promise<'go' | 'later' | 'aborted' | Withheld>;
  /**
   * After it, or when it never left ('unsent': claimed ahead, then not sent): never fails, a problem is the
   * guard's to report. May be written with the next claims (flush() writes what is queued now).
   */
  settle(row: PlannedRow, outcome: 'sent' | 'failed' | 'in-doubt' | 'unsent'): Promise<void>;
  flush(): Promise<void>;
  /**
   * Just before a request of a row claimed ahead: throws when the record the claim is in was deleted or
   * replaced since (other runs no longer see the claim).
   */
  checkRecord(): void;
}

export interface GuardOptions {
  /**
   * This run: its journal's path, the file it sends (named to other runs), and when its journal began (a
   * dead run's claims are read against that journal).
   */
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
  /** Told once, of the first problem noting an outcome (the row's outcome itself stands). */
  warn(message: string): void;
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

export function recordGuard(record: SentRecord, options: GuardOptions): RowGuard {
  let warned = false;
  /** Rows this run took over another run's doubt: in doubt again unless this run has them confirmed sent. */
  const over = new Set<string>();
  return {
    async claim(row, signal, ahead = false) {
      const again = options.resending.has(keyOf(row));
      // A row this file's earlier run left in doubt is claimed only just before its request: held ahead and
      // let go, its claim would say "done" while that earlier request may have reached the server.
      if (ahead && again) return 'later';
      const outcome = await record.claim(identityOf(row), options.run, {
        // Recorded sent means some run had it confirmed: even this run's own doubt is settled by that.
        ignoreSent: options.resendSent,
        // --resend-sent is for rows confirmed sent: another run's doubt is left alone (--resend-in-doubt is for it).
        ignoreDoubt: options.resendInDoubt || again,
        signal,
        holdMs: claimHoldMs(options.timeoutMs),
        ahead,
        onWait: (other, until) =>
          options.info(
            `Line ${row.line} waits for another roster run (pid ${other.pid}${other.host && other.host !== hostname() ? ` on ${other.host}` : ''}${other.file ? `, ${other.file}` : ''}) sending the same invitation; at most until ${Number.isFinite(until) ? `${new Date(until).toISOString()} by this machine's clock` : 'it ends'}.`,
          ),
      });
      if (outcome.kind === 'claimed' && outcome.over) over.add(identityOf(row));
      return rowVerdict(outcome);
    },
    async settle(row, state) {
      const identity = identityOf(row);
      // Another run's doubt stands until this run has the invitation confirmed sent: a failure now, or no
      // request at all, says nothing of what that run's request did.
      const doubtOver = state !== 'sent' && over.has(identity);
      // The same for this file's own earlier doubt, sent again (--resend-in-doubt) and not confirmed.
      const again = options.resending.has(keyOf(row));
      const doubt = state === 'in-doubt' || doubtOver || (state !== 'sent' && again);
      over.delete(identity);
      try {
        await record.settle(
          identity,
          options.run,
          doubt ? 'in-doubt' : 'done',
          state === 'sent' ? sentEntry(row.body, options.now(), fileRunName(options.run.file)) : undefined,
          // Nobody waits for it: it goes with the next batch of claims (or shortly), not in one of its own.
          { lazy: true, over: doubtOver },
        );
      } catch (error) {
        if (warned) return;
        warned = true;
        const problem = (error as Error).message.replace(/\.$/, '');
        options.warn(
          state === 'sent'
            ? `Invitations were sent, but roster could not note them in its record of sent invitations (${problem}); this file's journal still has them, but another file or a campaign plan may list them again.`
            : `roster could not note the outcome of a row in its record of sent invitations (${problem}); other runs may wait for it, or take it for in doubt.`,
        );
      }
    },
    // A failure reaches the settles' own promises, which report it.
    flush: () => record.flush().catch(() => {}),
    checkRecord: () => record.checkIdentity(),
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
 * (a single send: its run starts with NUL) by its name without backticks or "roster ".
 */
export function claimRunName(claim: ClaimingRun): string | undefined {
  if (!claim.run.startsWith('\0')) return fileRunName(claim.file);
  return claim.file?.replaceAll('\u0060', '').replace(/^roster /, '');
}

export const identityOf = (row: PlannedRow) =>
  invitationIdentity(row.body.email, row.body.schoolId, row.body.schoolYearId);
