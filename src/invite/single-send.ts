// One invitation sent by `roster invite send` (without --file), under roster's record of sent invitations
// (src/invite/store/): claimed there before the request leaves, as a bulk row is, so that if this process is
// killed or cut off mid-request every other run finds the invitation in doubt instead of e-mailing it again.
// A single send is never refused (it is a deliberate send); it only waits for a run sending it now, and says
// so first when the record shows it sent before (sentBefore).

import type { InvitationBody, sendInvitation } from '../api/enrollment.js';
import type { Context } from '../context.js';
import { RosterError } from '../errors.js';
import type { Session } from '../session.js';
import type { Settings } from '../settings.js';
import { printable } from '../values.js';
import { Settler, sendSettled } from './settle.js';
import {
  claimHoldMs,
  claimRunName,
  commandRun,
  invitationIdentity,
  SentRecord,
  sentEntry,
} from './store/index.js';

/**
 * Sends `body` (validated, confirmed) and notes the outcome in the record; the server's answer. Says first
 * when the record shows it sent before, unless `warned` (sentBefore was asked before a question).
 */
export async function sendOne(
  ctx: Context,
  session: Session,
  settings: Settings,
  body: InvitationBody,
  warned = false,
): Promise<Awaited<ReturnType<typeof sendInvitation>>> {
  // Opened before sending: a state folder another user controls is refused while nothing is sent yet.
  const record = await SentRecord.open(ctx.paths.stateDir, {
    baseUrl: session.baseUrl,
    clientId: settings.clientId ?? '',
  });
  try {
    const identity = invitationIdentity(body.email, body.schoolId, body.schoolYearId);
    const claim = (ignoreDoubt: boolean) =>
      record.claim(identity, SINGLE_SEND, {
        ignoreSent: true,
        ignoreDoubt,
        signal: new AbortController().signal,
        holdMs: claimHoldMs(settings.timeoutMs),
      });
    // An earlier send left it in doubt: a failure now that certainly sent nothing must not clear that doubt.
    const before = await claim(false);
    // The claim read the record: a script hears of an earlier send without a second read of it.
    const sentAt = warned ? undefined : record.sentAt(identity);
    if (sentAt !== undefined) warnSentBefore(ctx, body, sentAt, false);
    const doubted = before.kind === 'in-doubt' || before.kind === 'stopped';
    if (doubted) await claim(true);
    let created: Awaited<ReturnType<typeof sendInvitation>>;
    try {
      // The server's list asked before a retry, and before the outcome is reported unknown.
      const settler = new Settler(
        session,
        () => ctx.now(),
        (message) => ctx.log.warn(message),
      );
      created = await sendSettled(session, body, settler, () => ctx.now());
    } catch (error) {
      const doubt = !(error instanceof RosterError) || error.code === 'outcome-unknown';
      await settle(ctx, record, identity, body, doubt || doubted ? 'in-doubt' : 'failed');
      throw error;
    }
    await settle(ctx, record, identity, body, 'sent');
    return created;
  } finally {
    await record.close();
  }
}

/**
 * When roster's record shows this invitation sent before (by a file, a plan or a single send), or undefined:
 * read before a question or a dry run's answer (sendOne tells a script itself, from the record it claims in).
 */
export async function sentBefore(
  ctx: Context,
  session: Session,
  settings: Settings,
  body: InvitationBody,
): Promise<string | undefined> {
  const record = await SentRecord.peek(ctx.paths.stateDir, {
    baseUrl: session.baseUrl,
    clientId: settings.clientId ?? '',
  });
  return record.sentAt(invitationIdentity(body.email, body.schoolId, body.schoolYearId));
}

/** A single send is never refused, but the admin hears of an earlier one, on stderr. */
export function warnSentBefore(ctx: Context, body: InvitationBody, sentAt: string, dryRun: boolean): void {
  const email = printable(body.email, 320);
  ctx.log.warn(
    `roster's record shows an invitation to ${email} for ${printable(body.schoolId, 80)} sent at ${sentAt}; this ${dryRun ? 'would send' : 'sends'} another (see it: roster invite list --email ${email}).`,
  );
}

/**
 * Settles this send's claim: sent (recorded, so no plan or file sends it again), certainly not sent (the
 * claim released), or in doubt (a gateway's answer, a connection cut after sending: other runs list it
 * instead of e-mailing the family again, until a confirmed send or --resend-in-doubt). Failing to note it
 * must not read as a failure to send (which invites a re-send).
 */
async function settle(
  ctx: Context,
  record: SentRecord,
  identity: string,
  body: InvitationBody,
  outcome: 'sent' | 'failed' | 'in-doubt',
): Promise<void> {
  try {
    await record.settle(
      identity,
      SINGLE_SEND,
      outcome === 'in-doubt' ? 'in-doubt' : 'done',
      outcome === 'sent' ? sentEntry(body, new Date(ctx.now()), claimRunName(SINGLE_SEND)) : undefined,
    );
  } catch (error) {
    const problem = (error as Error).message.replace(/\.$/, '');
    if (outcome === 'sent')
      ctx.log.warn(
        `The invitation was sent, but roster could not note it in its record of sent invitations (${problem}); a campaign plan may list it again.`,
      );
    else if (outcome === 'in-doubt')
      ctx.log.warn(
        `roster could not note this invitation as in doubt in its record of sent invitations (${problem}); another run may send it again.`,
      );
  }
}

/** The run a single send stands as in the record's claims: no file's journal, one per process; named for messages. */
const SINGLE_SEND = {
  run: commandRun(`invite send --email ${process.pid} ${Date.now()}`),
  file: '`roster invite send --email`',
};
