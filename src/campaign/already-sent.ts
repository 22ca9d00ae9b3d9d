// Which invitations of a plan were sent before: roster's own record of sent invitations for this destination
// (every file and single send roster confirmed), and the server's invitation list when its records carry
// e-mail and school. The list is read, never trusted alone: when it cannot be read or lacks those fields,
// a warning says so and roster's record decides.
import type { Context } from '../context.js';
import { serverInvitedIdentities } from '../invite/server-invited.js';
import { SentRecord } from '../invite/store/index.js';
import type { Session } from '../session.js';
import type { InvitedBy } from './planner.js';

export { invitationIdentity } from '../invite/store/index.js';

export interface AlreadySent {
  by(identity: string): InvitedBy | undefined;
  /** Where it was looked up, in words, for the summary and --json. */
  source: string;
}

const RECORD = "roster's record of sent invitations";

export async function alreadySent(ctx: Context, session: Session, clientId: string): Promise<AlreadySent> {
  // Read only: a plan sends nothing, so it creates nothing and takes no lock.
  const record = await SentRecord.peek(ctx.paths.stateDir, { baseUrl: session.baseUrl, clientId });
  ctx.log.debug(`already sent: ${record.size} in ${record.path}`);
  const server = await serverInvitedIdentities(session);
  if ('unavailable' in server) {
    ctx.log.warn(
      `the server's invitation list cannot tell who was invited (${server.unavailable}); relying on ${RECORD}.${server.hint ? ` ${server.hint}` : ''}`,
    );
    return { by: (identity) => (record.has(identity) ? 'roster' : undefined), source: RECORD };
  }
  if (server.unusable > 0)
    ctx.log.warn(
      `${server.unusable} of the server's ${server.records} invitation records carry no e-mail and school; those are checked against ${RECORD} only.`,
    );
  return {
    by: (identity) =>
      record.has(identity) ? 'roster' : server.identities.has(identity) ? 'server' : undefined,
    source: `${RECORD} and the server's invitation list`,
  };
}
