// The invitations roster's record of sent invitations leaves open, asked of the server's own list (`roster
// invite settle` without --file): a single send cut off mid-request, another run's doubt, a run killed with
// its request out. Those the list shows created since their request are recorded as sent (and their claim
// settled), so no run sends them again; the others stay as they were.
import type { Context } from '../context.js';
import type { Session } from '../session.js';
import { Settler, settledWords } from './settle.js';
import { claimHoldMs, claimRunName, type OpenClaim, SETTLE_RUN, SentRecord } from './store/index.js';

/** One invitation asked about: who it is for, the run that left it open, and what it is now. */
export interface SettledInvitation {
  email: string;
  schoolId: string;
  schoolYearId?: string;
  /** The run that left it open: its file, or `roster invite send --email`. */
  run: string;
  was: 'in-doubt';
  now: 'sent' | 'in-doubt';
  /** The server's creation time of the invitation that settled it, when it gave one. */
  createdAt?: string;
  why: string;
}

/** The record's open invitations settled by the server's list; the record's path and what each is now. */
export async function settleRecord(
  ctx: Context,
  session: Session,
  clientId: string,
  timeoutMs: number,
): Promise<{ record: string; rows: SettledInvitation[] }> {
  const record = await SentRecord.open(ctx.paths.stateDir, { baseUrl: session.baseUrl, clientId });
  try {
    const open = await record.openClaims();
    const settler = new Settler(
      session,
      () => ctx.now(),
      (message) => ctx.log.warn(message),
    );
    const rows: SettledInvitation[] = [];
    for (const invitation of open) {
      const since = requestedSince(invitation, claimHoldMs(timeoutMs));
      const settlement = await settler.wasCreated({ ...invitation, since });
      const base = {
        email: invitation.email,
        schoolId: invitation.schoolId,
        ...(invitation.schoolYearId !== undefined && { schoolYearId: invitation.schoolYearId }),
        run: invitation.claim.file ?? invitation.claim.run,
        was: 'in-doubt' as const,
      };
      if (settlement.kind !== 'created') {
        const why =
          settlement.kind === 'unusable'
            ? `the server's list cannot tell (${settlement.why})`
            : 'the server does not list it';
        rows.push({ ...base, now: 'in-doubt', why });
        continue;
      }
      const sentAt = new Date(ctx.now()).toISOString();
      await record.settle(
        invitation.identity,
        SETTLE_RUN,
        'done',
        {
          email: invitation.email,
          schoolId: invitation.schoolId,
          ...(invitation.schoolYearId !== undefined && { schoolYearId: invitation.schoolYearId }),
          sentAt,
          by: claimRunName(invitation.claim) ?? 'invite send --file',
        },
        { theirs: invitation.claim },
      );
      const createdAt = settlement.createdAt;
      rows.push({
        ...base,
        now: 'sent',
        ...(createdAt && { createdAt }),
        why: settledWords(base.email, settlement),
      });
    }
    return { record: record.path, rows };
  } finally {
    await record.close();
  }
}

/**
 * No later than the invitation's first request (this machine's clock): a claim still `sending` was taken
 * before it; one in doubt was noted after it, within the longest a request can take (`holdMs`).
 */
function requestedSince({ claim }: OpenClaim, holdMs: number): number {
  const at = Date.parse(claim.at);
  if (Number.isNaN(at)) return 0;
  return claim.state === 'sending' ? at : at - holdMs;
}
