// What roster's record says happened to a destination's invitations, for `roster invite history`: every
// invitation the server confirmed (when, and by which run), every one `roster invite forget` took out, and
// the claims still open (in doubt, or being sent now). Read only: nothing is created or locked, and the
// record is read as every run reads it (its header checked, a damaged line refused).
import { hostname } from 'node:os';
import { type Claim, commandRun } from './claims.js';
import { standing } from './decide.js';
import type { Destination } from './layout.js';
import { claimRunName } from './row-guard.js';
import { identityParts, SentRecord } from './sent-record.js';

/** One event of an invitation, as the record tells it. */
export interface HistoryEvent {
  email: string;
  schoolId: string;
  schoolYearId?: string;
  /** sent: confirmed; forgotten: taken out by `invite forget`; in-doubt / stopped / sending: an open claim. */
  event: 'sent' | 'forgotten' | 'in-doubt' | 'stopped' | 'sending';
  at: string;
  /** The run: its file's name or the command (sent, where the record names it), or the claim's file. */
  by?: string;
}

/** The record's events for `destination`, oldest first; the record's path (which need not exist yet). */
export async function recordHistory(
  stateDir: string,
  destination: Destination,
): Promise<{ path: string; events: HistoryEvent[] }> {
  // Read as every run reads it: a foreign or damaged record is refused.
  const events: HistoryEvent[] = [];
  const path = await SentRecord.peekWith(stateDir, destination, (record) => {
    record.load((entry) => {
      const { email, schoolId, schoolYearId } = entry;
      const parts = { email, schoolId, ...(schoolYearId !== undefined && { schoolYearId }) };
      if ('forgottenAt' in entry) events.push({ ...parts, event: 'forgotten', at: entry.forgottenAt });
      else events.push({ ...parts, event: 'sent', at: entry.sentAt, ...(entry.by && { by: entry.by }) });
    });
    for (const claim of record.claims()) {
      const event = openEvent(claim);
      if (event) events.push({ ...identityParts(claim.id), event, at: claim.at, ...byOf(claim) });
    }
    return record.path;
  });
  return { path, events: events.sort((a, b) => a.at.localeCompare(b.at)) };
}

/** A claim as history tells it: settled ones are told by the record's lines. */
function openEvent(claim: Claim): HistoryEvent['event'] | undefined {
  const now = standing(claim, HISTORY_RUN);
  if (now === 'busy') return 'sending';
  if (now === 'in-doubt' || now === 'stopped') return now;
  return undefined;
}

const byOf = (claim: Claim) => {
  const by = claimRunName(claim);
  return by === undefined ? {} : { by };
};

/** No run's own: every live claim is someone else's. */
const HISTORY_RUN = { run: commandRun(`invite history ${hostname()}`) };
