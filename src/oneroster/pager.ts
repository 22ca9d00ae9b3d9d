// Reads a OneRoster collection page by page, as real servers page: it follows `Link rel="next"` (only
// below our own base URL), otherwise advances `offset` by the rows received; a short page is not the end
// while X-Total-Count is not reached (servers clamp `limit` silently); an empty page or a 204 is the end.
// X-Total-Count is a claim, not the end: the read goes on past it to the server's own last page (a Link
// header without next, a short page, an empty one) and warns when it under-reported; pages that end before
// it are an error once every record served was handed over. A server that repeats a page or a next link
// stops the read with an error instead of looping. When the total is known, the pages up to it are fetched
// with bounded concurrency and handed over strictly in order, so at most `concurrency` pages are ever in
// memory. Each page's list is under the standard's key or the one named after the path (wrappers.ts).
// A read hands over at most --max-records records: a server that never ends its list is an error.
import type { IncomingHttpHeaders } from 'node:http';
import { isRecord, parseJson } from '../api/errors.js';
import { RosterError } from '../errors.js';
import { DEFAULT_MAX_RECORDS, tooManyRecords } from '../settings.js';
import { offsetOf, parseLinkHeader, resolveLink } from './link.js';
import { buildQuery, type ReadQuery } from './query.js';
import { recordTexts } from './record-texts.js';
import { SeenIds } from './seen-ids.js';
import { describeKey, listWrapper, unwrap, type Wrapper } from './wrappers.js';

export interface PageResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  url: string;
}

/** Sends one GET below the base URL (path, raw query); resolves with a 2xx answer or throws. */
export type SendPage = (path: string, query: string) => Promise<PageResponse>;

export interface PagerOptions {
  send: SendPage;
  /** The service base URL: next links elsewhere are never followed. */
  baseUrl: string;
  /** Collection path below the base URL, e.g. `/ims/oneroster/v1p1/students`. */
  path: string;
  query: ReadQuery;
  /** The standard's key of the list in a page's body, e.g. `users` (see wrappers.ts for the other). */
  wrapper: string;
  /** Follow pagination to the end; otherwise read the one page asked for. */
  all: boolean;
  /** Pages in flight when the total is known (1: strictly sequential). */
  concurrency: number;
  /** Names the collection in messages, e.g. "students". */
  what: string;
  warn: (line: string) => void;
  debug: (line: string) => void;
  /** The most records the read hands over (default DEFAULT_MAX_RECORDS): past it, an error. */
  maxRecords?: number;
  /** Also hand over each record's text as the server sent it, where it can be cut out safely. */
  withTexts?: boolean;
  /** Told each sourcedId served again (the record is left out): the audit reports them as duplicates. */
  repeated?: (id: string) => void;
}

export interface Page {
  /** Records not seen before, in the server's order. */
  records: unknown[];
  /** Their texts (one line of JSON each), when asked for and the page allowed it. */
  texts?: string[];
  /** Offset of the page's first record. */
  offset: number;
}

/** A page to ask for: a path below the base URL and its raw query. */
interface PageRequest {
  path: string;
  query: string;
}

interface ParsedPage {
  records: unknown[];
  texts?: string[];
  total?: number;
  links: Map<string, string>;
  url: string;
  body: string;
}

export class Pager {
  /** X-Total-Count as last reported. */
  total?: number;
  pagesRead = 0;
  /** Records handed over (repeats left out). */
  delivered = 0;
  /** Records the server served more than once. */
  repeats = 0;
  readonly repeatedIds: string[] = [];
  private readonly seen = new SeenIds();
  /** The bodies (hashed) of pages whose records have no sourcedId: see fresh. */
  private readonly idlessPages = new SeenIds();
  private warnedElsewhere = false;
  /** The most records a page held so far: a page as long is full, not the last. */
  private largestPage = 0;
  /** The longest page body so far (characters): the window holds fewer of a hostile size (pagesInFlight). */
  private largestBody = 0;
  private readonly wrapper: Wrapper;
  /** The key the last page's records were under (--debug says when it changes). */
  private keyUsed?: string;

  constructor(private readonly options: PagerOptions) {
    this.wrapper = listWrapper(options.wrapper, options.path);
  }

  /** --fields: pages may be alike by design (records of a few fields, maybe without their ids). */
  private get selectsFields(): boolean {
    return (this.options.query.fields?.length ?? 0) > 0;
  }

  async *pages(): AsyncGenerator<Page> {
    const { options } = this;
    let offset = options.query.offset ?? 0;
    let request: PageRequest = { path: options.path, query: buildQuery(options.query) };
    const requested = new Set<string>();
    let previousBody: string | undefined;
    for (let first = true; ; first = false) {
      const page = await this.fetchNew(request, requested, offset);
      if (page.records.length === 0) return this.ended(offset);
      this.checkNotTwice(page, previousBody, offset);
      previousBody = page.body;
      yield this.fresh(page, offset);
      offset += page.records.length;
      if (!options.all) return;

      if (this.atTheEnd(page, offset)) return this.ended(offset);
      const total = this.total;
      this.largestPage = Math.max(this.largestPage, page.records.length);
      const next = this.nextLink(page);
      if (first && total !== undefined && options.concurrency > 1 && offsetPaged(next, offset)) {
        const resume = yield* this.parallel(offset, page.records.length, total);
        if (resume === undefined) return;
        offset = resume;
        request = this.atOffset(offset);
      } else {
        const after = this.requestAfter(page, next, offset);
        if (after === undefined) return;
        request = after;
      }
    }
  }

  /** X-Total-Count is a claim: the read ends where the server's pages end, at or past it. */
  private atTheEnd(page: ParsedPage, offset: number): boolean {
    const { total } = this;
    return total !== undefined && offset >= total && this.lastPage(page, this.options.query.limit);
  }

  /** The collection's page at `offset`, as the query asks for it otherwise. */
  private atOffset(offset: number): PageRequest {
    return { path: this.options.path, query: buildQuery({ ...this.options.query, offset }) };
  }

  /** Fetches a page not asked for before in this read: a next link back to one would loop. */
  private async fetchNew(request: PageRequest, requested: Set<string>, offset: number): Promise<ParsedPage> {
    const key = `${request.path}?${request.query}`;
    if (requested.has(key)) {
      throw this.loopError(`its next link points back to a page already read (offset ${offset})`);
    }
    requested.add(key);
    return this.fetch(request.path, request.query);
  }

  /** Throws when the server serves the page before again (alike by design with --fields). */
  private checkNotTwice(page: ParsedPage, previousBody: string | undefined, offset: number): void {
    if (page.body === previousBody && !this.selectsFields)
      throw this.loopError(`it served the same page twice (offset ${offset})`);
  }

  /**
   * The request after a page read on its own: its next link, else the next offset; undefined when a Link
   * header names the last page and no next one, and no total says otherwise: this was it.
   */
  private requestAfter(
    page: ParsedPage,
    next: PageRequest | undefined,
    offset: number,
  ): PageRequest | undefined {
    if (next) return { path: next.path, query: next.query };
    if (this.total === undefined && page.links.size > 0 && page.links.has('last')) return undefined;
    return this.atOffset(offset);
  }

  /**
   * The remaining pages from `from` up to the total, in steps of the page size the server actually
   * served, `concurrency` at a time. Resolves with the offset to read on from when the last of them was
   * full and not marked last (the total under-reported), else undefined (the end).
   */
  private async *parallel(
    from: number,
    pageSize: number,
    total: number,
  ): AsyncGenerator<Page, number | undefined> {
    const { options } = this;
    options.debug(
      `total ${total} known: fetching pages of ${pageSize} with concurrency ${options.concurrency}`,
    );
    interface Slot {
      offset: number;
      limit: number;
      result: Promise<PageResponse>;
    }
    // Bodies wait their turn as one string each and are parsed only when written: parsed records that
    // sat in the window would survive into the old generation and swell the heap (peak RSS) for nothing.
    const slot = (offset: number, limit: number): Slot => {
      const result = this.options.send(options.path, buildQuery({ ...options.query, offset, limit }));
      result.catch(() => {}); // awaited in order below; an early failure must not go unhandled meanwhile
      return { offset, limit, result };
    };
    const window: Slot[] = [];
    let scheduled = from;
    const fill = () => {
      while (window.length < this.pagesInFlight() && scheduled < total) {
        window.push(slot(scheduled, pageSize));
        scheduled += pageSize;
      }
    };
    fill();
    let reached = from;
    for (let head = window.shift(); head; head = window.shift()) {
      const page = this.parse(await head.result);
      const got = page.records.length;
      if (got === 0) {
        this.ended(head.offset);
        return undefined;
      }
      yield this.fresh(page, head.offset);
      reached = head.offset + got;
      // A short page before the total: the server clamped this one; read the gap before moving on.
      if (got < head.limit && reached < this.claimed(total)) window.unshift(slot(reached, head.limit - got));
      else if (window.length === 0 && scheduled >= total && this.lastPage(page, head.limit)) {
        this.ended(reached);
        return undefined;
      }
      fill();
    }
    return reached;
  }

  private async fetch(path: string, query: string): Promise<ParsedPage> {
    return this.parse(await this.options.send(path, query));
  }

  /**
   * Pages in flight at once: --concurrency, unless so many bodies of the longest size yet would pass
   * WINDOW_CHARS. Each answer may be up to --max-response-size (64 MiB): four such pages held as bytes,
   * text and records took a read past 1 GB; a district's pages (~0.7 MB) are far below it.
   */
  private pagesInFlight(): number {
    const fit = Math.floor(WINDOW_CHARS / Math.max(1, this.largestBody));
    return Math.max(1, Math.min(this.options.concurrency, fit));
  }

  private parse(response: PageResponse): ParsedPage {
    this.pagesRead++;
    this.largestBody = Math.max(this.largestBody, response.body.length);
    const page = this.parseBody(response);
    if (page.total !== undefined) this.total = page.total;
    return page;
  }

  private parseBody(response: PageResponse): ParsedPage {
    const links = parseLinkHeader(response.headers.link);
    const total = parseTotal(response.headers['x-total-count']);
    const base = { links, url: response.url, body: response.body, ...(total === undefined ? {} : { total }) };
    if (response.status === 204) return { ...base, records: [] };
    const { key, value } = unwrap(
      parseJson(response.body),
      this.wrapper,
      `Reading ${this.options.what}: the server answered HTTP ${response.status}`,
    );
    if (key !== this.keyUsed) {
      this.keyUsed = key;
      this.options.debug(`${this.options.what}: the records are ${describeKey(this.wrapper, key)}`);
    }
    const list = value as unknown[];
    const texts = this.options.withTexts ? recordTexts(response.body, key) : undefined;
    return { ...base, records: list, ...(texts?.length === list.length && { texts }) };
  }

  /** The records not delivered before; a page with nothing new means the server is not advancing. */
  private fresh(page: ParsedPage, offset: number): Page {
    const { out, outTexts, withIds } = this.unseen(page);
    this.checkAdvances(page, withIds, out.length, offset);
    const max = this.options.maxRecords ?? DEFAULT_MAX_RECORDS;
    if (this.delivered + out.length > max) throw tooManyRecords(this.options.what, max);
    this.delivered += out.length;
    return { records: out, offset, ...(outTexts && { texts: outTexts }) };
  }

  /**
   * A page's records (and their texts) not handed over before: those without a sourcedId, and those whose
   * sourcedId is new (a repeat is counted and told). `withIds`: how many had a sourcedId.
   */
  private unseen({ records, texts }: ParsedPage): { out: unknown[]; outTexts?: string[]; withIds: number } {
    const out: unknown[] = [];
    const outTexts: string[] | undefined = texts && [];
    let withIds = 0;
    for (let i = 0; i < records.length; i++) {
      const record = records[i];
      const id = isRecord(record) && typeof record.sourcedId === 'string' ? record.sourcedId : undefined;
      if (id !== undefined) withIds++;
      if (id === undefined || this.seen.add(id)) {
        out.push(record);
        outTexts?.push(texts?.[i] as string);
      } else this.noteRepeat(id);
    }
    return { out, outTexts, withIds };
  }

  private noteRepeat(id: string): void {
    this.repeats++;
    if (this.repeatedIds.length < 5) this.repeatedIds.push(id);
    this.options.repeated?.(id);
  }

  /** Throws when a page brings nothing new (`unseen` of its records were not handed over before). */
  private checkAdvances(
    { records, body }: ParsedPage,
    withIds: number,
    unseen: number,
    offset: number,
  ): void {
    if (withIds > 0 && unseen === 0) {
      throw this.loopError(`the page at offset ${offset} repeats ${withIds} records already received`);
    }
    // Records without sourcedIds cannot be told apart: a server cycling through the same pages would go on
    // to --max-records (millions of requests). Such a page is known by its whole body instead, unless
    // --fields left the ids out: pages of `role` alone are alike on any server.
    if (withIds === 0 && records.length > 0 && !this.selectsFields && !this.idlessPages.add(body)) {
      throw this.loopError(`the page at offset ${offset} repeats one already received`);
    }
  }

  /** The total as last reported, or the one given when none was. */
  private claimed(fallback: number): number {
    return this.total ?? fallback;
  }

  /**
   * Whether a page the total says is the last one is the server's own last page too: its Link header has
   * no next link, or it is shorter than asked and than the pages before it (a server that clamps `limit`
   * serves every page shorter than asked).
   */
  private lastPage(page: ParsedPage, asked: number | undefined): boolean {
    if (page.links.size > 0 && !page.links.has('next')) return true;
    const full = Math.min(asked ?? Number.POSITIVE_INFINITY, this.largestPage || Number.POSITIVE_INFINITY);
    return page.records.length < full;
  }

  /**
   * The read reached the server's end at `offset`. Fewer records than its X-Total-Count claims: the output
   * is incomplete, an error (after every record received was handed over). More: complete, a warning.
   */
  private ended(offset: number): void {
    const { total } = this;
    if (total === undefined || !this.options.all) return;
    const start = this.options.query.offset ?? 0;
    if (offset < total) {
      throw new RosterError(
        'unexpected',
        `Reading ${this.options.what}: the server reported ${total} (X-Total-Count) but its pages ended at ${offset - start}${start ? ` (offset ${offset})` : ''}; the records written are incomplete.`,
        'Run it again; if it keeps happening, report it to the vendor.',
      );
    }
    if (offset > total) {
      this.options.warn(
        `the server reported ${total} ${this.options.what} (X-Total-Count) but served ${offset - start}; all were read, to the server's last page.`,
      );
    }
  }

  private nextLink(page: ParsedPage) {
    const next = page.links.get('next');
    if (next === undefined) return undefined;
    const target = resolveLink(next, page.url, this.options.baseUrl);
    if (target.kind === 'ours') return target;
    if (!this.warnedElsewhere) {
      this.warnedElsewhere = true;
      this.options.warn(
        target.kind === 'elsewhere'
          ? `the server's next link leads outside the service (${stripQuery(target.url)}); it is not followed (your token stays here), paging by offset instead.`
          : 'the server sent an unreadable next link; paging by offset instead.',
      );
    }
    return undefined;
  }

  private loopError(why: string): RosterError {
    return new RosterError(
      'unexpected',
      `Reading ${this.options.what}: stopped because the server's paging does not advance: ${why}`,
      'The records written so far are incomplete. Try a different --page-size, or report this to the vendor.',
    );
  }
}

/** Characters of page bodies the parallel window may hold at once (see pagesInFlight). */
const WINDOW_CHARS = 32 * 1024 * 1024;

/** Offset paging may replace the links when there is no next link, or the next link is our next offset. */
function offsetPaged(next: { query: string } | undefined, offset: number): boolean {
  return next === undefined || offsetOf(next.query) === offset;
}

function parseTotal(value: string | string[] | undefined): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text || !/^\d+$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : undefined;
}

const stripQuery = (url: string) => url.split('?')[0] ?? url;
