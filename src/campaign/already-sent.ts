// Which invitations of a plan were sent before: roster's own record for this destination, and the server's
// invitation list when its records carry e-mail and school. (Placeholder until the sent-record work lands.)
import type { Context } from '../context.js';
import type { Session } from '../session.js';
import type { InvitedBy } from './planner.js';

export const invitationIdentity = (email: string, schoolId: string, schoolYearId?: string): string =>
  `${email.trim().toLowerCase()} ${schoolId.trim()} ${schoolYearId?.trim() ?? ''}`;

export interface AlreadySent {
  by(identity: string): InvitedBy | undefined;
  /** In words, for the summary and --json. */
  source: string;
}

export async function alreadySent(_ctx: Context, _session: Session, _clientId: string): Promise<AlreadySent> {
  return { by: () => undefined, source: "roster's record of sent invitations" };
}
