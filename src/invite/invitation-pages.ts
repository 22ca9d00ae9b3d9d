// The pages of the invitation list, for `invite list` and for the campaign's check of what the server has
// already sent (server-invited.ts): one reader, so both stop the same way on a server that misbehaves.
import { type InvitationPage, listInvitations } from '../api/enrollment.js';
import { isRecord } from '../api/errors.js';
import { RosterError } from '../errors.js';
import { SeenIds } from '../oneroster/seen-ids.js';
import { stringify } from '../output/json-text.js';
import type { Session } from '../session.js';
import { tooManyRecords } from '../settings.js';

/**
 * The pages of GET /enrollment/invitations for `query`: the one page asked for, or with `all` every page from
 * its `page` on, until meta.totalPages or an empty page. A page that repeats an earlier one (a server that
 * ignores the page parameter, or cycles through a few pages), or whose invitations were all on earlier pages,
 * is an error, never an endless loop; so is a list longer than --max-records (a server that serves new
 * records forever).
 */
export async function* invitationPages(
  session: Session,
  query: URLSearchParams,
  all: boolean,
): AsyncGenerator<InvitationPage & { pages: number }> {
  const max = session.settings.maxRecords;
  let page = Number(query.get('page') ?? 1);
  const seen: Seen = { pages: new SeenIds(), ids: new SeenIds() };
  let records = 0;
  for (let pages = 1; ; pages++) {
    if (all) query.set('page', String(page));
    const result = await listInvitations(session.api, query);
    if (all && result.data.length > 0) checkAdvances(seen, page, result.data);
    records += result.data.length;
    if (records > max) throw tooManyRecords('invitations', max);
    yield { ...result, pages };
    if (!all || !hasMore(result.meta, page, result.data)) return;
    page++;
  }
}

/** The pages and invitations listed so far, as hashes of a few bytes each (seen-ids.ts): flat memory. */
interface Seen {
  pages: SeenIds;
  ids: SeenIds;
}

/** Throws when a page of a list read to its end repeats an earlier one or holds only invitations listed. */
function checkAdvances(seen: Seen, page: number, data: unknown[]): void {
  if (!seen.pages.add(stringify(data))) throw notAdvancing(page, 'repeats an earlier page');
  const ids = data.flatMap((r) => (isRecord(r) && typeof r.id === 'string' ? [r.id] : []));
  let fresh = 0;
  for (const id of ids) if (seen.ids.add(id)) fresh++;
  if (ids.length > 0 && fresh === 0) throw notAdvancing(page, 'holds only invitations already listed');
}

function notAdvancing(page: number, why: string): RosterError {
  return new RosterError(
    'unexpected',
    `Listing invitations: stopped because the server's paging does not advance: page ${page} ${why}; the server may not support the page parameter.`,
    'What was listed is incomplete. Report this to the vendor.',
  );
}

/** meta.totalPages when the server gives it (the sandbox does); otherwise until an empty page. */
function hasMore(meta: unknown, page: number, data: unknown[]): boolean {
  if (data.length === 0) return false;
  if (isRecord(meta) && typeof meta.totalPages === 'number') return page < meta.totalPages;
  return true;
}
