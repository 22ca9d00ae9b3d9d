// The one place that decides whether an invitation is sent, in doubt or not sent yet, from what the store
// holds (index.ts describes the tables):
// - before a run (planRows): by the file's journal, then by roster's record of sent invitations;
// - just before a row's request (claimDecision): by the record again and every run's claim;
// - what a row becomes when it may not be claimed (rowVerdict).
// Throughout, what was (or may have been) sent wins: a row is never sent twice without --resend-*.
import { hostname } from 'node:os';
import { isRunning } from '../../lock.js';
import { invitationKey } from '../invitation.js';
import type { PlannedRow } from '../invite-file.js';
import type { Claim, ClaimingRun } from './claims.js';
import type { LastEntry } from './journal.js';

/** Rows split by what the journal and the record say happened to them before this run. */
export interface RowPlan {
  toSend: PlannedRow[];
  skipped: PlannedRow[];
  inDoubt: PlannedRow[];
  /** Rows that roster's record shows sent by another run (another file or a single send): by key, when. */
  elsewhere: Map<string, string>;
  /** Keys of in-doubt rows sent again because of --resend-in-doubt. */
  resending: Set<string>;
}

/** When roster's record shows the row sent (by another run), else undefined. */
export type SentElsewhere = (row: PlannedRow) => string | undefined;

export const keyOf = (row: PlannedRow) => invitationKey(row.body.email, row.body.schoolId);

/**
 * By row identity, whatever else changed: sent stays skipped, failed (or never tried) is sent with the
 * current values unless roster's record shows it sent by another run, in doubt stays in doubt unless
 * --resend-in-doubt (or the record shows it sent by another run since: then it is skipped).
 */
export function planRows(
  rows: PlannedRow[],
  states: ReadonlyMap<string, LastEntry>,
  resendInDoubt: boolean,
  sentElsewhere: SentElsewhere,
): RowPlan {
  const result: RowPlan = {
    toSend: [],
    skipped: [],
    inDoubt: [],
    elsewhere: new Map(),
    resending: new Set(),
  };
  for (const row of rows) {
    const key = keyOf(row);
    const state = states.get(key)?.state;
    const elsewhere = state === 'sent' ? undefined : sentElsewhere(row);
    if (state === 'sent') result.skipped.push(row);
    // Even a row in doubt here: another run had it confirmed sent, so --resend-in-doubt would send it twice.
    else if (elsewhere !== undefined) result.elsewhere.set(key, elsewhere);
    else if (state === 'in-flight' || state === 'in-doubt') {
      if (resendInDoubt) {
        result.toSend.push(row);
        result.resending.add(key);
      } else result.inDoubt.push(row);
    } else result.toSend.push(row);
  }
  return result;
}

/**
 * What a claim means to a run about to send the invitation: free (nobody else's, or settled), busy (another
 * run is sending it now: wait), stopped (a run was killed while sending it) or in-doubt (a run could not tell).
 */
export type Standing = 'free' | 'busy' | 'stopped' | 'in-doubt';

/** A run waiting for another's claim, by its own clock. */
export interface Wait {
  /** When this run first saw the claim. */
  since: number;
  /** The longest this run's own claims hold: it never waits longer for another's. */
  holdMs: number;
}

/**
 * A claim of the run asking (its journal's path, and the same journal: one moved aside and begun again is
 * another run), which its journal governs: unless the claim carries another run's doubt (`over`).
 */
const ownClaim = (claim: Claim, run: ClaimingRun) =>
  claim.run === run.run &&
  !claim.over &&
  (claim.began === undefined || run.began === undefined || claim.began === run.began);

export function standing(
  claim: Claim | undefined,
  run: ClaimingRun,
  now = Date.now(),
  wait?: Wait,
): Standing {
  if (!claim || claim.state === 'done' || ownClaim(claim, run)) return 'free';
  if (claim.state === 'in-doubt') return 'in-doubt';
  if (now > waitEnd(claim, now, wait)) return 'stopped';
  return isRunning(claim) ? 'busy' : 'stopped';
}

/**
 * Until when (this machine's clock) a `sending` claim is waited for: its deadline (another host's, whose
 * clock may differ from ours, with a few minutes more), and never longer than the claim's length (its
 * deadline less when it was made, both by its own clock; at most this run's own hold) from when this run
 * first saw it. A host whose clock runs a year ahead writes a deadline a year ahead, not a longer claim.
 */
export function waitEnd(
  claim: Claim,
  now = Date.now(),
  wait: Wait = { since: now, holdMs: Infinity },
): number {
  const deadline = claim.until === undefined ? Number.NaN : Date.parse(claim.until);
  const remote = claim.host !== undefined && claim.host !== hostname();
  const byDeadline = Number.isNaN(deadline) ? Infinity : deadline + (remote ? CLOCK_SKEW_MS : 0);
  const stated = deadline - Date.parse(claim.at);
  const length = Math.min(stated >= 0 ? stated : Infinity, wait.holdMs);
  return Math.min(byDeadline, wait.since + length);
}

/** How far another host's clock may be ahead of ours. */
const CLOCK_SKEW_MS = 5 * 60_000;

/** A claim asked for before a request (SentRecord.claim). */
export interface ClaimRequest {
  claim: Claim;
  /** --resend-sent (or a single send): recorded as sent does not stop it. */
  ignoreSent: boolean;
  /** --resend-in-doubt: another run's doubt does not stop it. */
  ignoreDoubt: boolean;
  holdMs: number;
}

/** What became of a claim (SentRecord.claim). */
export type ClaimOutcome =
  /** `over`: taken over another run's doubt (--resend-*), which stands again if this run does not send it. */
  | { kind: 'claimed'; over?: true }
  | { kind: 'sent'; sentAt: string }
  | { kind: 'stopped' | 'in-doubt'; run: string; file?: string }
  | { kind: 'aborted' };

/** A claim's outcome, or 'busy': another live run is sending it (ask again shortly). */
export type ClaimDecision =
  | Exclude<ClaimOutcome, { kind: 'aborted' }>
  | { kind: 'busy'; other: Claim; until: number };

/**
 * Whether a claim may be taken, given when the record shows it sent (if it does) and the latest claim of any
 * run on it. `waitingSince` (this process's, by claim) bounds how long another run's claim is waited for.
 */
export function claimDecision(
  request: ClaimRequest,
  sentAt: string | undefined,
  other: Claim | undefined,
  waitingSince: Map<string, number>,
): ClaimDecision {
  if (sentAt !== undefined && !request.ignoreSent) return { kind: 'sent', sentAt };
  if (other === undefined) return { kind: 'claimed' };
  const now = Date.now();
  const { state, wait } = standingWaited(request, other, waitingSince, now);
  return decisionOver(other, state, request.ignoreDoubt, now, wait);
}

/**
 * The standing of the latest claim, another run's waited for no longer than its bound from when this
 * process first saw it busy (`waitingSince`, by claim: kept while it is busy, forgotten once it is not).
 */
function standingWaited(
  request: ClaimRequest,
  other: Claim,
  waitingSince: Map<string, number>,
  now: number,
): { state: Standing; wait: Wait } {
  const key = JSON.stringify([other.id, other.run, other.at]);
  const wait: Wait = { since: waitingSince.get(key) ?? now, holdMs: request.holdMs };
  const state = standing(other, request.claim, now, wait);
  if (state === 'busy') waitingSince.set(key, wait.since);
  else waitingSince.delete(key);
  return { state, wait };
}

/**
 * The decision over a claim that is there: wait for a live run sending it, report a stopped run or another
 * run's doubt, or (--resend-in-doubt) take that doubt over; a free one is claimed.
 */
function decisionOver(
  other: Claim,
  state: Standing,
  ignoreDoubt: boolean,
  now: number,
  wait: Wait,
): ClaimDecision {
  if (state === 'busy') return { kind: 'busy', other, until: waitEnd(other, now, wait) };
  if (state === 'free') return { kind: 'claimed' };
  if (!ignoreDoubt)
    return { kind: state, run: other.run, ...(other.file !== undefined && { file: other.file }) };
  // Never this run's own (standing says free for that): another run's doubt, taken over.
  return { kind: 'claimed', over: true };
}

/** A row another run sent, or may have sent (it was stopped while sending it, or could not tell). */
export type Withheld = { state: 'elsewhere'; sentAt: string } | { state: 'in-doubt'; reason: string };

/** What a row of a file becomes once its claim is decided: sent now ('go'), or withheld, or not started. */
export function rowVerdict(outcome: ClaimOutcome): 'go' | 'aborted' | Withheld {
  switch (outcome.kind) {
    case 'claimed':
      return 'go';
    case 'aborted':
      return 'aborted';
    case 'sent':
      return { state: 'elsewhere', sentAt: outcome.sentAt };
    default: {
      const other = outcome.file === undefined ? 'another run' : `another run (${outcome.file})`;
      const what =
        outcome.kind === 'stopped'
          ? `${other} was stopped while sending it`
          : `${other} could not tell whether it was sent`;
      return { state: 'in-doubt', reason: `${what}; it may have been sent` };
    }
  }
}
