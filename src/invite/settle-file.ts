// A file's rows whose outcome a run left open, settled by the server's list (settle.ts): rows in doubt (in
// flight when a run was killed, or answered in a way that proves nothing) and rows failed after an answer
// from past the network (a 429, a 5xx), which the next run would send again. Those the list shows created
// since their request are sent, in the journal and the record, and never sent again. Asked before every
// run of `invite send --file` resumes a journal, and by `roster invite settle --file`.
import type { Context } from '../context.js';
import type { Session } from '../session.js';
import { invitationKey } from './invitation.js';
import type { PlannedRow } from './invite-file.js';
import { Settler, settledWords } from './settle.js';
import { FileRun, type LastEntry, type RunOf } from './store/index.js';

/** One row asked about: what it was, and what it is now. */
export interface SettledRow {
  line: number;
  email: string;
  schoolId: string;
  /** Its state before: in doubt, or failed after an answer from the server. */
  was: 'in-doubt' | 'failed';
  /** sent: the list shows it created; otherwise as it was (not listed, or the list could not tell). */
  now: 'sent' | 'in-doubt' | 'failed';
  /** The server's creation time of the invitation that settled it, when it gave one. */
  createdAt?: string;
  why: string;
}

/**
 * The run's rows in doubt or failed after an answer from the server, asked about in the file's order; those
 * the list shows created are noted sent (journal and record) and the run planned again without them.
 */
export async function settleOpenRows(
  ctx: Context,
  session: Session,
  store: FileRun,
  rows: PlannedRow[],
): Promise<SettledRow[]> {
  const { before, header } = store.view;
  const open = rows.flatMap((row) => {
    const entry = before.get(invitationKey(row.body.email, row.body.schoolId));
    const was = entry && openState(entry);
    return was && entry ? [{ row, entry, was }] : [];
  });
  if (open.length === 0) return [];
  const began = header ? Date.parse(header.createdAt) : Number.NaN;
  const settler = new Settler(
    session,
    () => ctx.now(),
    (message) => ctx.log.warn(message),
  );
  const results: SettledRow[] = [];
  const settled: { row: PlannedRow; reason: string }[] = [];
  for (const { row, entry, was } of open) {
    const settlement = await settler.wasCreated({ ...row.body, since: requestedAt(entry, began) });
    const base = { line: row.line, email: row.body.email, schoolId: row.body.schoolId, was };
    if (settlement.kind === 'created') {
      const why = settledWords(row.body.email, settlement);
      settled.push({ row, reason: `settled by the server's list: ${why}` });
      results.push({
        ...base,
        now: 'sent',
        ...(settlement.createdAt && { createdAt: settlement.createdAt }),
        why,
      });
    } else {
      const why =
        settlement.kind === 'unusable'
          ? `the server's list cannot tell (${settlement.why})`
          : 'the server does not list it';
      results.push({ ...base, now: was, why });
    }
  }
  if (settled.length > 0) await store.noteSettled(settled, new Date(ctx.now()));
  return results;
}

/** `roster invite settle --file`: the file's run opened (its lock taken), its open rows settled. */
export async function settleFileRows(
  ctx: Context,
  session: Session,
  run: RunOf,
  rows: PlannedRow[],
): Promise<SettledRow[]> {
  const store = await FileRun.open(
    run,
    rows,
    { resendSent: false, resendInDoubt: false },
    new Date(ctx.now()),
  );
  try {
    return await settleOpenRows(ctx, session, store, rows);
  } finally {
    await store.close();
  }
}

/** In doubt, or failed after an answer that came from past the network; undefined for any other row. */
function openState(entry: LastEntry): SettledRow['was'] | undefined {
  if (entry.state === 'in-flight' || entry.state === 'in-doubt') return 'in-doubt';
  const status = entry.status;
  if (entry.state === 'failed' && status !== undefined && (status === 429 || status >= 500)) return 'failed';
  return undefined;
}

/**
 * When the row's request first left, this machine's clock: its outcome says so (requestedAt), an in-flight
 * entry is that moment; an outcome of an earlier build, the journal's beginning (earlier still: safe).
 */
function requestedAt(entry: LastEntry, began: number): number {
  const at = entry.requestedAt ?? (entry.state === 'in-flight' ? entry.at : undefined);
  const parsed = at === undefined ? Number.NaN : Date.parse(at);
  if (!Number.isNaN(parsed)) return parsed;
  return Number.isNaN(began) ? 0 : began;
}
