// A collection's reads as `roster roster <collection>` makes them: the list through the pager, one record by
// sourcedId. `roster doctor` reads through the same functions, so the checklist and the command can never
// disagree about an answer.
import { parseJson } from '../api/errors.js';
import { printable } from '../values.js';
import type { Collection } from './collections.js';
import { type PageResponse, Pager } from './pager.js';
import { encodePathSegment, type ReadQuery } from './query.js';
import { type OneRosterService, pageSender } from './service.js';
import { describeKey, recordWrapper, unwrap } from './wrappers.js';

export interface ListRead {
  /** Path below the version prefix for a nested read (schools/{id}/students); else the collection's own. */
  below?: string;
  query: ReadQuery;
  all: boolean;
  concurrency: number;
  warn: (line: string) => void;
  debug: (line: string) => void;
  withTexts?: boolean;
}

export function collectionPager(service: OneRosterService, collection: Collection, read: ListRead): Pager {
  return new Pager({
    send: pageSender(service, `Reading ${collection.name}`),
    baseUrl: service.baseUrl,
    maxRecords: service.maxRecords,
    path: `${service.prefix}/${read.below ?? collection.path}`,
    query: read.query,
    wrapper: collection.listKey,
    all: read.all,
    concurrency: read.concurrency,
    what: collection.name,
    warn: read.warn,
    debug: read.debug,
    withTexts: read.withTexts,
  });
}

/** GET …/{collection}/{id}: the record, whichever key the body keeps it under; errors of the GET as thrown. */
export async function readRecord(
  service: OneRosterService,
  collection: Collection,
  id: string,
  query: string,
  debug: (line: string) => void,
): Promise<{ response: PageResponse; record: Record<string, unknown> }> {
  const what = `Reading ${collection.noun} "${printable(id, 60)}"`;
  const path = `${service.prefix}/${collection.path}/${encodePathSegment(id)}`;
  const response = await service.send(path, query, what);
  const wrapper = recordWrapper(collection.oneKey, collection.path);
  const { key, value } = unwrap(
    parseJson(response.body),
    wrapper,
    `${what}: the server answered HTTP ${response.status}`,
  );
  debug(`${collection.noun}: the record is ${describeKey(wrapper, key)}`);
  return { response, record: value as Record<string, unknown> };
}
