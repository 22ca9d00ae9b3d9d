// A row of the record (the database's `record` table): an invitation confirmed sent, or one `roster invite
// forget` took out. Rows are only ever added; the record's reader (sent-record.ts) folds them in order.
import type { StoreDb } from './database.js';
import { type InvitationParts, invitationIdentity } from './identity.js';

/** Inside a transaction: one row, `sentAt` or `forgottenAt` set. */
export function addRecordRow(
  db: StoreDb,
  parts: InvitationParts,
  at: { sentAt?: string; forgottenAt?: string; by?: string },
): void {
  db.run(
    'INSERT INTO record (identity, email, school_id, school_year_id, sent_at, forgotten_at, by) VALUES (?, ?, ?, ?, ?, ?, ?)',
    invitationIdentity(parts.email, parts.schoolId, parts.schoolYearId),
    parts.email,
    parts.schoolId,
    parts.schoolYearId ?? null,
    at.sentAt ?? null,
    at.forgottenAt ?? null,
    at.by ?? null,
  );
}
