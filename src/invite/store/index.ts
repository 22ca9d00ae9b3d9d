// The store of what roster sent: the one door to the state of sending invitations. Nothing outside
// src/invite/store/ reads or writes it, or imports the modules behind this one.
//
// One SQLite database per destination (canonical base URL and client id), in Node's own node:sqlite:
//
//   sent/<host>-<16 hex>.db      (and its -wal and -shm while in use)
//
// under roster's state folder (0700 folders; the database 0600, only the user's own regular file, never
// through a link: a planted "sent" row would silently leave a family out). The hex is a SHA-256 of the
// canonical base URL and the client id (layout.ts): every spelling of one service names one database.
// WAL, synchronous=FULL: every transaction is on disk when it commits; two processes take turns through
// SQLite's own locking (BEGIN IMMEDIATE). Tables (database.ts):
//
// - runs: one per input file sent there (its real path): the content's SHA-256 when its journal began,
//   when that was, and the process sending it now (pid, host, start time), which is the file's lock:
//   another live run of the same file is refused (journal.ts).
// - journal: each row of a file run, by invitationKey(email, schoolId): its last state (in-flight: its
//   request about to leave; sent; failed: the server certainly did not act; in-doubt), line, time, body
//   hash, reason, status, resend, requestedAt. A row without one was never tried.
// - record: every invitation the server confirmed (email, school, school year, sent_at, by: the run that
//   sent it, for `roster invite history`), and every one `roster invite forget` took out (forgotten_at):
//   rows are only ever added.
// - claims: who is sending which invitation right now (state sending, until a deadline) or could not
//   tell (in-doubt); a settled claim is no row.
// - imported: runs whose journal came from an earlier roster's files (legacy.ts), until the run's next
//   start has added to the record the rows that journal had sent and that record lacked (file-run.ts).
//
// A row of a file: claim + in-flight entry (one transaction) → request → outcome + claim settled + record
// entry when sent (one transaction). A kill at any point leaves the row sent, not sent, or in doubt for
// every run, never sent twice without --resend-*: a claim `sending` whose process is gone is in doubt.
// Writes asked in one turn of the event loop share one transaction (database.ts's batch). decide.ts is the
// one place that reads these into "sent / in doubt / not sent". State an earlier roster kept in JSON Lines
// files is imported once, when the database is created (legacy.ts).

export { commandRun } from './claims.js';
export { type RowPlan, standing, waitEnd } from './decide.js';
export { FileRun, peekRun, type ResendFlags, type RunOf, type RunView } from './file-run.js';
export { type HistoryEvent, recordHistory } from './history.js';
export { bodyHash, contentHash, Journal, type JournalEntry, type LastEntry } from './journal.js';
export { canonicalBaseUrl, type Destination, journalPath, sentRecordPath, storePath } from './layout.js';
export { claimHoldMs, claimRunName, type RowGuard, sentEntry } from './row-guard.js';
export {
  type ForgetOutcome,
  type InvitationParts,
  invitationIdentity,
  type OpenClaim,
  SETTLE_RUN,
  SentRecord,
} from './sent-record.js';
