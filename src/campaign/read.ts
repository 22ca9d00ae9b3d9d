// A OneRoster list read for a campaign: every page through the pager (parallel pages, retries, each record
// once), each record handed to `each` and dropped, so a district is never held whole. A server that answers
// 400 to the filter or to `fields=` before its first page is asked once more without them (--debug says so):
// both are only ways to make the read lighter, never what decides who is in the plan.
import type { Context } from '../context.js';
import { ApiError } from '../errors.js';
import { Pager } from '../oneroster/pager.js';
import type { ReadQuery } from '../oneroster/query.js';
import { type OneRosterService, pageSender } from '../oneroster/service.js';

export interface ListRead {
  /** Path below the version prefix, e.g. `schools/org-sch-1/students`. */
  path: string;
  query: ReadQuery;
  /** Names the list in messages: "the students of Alder Elementary School". */
  what: string;
  concurrency: number;
}

/** Reads the list to its end; resolves with the number of records handed over. */
export async function streamList(
  ctx: Context,
  service: OneRosterService,
  read: ListRead,
  each: (record: unknown) => void,
): Promise<number> {
  let delivered = 0;
  const run = async (query: ReadQuery) => {
    const pager = new Pager({
      send: pageSender(service, `Reading ${read.what}`),
      baseUrl: service.baseUrl,
      maxRecords: service.maxRecords,
      path: `${service.prefix}/${read.path}`,
      query,
      wrapper: 'users',
      all: true,
      concurrency: read.concurrency,
      what: read.what,
      warn: (line) => ctx.log.warn(line),
      debug: (line) => ctx.log.debug(line),
    });
    for await (const page of pager.pages()) {
      for (const record of page.records) each(record);
      delivered += page.records.length;
    }
    if (pager.repeats > 0)
      ctx.log.warn(
        `the server served ${pager.repeats} of ${read.what} more than once; each was counted once. Records may have changed during the read: run the plan again to be sure.`,
      );
  };
  try {
    await run(read.query);
  } catch (error) {
    const refused = [read.query.filter && 'the filter', read.query.fields && 'fields='].filter(Boolean);
    if (!(error instanceof ApiError && error.status === 400) || delivered > 0 || refused.length === 0)
      throw error;
    ctx.log.debug(
      `reading ${read.what}: the server refused ${refused.join(' and ')} (HTTP 400); asking again without ${refused.length > 1 ? 'them' : 'it'}`,
    );
    const { filter: _filter, fields: _fields, ...plain } = read.query;
    await run(plain);
  }
  return delivered;
}
