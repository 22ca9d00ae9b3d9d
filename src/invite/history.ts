// `roster invite history`: what roster knows it sent, from its own state, without asking the server. For
// the destination (this profile's server and client), the record: every invitation confirmed (when, by
// which run), forgotten, or open (in doubt, a run stopped mid-request, being sent now). For one file
// (--file), its journal: each row's last state, and rows another run sent.
import type { Context } from '../context.js';
import type { Session } from '../session.js';
import { invitationKey } from './invitation.js';
import { rowsAsJournaled } from './journaled-rows.js';
import { type HistoryEvent, recordHistory } from './store/index.js';

export interface Destination {
  baseUrl: string;
  clientId: string;
}

/** The record's events, oldest first, for one family's e-mail (any case) when `email` is given. */
export async function invitationHistory(
  ctx: Context,
  destination: Destination,
  email?: string,
): Promise<{ record: string; events: HistoryEvent[] }> {
  const { path, events } = await recordHistory(ctx.paths.stateDir, destination);
  const wanted = email?.trim().toLowerCase();
  return { record: path, events: wanted ? events.filter((e) => e.email.toLowerCase() === wanted) : events };
}

/** One row of a file as its journal (and roster's record) tells it. */
export interface FileHistoryRow {
  line: number;
  email: string;
  schoolId: string;
  /** The journal's last state; `sent elsewhere`: another run sent it; `not sent`: never tried. */
  state: 'sent' | 'failed' | 'in-doubt' | 'in-flight' | 'sent elsewhere' | 'not sent';
  at?: string;
  reason?: string;
}

/** The file's rows in the file's order; its journal's path (absent when it was never sent here). */
export async function fileHistory(
  ctx: Context,
  session: Session,
  given: string,
  email?: string,
): Promise<{ journal: string | undefined; rows: FileHistoryRow[] }> {
  const { rows, view } = await rowsAsJournaled(ctx, session, given);
  const wanted = email?.trim().toLowerCase();
  const told = rows
    .filter((row) => !wanted || row.body.email.toLowerCase() === wanted)
    .map((row): FileHistoryRow => {
      const key = invitationKey(row.body.email, row.body.schoolId);
      const base = { line: row.line, email: row.body.email, schoolId: row.body.schoolId };
      const entry = view.before.get(key);
      if (entry)
        return { ...base, state: entry.state, at: entry.at, ...(entry.reason && { reason: entry.reason }) };
      const elsewhere = view.plan.elsewhere.get(key);
      if (elsewhere !== undefined) return { ...base, state: 'sent elsewhere', at: elsewhere };
      return { ...base, state: 'not sent' };
    });
  return { journal: view.header ? view.path : undefined, rows: told };
}
