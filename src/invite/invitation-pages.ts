// The pages of the invitation list, for `invite list` and for the campaign's check of what the server has
// already sent (server-invited.ts): one reader, so both stop the same way on a server that misbehaves.
import { type InvitationPage, listInvitations } from '../api/enrollment.js';
import { isRecord } from '../api/errors.js';
import { RosterError } from '../errors.js';
import type { Session } from '../session.js';
import { tooManyRecords } from '../settings.js';

/**
 * The pages of GET /enrollment/invitations for `query`: the one page asked for, or with `all` every page from
 * its `page` on, until meta.totalPages or an empty page. A page that repeats the previous one (a server that
 * ignores the page parameter) is an error, never an endless loop; so is a list longer than --max-records (a
 * server that serves new records forever).
 */
export async function* invitationPages(
  session: Session,
  query: URLSearchParams,
  all: boolean,
): AsyncGenerator<InvitationPage & { pages: number }> {
  const max = session.settings.maxRecords;
  let page = Number(query.get('page') ?? 1);
  let previous: string | undefined;
  let records = 0;
  for (let pages = 1; ; pages++) {
    if (all) query.set('page', String(page));
    const result = await listInvitations(session.api, query);
    if (all) {
      const fingerprint = JSON.stringify(result.data);
      if (fingerprint === previous) {
        throw new RosterError(
          'unexpected',
          `Listing invitations: page ${page} repeats the previous one; the server may not support the page parameter.`,
        );
      }
      previous = fingerprint;
    }
    records += result.data.length;
    if (records > max) throw tooManyRecords('invitations', max);
    yield { ...result, pages };
    if (!all || !hasMore(result.meta, page, result.data)) return;
    page++;
  }
}

/** meta.totalPages when the server gives it (the sandbox does); otherwise until an empty page. */
function hasMore(meta: unknown, page: number, data: unknown[]): boolean {
  if (data.length === 0) return false;
  if (isRecord(meta) && typeof meta.totalPages === 'number') return page < meta.totalPages;
  return true;
}
