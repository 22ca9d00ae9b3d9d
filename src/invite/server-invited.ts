// The invitations the server itself lists (GET /enrollment/invitations, spec §4.6, every page) as identities
// (store/sent-record.ts), for a campaign to leave out. The spec leaves the records' fields open (§2.6): they are
// used only when they carry an e-mail and a school; otherwise, or when the list cannot be read, the caller
// is told why and relies on roster's own record. Only the identities are kept, page by page (bounded by the
// client's response cap and the pager's page limit), never the records.
import { isRecord } from '../api/errors.js';
import { ApiError, RosterError } from '../errors.js';
import type { Session } from '../session.js';
import { hiddenCharacter } from '../values.js';
import { invitationPages } from './invitation-pages.js';
import { invitationIdentity } from './store/index.js';

export type ServerInvited =
  | {
      identities: Set<string>;
      /** Records read from the server. */
      records: number;
      /** Records left out: no usable e-mail or school (so the list may not name every invitation sent). */
      unusable: number;
    }
  | { unavailable: string; hint?: string };

/** Records asked for per page; a server that refuses the parameter is asked again without it. */
const PER_PAGE = '100';

export async function serverInvitedIdentities(session: Session): Promise<ServerInvited> {
  try {
    return await readAll(session, new URLSearchParams({ perPage: PER_PAGE }));
  } catch (error) {
    if (error instanceof ApiError && error.status === 400) {
      try {
        return await readAll(session, new URLSearchParams());
      } catch (again) {
        return unavailable(again);
      }
    }
    return unavailable(error);
  }
}

async function readAll(session: Session, query: URLSearchParams): Promise<ServerInvited> {
  const identities = new Set<string>();
  let records = 0;
  let unusable = 0;
  for await (const page of invitationPages(session, query, true)) {
    for (const record of page.data) {
      records++;
      const identity = identityOf(record);
      if (identity === undefined) unusable++;
      else identities.add(identity);
    }
  }
  if (records > 0 && identities.size === 0) {
    return {
      unavailable: `its ${records} invitation record${records === 1 ? '' : 's'} carry no e-mail and school (the spec leaves their fields open)`,
    };
  }
  return { identities, records, unusable };
}

/** A record's identity when it names an e-mail and a school as plain text; undefined otherwise. */
function identityOf(record: unknown): string | undefined {
  if (!isRecord(record)) return undefined;
  const email = text(record.email);
  const schoolId = text(record.schoolId);
  const year =
    record.schoolYearId === null || record.schoolYearId === undefined ? '' : text(record.schoolYearId);
  if (!email || !schoolId || year === undefined || !email.includes('@')) return undefined;
  return invitationIdentity(email, schoolId, year);
}

/** A string or a whole number as text, without hidden characters; undefined for anything else. */
function text(value: unknown): string | undefined {
  const s = typeof value === 'string' ? value : Number.isSafeInteger(value) ? String(value) : undefined;
  if (s === undefined || s.length > 1000 || hiddenCharacter(s)) return undefined;
  return s.trim();
}

function unavailable(error: unknown): { unavailable: string; hint?: string } {
  if (!(error instanceof RosterError)) throw error;
  // A refused token (a scope the invitation token lacks) keeps its hint: what to set, and where.
  const hint = error.code === 'auth' ? error.hint : undefined;
  return { unavailable: error.message.replace(/\.$/, ''), ...(hint && { hint }) };
}
