// An in-memory OneRoster list endpoint with the field's variants, as the pager's send function.
import type { PageResponse, SendPage } from '../../src/oneroster/pager.js';

export const BASE = 'https://or.example.org/v1';
export const PATH = '/ims/oneroster/v1p1/students';

export interface FakeOptions {
  /** Silently clamp limit. */
  cap?: number;
  /** 'last': a next link while there are more, and a last link on every page. */
  link?: 'angle' | 'bare' | 'relative' | 'none' | 'foreign' | 'self' | 'cursor' | 'last';
  total?: boolean;
  /** X-Total-Count as claimed, whatever the data holds (a server whose totals lie). */
  claimedTotal?: number;
  /** Answer an empty page with 204. */
  empty204?: boolean;
  /** Serve the first page whatever the offset. */
  ignoreOffset?: boolean;
  /** Random delay per request, to shuffle completion order. */
  jitterMs?: number;
  defaultLimit?: number;
  /** Insert a record at the front after this many requests (data changing during the read). */
  insertAfter?: number;
}

export interface Fake {
  send: SendPage;
  queries: string[];
  inFlightMax: number;
}

export function records(n: number): { sourcedId: string; givenName: string }[] {
  return Array.from({ length: n }, (_, i) => ({ sourcedId: `stu-${i}`, givenName: `N${i}` }));
}

export function fakeServer(n: number, options: FakeOptions = {}): Fake {
  const data = records(n);
  const fake: Fake = { queries: [], inFlightMax: 0, send: async () => ({}) as PageResponse };
  let inFlight = 0;
  fake.send = async (path, query) => {
    fake.queries.push(query);
    if (options.insertAfter !== undefined && fake.queries.length === options.insertAfter + 1) {
      data.unshift({ sourcedId: 'stu-new', givenName: 'New' });
    }
    inFlight++;
    fake.inFlightMax = Math.max(fake.inFlightMax, inFlight);
    if (options.jitterMs) await new Promise((r) => setTimeout(r, Math.random() * options.jitterMs!));
    inFlight--;
    const params = new URLSearchParams(query);
    const cursor = params.get('cursor');
    const limit = Number(params.get('limit') ?? options.defaultLimit ?? 100);
    const offset = options.ignoreOffset ? 0 : Number(cursor ?? params.get('offset') ?? 0);
    const size = Math.min(limit, options.cap ?? Number.POSITIVE_INFINITY);
    const rows = data.slice(offset, offset + size);
    const headers: Record<string, string> = {};
    if (options.total !== false) headers['x-total-count'] = String(options.claimedTotal ?? data.length);
    const next = offset + size < data.length ? offset + size : undefined;
    const url = `${BASE}${path}?${query}`;
    const nextQuery = () => {
      const p = new URLSearchParams(query);
      p.set('offset', String(next));
      return p.toString().replace(/\+/g, '%20');
    };
    const link = options.link ?? 'angle';
    if (next !== undefined && link !== 'none') {
      const target =
        link === 'relative'
          ? `students?${nextQuery()}`
          : link === 'foreign'
            ? `https://evil.example/v1${path}?${nextQuery()}`
            : link === 'self'
              ? url
              : link === 'cursor'
                ? `${BASE}${path}?cursor=${next}&limit=${limit}`
                : `${BASE}${path}?${nextQuery()}`;
      headers.link = link === 'bare' ? `${target}; rel="next"` : `<${target}>; rel="next"`;
    }
    if (link === 'last') {
      const last = `<${BASE}${path}?limit=${limit}&offset=${Math.max(0, Math.ceil(data.length / size) - 1) * size}>; rel="last"`;
      headers.link = headers.link ? `${headers.link}, ${last}` : last;
    }
    if (rows.length === 0 && options.empty204) return { status: 204, headers, body: '', url };
    return { status: 200, headers, body: JSON.stringify({ users: rows }), url };
  };
  return fake;
}
