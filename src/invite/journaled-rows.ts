// A file `invite send --file` sent, read back to look its rows up in its journal (`invite settle --file`,
// `invite history --file`).
import { resolve } from 'node:path';
import type { Context } from '../context.js';
import { SchoolDirectory } from '../schools/directory.js';
import type { Session } from '../session.js';
import { readInput } from './file-check.js';
import { invitationKey } from './invitation.js';
import { type PlannedRow, rowsOfSentFile } from './invite-file.js';
import { contentHash, peekRun, type RunOf } from './store/index.js';

/**
 * A sent file's rows keyed as its journal keys them, with the journal's view: read as given, and read again
 * with the district's schools resolving names (as the send did) only when the journal lacks some row, so a
 * file of ids asks the server nothing.
 */
export async function rowsAsJournaled(ctx: Context, session: Session, given: string) {
  const file = resolve(given);
  const content = await readInput(file, given);
  const destination = { baseUrl: session.baseUrl, clientId: session.settings.clientId ?? '' };
  const run: RunOf = { stateDir: ctx.paths.stateDir, file, sha256: contentHash(content), destination };
  const peek = (rows: PlannedRow[]) => peekRun(run, rows, { resendSent: false, resendInDoubt: false });
  let rows = await rowsOfSentFile(content, given);
  let view = await peek(rows);
  const unknown = (row: PlannedRow) => !view.before.has(invitationKey(row.body.email, row.body.schoolId));
  if (view.header !== undefined && rows.some(unknown)) {
    const lookup = await new SchoolDirectory(ctx, session).lookup();
    if (lookup) {
      rows = await rowsOfSentFile(content, given, lookup);
      view = await peek(rows);
    }
  }
  return { run, rows, view };
}
