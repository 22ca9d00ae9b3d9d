// The store of what roster sent: the one door to the on-disk state of sending invitations. Nothing outside
// src/invite/store/ reads or writes these files, or imports the modules behind this one.
//
// Files, under roster's state folder (0700 folders, 0600 files; only the user's own regular files, never
// through a link, are trusted: a planted "sent" row would silently leave a family out):
//
//   invites/<file name>-<16 hex>.jsonl           a run's journal: one per input file and destination
//   invites/<file name>-<16 hex>.jsonl.lock      held by the run sending that file there (refuseIfHeld)
//   invites/<file name>-<16 hex>.failed.csv      the rows that failed, to send again (bulk-send.ts's, not the store's)
//   sent/<host>-<16 hex>.jsonl                   the record of sent invitations: one per destination
//   sent/<host>-<16 hex>.jsonl.lock              held for one batch by whichever process writes (waitForLock)
//   sent/<host>-<16 hex>.jsonl.claims            who is sending which invitation right now
//
// The hex is a SHA-256 of the input file's real path (journal only), the canonical base URL and the client
// id (layout.ts): every spelling of one file and one service names the same files.
//
// Every file is JSON Lines: one object per line, appended and fsynced, never edited in place (the claims
// file is replaced whole when compacted); a torn last line (a writer killed mid-write) is not an entry, and
// is cut off by the next writer. A damaged line anywhere else is refused, never skipped: skipping could
// forget an invitation that was sent.
//
// - Journal. Line 1: {journal: 'roster invite send', version: 1, file: real path, destination: {baseUrl,
//   clientId}, sha256 of the content when it began, createdAt}. Then one entry per row event:
//   {key: invitationKey(email, schoolId), line, state, at, email, schoolId, bodyHash?, reason?, status?,
//   resend?}, state in-flight (its request about to leave: written before it does), sent, failed (the server
//   certainly did not act) or in-doubt. A row's last entry is its state; a row without one was never tried.
//   (Earlier builds wrote a pending entry for every row before the first request: read, it means the same
//   as none, and a district's 80,000 of them made a resumed run read the journal nearly twice over.)
// - Record. Line 1: {record: 'roster sent invitations', version: 1, destination (canonical), createdAt}.
//   Then {email, schoolId, schoolYearId?, sentAt, by?} per invitation the server confirmed (by: the run that
//   sent it, its file's name or the command, for `roster invite history`), or {email, schoolId,
//   schoolYearId?, forgottenAt} for one `roster invite forget` took out. Identity: invitationIdentity.
// - Claims. {id: invitationIdentity, run: journal path (or a single send's name), file?, began? (the
//   journal's createdAt), over? ('in-doubt': taken over another run's doubt), state: sending | in-doubt |
//   done, at, until? (a sending claim's deadline), pid, host?, started?}; an invitation's last line is its
//   claim. Rewritten with the unsettled claims alone once most lines are settled, under a first
//   line {rewrite: random} by which a reader that stopped part-way knows the file was replaced.
// - Locks. {pid, host, started?, token}, written to a temporary file and linked to the lock's name, so no
//   process sees a lock without its owner; a journal's lock is fsynced first (whole or absent after a power
//   cut), the record's, held for one batch, is not (one found empty is stale after 10 s: lock.ts).
//
// Order of writes for a row of a file (invite/bulk-runner.ts, its claims taken by claims-ahead.ts): claim (claims, fsynced; asked for a batch of rows
// ahead of the workers, so one lock and one fsync serve many rows) → in-flight (journal, fsynced) → request
// → outcome (journal) → sent entry (record, fsynced) then claim settled (claims), written with the next
// batch of claims or within a fraction of a second. A kill at any point leaves the row sent, not sent, or in
// doubt for every run: never sent twice without --resend-*. A dead run's claims are read against its
// journal: a row whose request never left (no in-flight entry) is free for other runs, any other stays in
// doubt. (A kill after the journal learnt a row was sent but before the record did: the next run of the
// file adds it to the record; other runs meanwhile find it in doubt. A kill after the record learnt it but
// before the journal did: the next run of the file skips it as sent, by the record, and reports it as sent
// by another run. A kill after a failed row's claim was settled but before the journal heard of the
// failure: the next run lists it in doubt, not failed, and does not retry it by itself.)
// Writes are batched: a batch of the record is what its rows ask in one turn of the event loop, under one
// lock and one fsync per file; the journal writes what arrives in one turn (a row's outcome and the next
// row's in-flight entry) in one write and one fsync, and what arrives while it writes in the next.
// decide.ts is the one place that reads these into "sent / in doubt / not sent".
export { type RowPlan, standing, waitEnd } from './decide.js';
export { FileRun, peekRun, type ResendFlags, type RunOf, type RunView } from './file-run.js';
export { type HistoryEvent, recordHistory } from './history.js';
export { bodyHash, contentHash, Journal, type JournalEntry, type LastEntry } from './journal.js';
export { canonicalBaseUrl, type Destination, journalPath, sentRecordPath } from './layout.js';
export { claimHoldMs, claimRunName, type RowGuard, sentEntry } from './row-guard.js';
export {
  type ForgetOutcome,
  type InvitationParts,
  invitationIdentity,
  type OpenClaim,
  SETTLE_RUN,
  SentRecord,
} from './sent-record.js';
