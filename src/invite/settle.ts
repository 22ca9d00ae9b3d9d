// Was this invitation created? Asked of the server's own list (GET /enrollment/invitations?email=…, the read
// `invite list --email` makes) before an invitation whose request reached the server is tried again, and
// before one is reported in doubt: listed for that school (and school year, where the records carry one),
// created no earlier than its first request (less the server clock's offset and a margin) where the
// records carry a creation time, it was sent, and is never sent again. An older invitation to the same
// family (last year's) settles nothing. Where the list cannot tell (no e-mail or school in its records,
// refused, a filter the server ignores), the caller keeps its own rule and hears why once, and the list
// is not asked again in that run.
import { type InvitationBody, type InvitationCreated, sendInvitation } from '../api/enrollment.js';
import { isRecord } from '../api/errors.js';
import { ApiError, InDoubtError, RosterError } from '../errors.js';
import { OVERLAP_MS, parseHttpDate } from '../oneroster/change-window.js';
import type { Session } from '../session.js';
import { hiddenCharacter } from '../values.js';
import { invitationPages } from './invitation-pages.js';

/** The invitation asked about, and when its first request left (this machine's clock, epoch ms). */
export interface Asked {
  email: string;
  schoolId: string;
  schoolYearId?: string | undefined;
  since: number;
}

export type Settlement =
  /** Listed: `createdAt` and `id` as the server gave them (when it did). */
  | { kind: 'created'; id?: string; createdAt?: string }
  | { kind: 'not-listed' }
  /** The list cannot tell: why, in a few words. */
  | { kind: 'unusable'; why: string };

/** How far before a request the server may stamp its invitation: its machines' clocks, beyond the offset measured. */
export const CLOCK_MARGIN_MS = OVERLAP_MS;

/** Asks the server's list, and says once per run why it cannot be used, when it cannot. */
export class Settler {
  /** Why the list cannot be used, once it proved so: not asked again this run (each ask could cost retries). */
  private unusable: (Settlement & { kind: 'unusable' }) | undefined;

  constructor(
    private readonly session: Session,
    private readonly now: () => number,
    private readonly warn: (message: string) => void,
  ) {}

  async wasCreated(asked: Asked): Promise<Settlement> {
    if (this.unusable) return this.unusable;
    const settlement = await lookUp(this.session, asked, this.now);
    if (settlement.kind === 'unusable') {
      this.unusable = settlement;
      this.warn(
        `roster cannot settle invitations in doubt by the server's list (${settlement.why}); they are judged by roster's own rules, as before.`,
      );
    }
    return settlement;
  }
}

/** The server's list for the e-mail, every page, judged (see judge). */
async function lookUp(session: Session, asked: Asked, now: () => number): Promise<Settlement> {
  try {
    return await readAndJudge(session, asked, now, true);
  } catch (error) {
    // A server that refuses the page size is asked again without it (as server-invited.ts does).
    if (error instanceof ApiError && error.status === 400) {
      try {
        return await readAndJudge(session, asked, now, false);
      } catch (again) {
        return unusable(again);
      }
    }
    return unusable(error);
  }
}

async function readAndJudge(
  session: Session,
  asked: Asked,
  now: () => number,
  perPage: boolean,
): Promise<Settlement> {
  const query = new URLSearchParams({ email: asked.email, ...(perPage && { perPage: '100' }) });
  let offset: number | undefined;
  let unlisted: Settlement = { kind: 'not-listed' };
  for await (const page of invitationPages(session, query, true)) {
    // The server's clock against this machine's, read on the first answer.
    offset ??= clockOffset(page.date, now());
    const verdict = judge(page.data, asked, asked.since + offset - CLOCK_MARGIN_MS);
    if (verdict.kind === 'created') return verdict;
    if (verdict.kind === 'unusable') unlisted = verdict;
  }
  return unlisted;
}

/** The server's clock less this machine's (ms), by its Date header; 0 without one. */
function clockOffset(date: string | undefined, local: number): number {
  const server = parseHttpDate(date);
  // A Date truncates to the second: its middle is +0.5 s. A clock before 2000 was never set.
  return server === undefined || server < Date.UTC(2000, 0, 1) ? 0 : server + 500 - local;
}

/**
 * One page of the list judged for the invitation asked about: created (a record for its e-mail, school and
 * year, stamped no earlier than `notBefore` by the server's clock, or not stamped at all), unusable (a record
 * for another e-mail: the filter was ignored; a record without an e-mail or school), else not listed.
 */
export function judge(records: readonly unknown[], asked: Asked, notBefore: number): Settlement {
  const email = asked.email.trim().toLowerCase();
  let why: string | undefined;
  for (const record of records) {
    if (!isRecord(record)) {
      why ??= 'its list holds something that is not an invitation record';
      continue;
    }
    const listedEmail = text(record.email);
    const schoolId = text(record.schoolId);
    if (listedEmail === undefined || schoolId === undefined) {
      why ??= 'its invitation records carry no e-mail or school (the spec leaves their fields open)';
      continue;
    }
    if (listedEmail.toLowerCase() !== email) {
      return { kind: 'unusable', why: 'it ignores the email filter of its list: it listed other addresses' };
    }
    if (schoolId !== asked.schoolId.trim() || !sameYear(record.schoolYearId, asked.schoolYearId)) continue;
    const created = typeof record.createdAt === 'string' ? Date.parse(record.createdAt) : Number.NaN;
    // An invitation to the same family from before this one's request (last year's) settles nothing.
    if (!Number.isNaN(created) && created < notBefore) continue;
    return {
      kind: 'created',
      ...(text(record.id) !== undefined && { id: text(record.id) }),
      ...(!Number.isNaN(created) && { createdAt: new Date(created).toISOString() }),
    };
  }
  return why === undefined ? { kind: 'not-listed' } : { kind: 'unusable', why };
}

/** The record's school year matches, or it carries none (or this invitation named none). */
function sameYear(listed: unknown, asked: string | undefined): boolean {
  if (listed === null || listed === undefined || asked === undefined) return true;
  return text(listed) === asked.trim();
}

/** A string or a whole number as text, without hidden characters; undefined for anything else. */
function text(value: unknown): string | undefined {
  const s = typeof value === 'string' ? value : Number.isSafeInteger(value) ? String(value) : undefined;
  if (s === undefined || s.length > 1000 || hiddenCharacter(s)) return undefined;
  return s.trim() === '' ? undefined : s.trim();
}

function unusable(error: unknown): Settlement {
  if (!(error instanceof RosterError)) throw error;
  return { kind: 'unusable', why: `its list could not be read: ${error.message.replace(/\.$/, '')}` };
}

/** Thrown by the client's beforeRetry when the list shows the invitation created: no retry. */
class ListedAlready extends Error {
  constructor(readonly settlement: Settlement & { kind: 'created' }) {
    super('listed already');
  }
}

/**
 * Sends one invitation, asking the list before a retry after an answer from past the network, and before a
 * failure that reached the server (a 429, a 5xx) or an outcome unknown is reported: an invitation the list
 * shows created is sent, never sent again. A refused connection sent nothing and needs no look-up.
 */
export async function sendSettled(
  session: Session,
  body: InvitationBody,
  settler: Settler,
  now: () => number,
): Promise<InvitationCreated> {
  const asked: Asked = { ...body, since: now() };
  const beforeRetry = async () => {
    const settlement = await settler.wasCreated(asked);
    if (settlement.kind === 'created') throw new ListedAlready(settlement);
  };
  try {
    return await sendInvitation(session.api, body, beforeRetry);
  } catch (error) {
    if (error instanceof ListedAlready) return settledAnswer(body, error.settlement);
    if (!reachedServer(error)) throw error;
    const settlement = await settler.wasCreated(asked);
    if (settlement.kind === 'created') return settledAnswer(body, settlement);
    throw error;
  }
}

/**
 * An answer from the server that does not prove the API left the request alone, or an outcome unknown. Not
 * an answer that is not the API's at all (a sign-in page, a 303, a 2xx without its JSON): it stops a bulk
 * run, since every later request would meet it, the list's read as well.
 */
function reachedServer(error: unknown): boolean {
  if (error instanceof ApiError) return error.status === 429 || error.status >= 500;
  return error instanceof InDoubtError;
}

/** The answer a settled invitation stands as: sent, in the words of the server's list. */
function settledAnswer(
  body: InvitationBody,
  settlement: Settlement & { kind: 'created' },
): InvitationCreated {
  const message = `${settledWords(body.email, settlement)}; it was not sent again.`;
  return {
    status: 200,
    body: {
      success: true,
      message,
      settledBy: 'invitation-list',
      ...(settlement.id !== undefined && { invitationId: settlement.id }),
      ...(settlement.createdAt !== undefined && { createdAt: settlement.createdAt }),
    },
    message,
  };
}

/** "Invitation to X was sent: the server lists it (created at T)". */
export function settledWords(email: string, settlement: Settlement & { kind: 'created' }): string {
  return `Invitation to ${email} was sent: the server lists it${settlement.createdAt ? ` (created at ${settlement.createdAt})` : ''}`;
}
