// One collection's delta read: every page of `dateLastModified>'<moment>'` (joined to the user's filter)
// through the pager, each record passed through the ChangeTracker (overlap already reported, records the
// server should not have sent), the server's clock taken from the first answer's Date header. Clocks that
// are off are said on stderr; they never stop the read or change what it reports.
import { ApiError } from '../errors.js';
import { ChangeTracker, OVERLAP_MS, parseHttpDate, type StartWindow } from './change-window.js';
import type { Collection } from './collections.js';
import { isToBeDeleted } from './csv-binding.js';
import { Pager } from './pager.js';
import { buildQuery } from './query.js';
import type { OneRosterService } from './service.js';
import { combineFilters, deltaFilter, isoUtc } from './since.js';

export interface ChangeReadOptions {
  start: StartWindow;
  /** The user's own --filter. */
  filter?: string;
  pageSize: number;
  concurrency: number;
  withTexts: boolean;
}

export interface ChangeHooks {
  warn(line: string): void;
  debug(line: string): void;
  now(): number;
}

export interface ChangeReadResult {
  tracker: ChangeTracker;
  /** Reported records: new or changed, and (counted apart) marked tobedeleted. */
  changed: number;
  toBeDeleted: number;
  pager: Pager;
  /** The filter sent, if any. */
  filter?: string;
}

export type PageSink = (records: unknown[], texts: string[] | undefined) => Promise<void>;

export async function readChanges(
  service: OneRosterService,
  collection: Collection,
  options: ChangeReadOptions,
  hooks: ChangeHooks,
  sink: PageSink,
  path = collection.path,
): Promise<ChangeReadResult> {
  const tracker = new ChangeTracker(options.start);
  const since = options.start.since;
  const filter = combineFilters(since === undefined ? undefined : deltaFilter(since), options.filter);
  const what = `Reading changed ${collection.name}`;
  const pager = new Pager({
    send: async (pagePath, query) => {
      const before = hooks.now();
      const response = await service.send(pagePath, query, what);
      if (!tracker.clockSet) {
        setClock(tracker, response.headers.date, before, collection.name, hooks, options.start.relative);
      }
      return response;
    },
    baseUrl: service.baseUrl,
    maxRecords: service.maxRecords,
    path: `${service.prefix}/${path}`,
    query: { limit: options.pageSize, ...(filter === undefined ? {} : { filter }) },
    wrapper: collection.listKey,
    all: true,
    concurrency: options.concurrency,
    what: collection.name,
    warn: hooks.warn,
    debug: hooks.debug,
    withTexts: options.withTexts,
  });
  hooks.debug(`${collection.name}: ${buildQuery({ filter })}`);
  let changed = 0;
  let toBeDeleted = 0;
  try {
    for await (const page of pager.pages()) {
      const records: unknown[] = [];
      const texts: string[] | undefined = page.texts && [];
      page.records.forEach((record, i) => {
        if (!tracker.admit(record)) return;
        records.push(record);
        texts?.push(page.texts?.[i] as string);
        if (isToBeDeleted(record)) toBeDeleted++;
        else changed++;
      });
      if (records.length > 0) await sink(records, texts);
    }
  } catch (error) {
    throw refused(error, collection.name, filter, since);
  }
  if (!tracker.clockSet) tracker.setClock(hooks.now(), 'local'); // not reached: the pager always asks once
  if (tracker.stale > 0) {
    hooks.warn(
      `the server sent ${tracker.stale} ${collection.name} not changed since ${isoUtc(since ?? 0)}: it may ignore the dateLastModified filter; they were left out.`,
    );
  }
  warnStamps(tracker, collection.name, hooks);
  return { tracker, changed, toBeDeleted, pager, ...(filter === undefined ? {} : { filter }) };
}

/** A Date before this is a clock never set (1970) or a damaged one, not a time. */
const EARLIEST_CLOCK = Date.UTC(2000, 0, 1);

/** Sets the tracker's clock from the server's Date header (sent `before` by the local clock). */
export function setClock(
  tracker: ChangeTracker,
  header: string | string[] | undefined,
  before: number,
  what: string,
  hooks: Pick<ChangeHooks, 'warn'>,
  /** --since was a duration, measured back from this machine's clock. */
  relative = false,
): void {
  const server = parseHttpDate(header);
  if (server === undefined || server < EARLIEST_CLOCK) {
    const sent =
      server !== undefined
        ? `a Date header of ${isoUtc(server)}`
        : header === undefined
          ? 'no Date header'
          : 'a Date header roster cannot read';
    hooks.warn(
      `the server sent ${sent} reading ${what}: this machine's clock stands in for the server's (the next --since last starts from the newest dateLastModified read or this machine's clock, whichever is earlier, less ${OVERLAP_MS / 60_000} minutes).`,
    );
    tracker.setClock(before, 'local');
    return;
  }
  const skew = server - before;
  if (Math.abs(skew) > OVERLAP_MS) {
    // A duration is measured back from this machine's clock, and the filter compares the server's stamps:
    // with the server's clock behind, the moment asked for is later by the server's, and what lies between
    // is lost (ahead, the window is only wider).
    const duration =
      relative && skew < 0
        ? ` The --since duration was measured back from this machine's clock: by the server's, that moment is ${span(-skew)} later, and changes it stamped in between are missing. Give the moment as a time by the server's clock, or use --since last.`
        : '';
    hooks.warn(
      `the server's clock is ${span(Math.abs(skew))} ${skew > 0 ? 'ahead of' : 'behind'} this machine's (reading ${what}): the next --since last starts from the newest dateLastModified read or that clock, whichever is earlier.${duration}`,
    );
  }
  tracker.setClock(server, 'server');
}

/** Says when the stamps read cannot move the moment on: none at all, or some later than the server's clock. */
export function warnStamps(tracker: ChangeTracker, what: string, hooks: Pick<ChangeHooks, 'warn'>): void {
  const ahead = tracker.stampedAhead;
  if (ahead !== undefined) {
    hooks.warn(
      `the server sent ${what} stamped ${isoUtc(ahead)}, after its own clock: the next --since last starts from its clock and may report some of them again.`,
    );
  }
  if (tracker.newest === undefined && tracker.unstamped > 0) {
    hooks.warn(
      `the server sent ${tracker.unstamped} ${what} without a dateLastModified: the next --since last ${tracker.start.since === undefined ? 'reads everything again' : 'starts from the same moment as this one'}.`,
    );
  }
}

/** 7 minutes, 2 hours, 27394 days: rounded, for a warning. */
function span(ms: number): string {
  const [amount, unit] =
    ms < 90 * 60_000
      ? [ms / 60_000, 'minute']
      : ms < 48 * 3_600_000
        ? [ms / 3_600_000, 'hour']
        : [ms / 86_400_000, 'day'];
  const n = Math.round(amount);
  return `${n} ${unit}${n === 1 ? '' : 's'}`;
}

/** A 400 to the delta filter: name the cause and the way out (a full read). */
export function refused(error: unknown, what: string, filter: string | undefined, since: number | undefined) {
  if (!(error instanceof ApiError) || error.status !== 400 || filter === undefined) return error;
  return new ApiError(
    error.code as 'api',
    400,
    `The server refused the filter ${filter} reading ${what}: ${error.message.replace(/^.*?\(HTTP 400\):\s*/, '').replace(/\.$/, '')}.`,
    since === undefined
      ? 'Check --filter.'
      : `This server may not support > on dateLastModified (some do not). Read everything instead: roster roster ${what} --all, or roster roster export --out DIR without --since.`,
  );
}
