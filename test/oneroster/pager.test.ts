// The pager against an in-memory server with each of the field's variants: every record exactly once and
// in order, no endless loops, at most `concurrency` pages in flight.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RosterError } from '../../src/errors.js';
import { Pager, type PagerOptions } from '../../src/oneroster/pager.js';
import { BASE, type FakeOptions, fakeServer, PATH } from './fake-server.js';

interface Run {
  ids: string[];
  pager: Pager;
  warnings: string[];
  queries: string[];
  inFlightMax: number;
  /** The error the read ended with, after the records it handed over. */
  error?: unknown;
}

/** A pager over `send` with what every test here shares: students under "users", one page at a time. */
function pagerOver(send: PagerOptions['send'], options: Partial<PagerOptions> = {}): Pager {
  return new Pager({
    send,
    baseUrl: BASE,
    path: PATH,
    query: {},
    wrapper: 'users',
    all: true,
    concurrency: 1,
    what: 'students',
    warn: () => {},
    debug: () => {},
    ...options,
  });
}

/** Reads every page and gives the error the read ends with. */
const readError = (pager: Pager) =>
  (async () => {
    for await (const _ of pager.pages());
  })().catch((e) => e);

async function readAll(
  n: number,
  server: FakeOptions = {},
  options: Partial<PagerOptions> = {},
): Promise<Run> {
  const fake = fakeServer(n, server);
  const warnings: string[] = [];
  const pager = pagerOver(fake.send, {
    query: { limit: 100 },
    warn: (line) => warnings.push(line),
    ...options,
  });
  const ids: string[] = [];
  const read = async () => {
    for await (const page of pager.pages()) {
      for (const record of page.records) ids.push((record as { sourcedId: string }).sourcedId);
    }
  };
  const error = await read().then(
    () => undefined,
    (e: unknown) => e,
  );
  if (error !== undefined && !server.claimedTotal) throw error;
  return { ids, pager, warnings, queries: fake.queries, inFlightMax: fake.inFlightMax, error };
}

const expected = (n: number) => Array.from({ length: n }, (_, i) => `stu-${i}`);

describe('sequential paging', () => {
  it.each([
    ['angle-bracket Link', {}],
    ['bare Link', { link: 'bare' }],
    ['relative Link', { link: 'relative' }],
    ['no Link', { link: 'none' }],
    ['no Link and no X-Total-Count', { link: 'none', total: false }],
    ['no X-Total-Count, Link', { total: false }],
    ['a 204 for the empty page', { link: 'none', total: false, empty204: true }],
  ] as [string, FakeOptions][])('reads 2,345 records exactly once with %s', async (_name, server) => {
    const run = await readAll(2345, server);
    expect(run.ids).toEqual(expected(2345));
    expect(run.warnings).toEqual([]);
  });

  it('keeps going when the server clamps limit silently (short page, total not reached)', async () => {
    for (const link of ['angle', 'none'] as const) {
      const run = await readAll(2345, { cap: 50, link }, { query: { limit: 1000 } });
      expect(run.ids).toEqual(expected(2345));
      expect(run.queries).toHaveLength(Math.ceil(2345 / 50));
    }
  });

  it('with neither total nor Link, a short page is not the end: it reads until an empty page', async () => {
    const run = await readAll(2345, { cap: 50, link: 'none', total: false }, { query: { limit: 1000 } });
    expect(run.ids).toEqual(expected(2345));
    expect(run.queries.at(-1)).toBe('limit=1000&offset=2345');
  });

  it('stops at X-Total-Count without asking for an empty page when a short page or the Link header ends it', async () => {
    expect((await readAll(250, { link: 'none' })).queries).toEqual([
      'limit=100',
      'limit=100&offset=100',
      'limit=100&offset=200',
    ]);
    expect((await readAll(300, { link: 'last' })).queries).toEqual([
      'limit=100',
      'limit=100&offset=100',
      'limit=100&offset=200',
    ]);
  });

  it('asks once more at X-Total-Count when the last page was full and nothing marks it last', async () => {
    const run = await readAll(300, { link: 'none' });
    expect(run.ids).toEqual(expected(300));
    expect(run.queries).toEqual([
      'limit=100',
      'limit=100&offset=100',
      'limit=100&offset=200',
      'limit=100&offset=300',
    ]);
    expect(run.warnings).toEqual([]);
  });

  it.each([1, 4])(
    "reads past an X-Total-Count that under-reports, to the server's end, and warns (concurrency %i)",
    async (concurrency) => {
      for (const link of ['none', 'angle', 'last'] as const) {
        const run = await readAll(300, { link, claimedTotal: 150 }, { concurrency });
        expect(run.ids, link).toEqual(expected(300));
        expect(run.warnings).toEqual([
          "the server reported 150 students (X-Total-Count) but served 300; all were read, to the server's last page.",
        ]);
      }
    },
  );

  it.each([1, 4])(
    'an X-Total-Count that over-reports is an error after every record served (concurrency %i)',
    async (concurrency) => {
      for (const link of ['none', 'angle', 'last'] as const) {
        const { ids, error } = await readAll(150, { link, claimedTotal: 300 }, { concurrency });
        expect(ids, link).toEqual(expected(150));
        expect(error).toBeInstanceOf(RosterError);
        expect((error as RosterError).code).toBe('unexpected');
        expect((error as RosterError).message).toBe(
          'Reading students: the server reported 300 (X-Total-Count) but its pages ended at 150; the records written are incomplete.',
        );
      }
    },
  );

  it('reads nothing from an empty collection, with 200 or 204', async () => {
    expect((await readAll(0)).ids).toEqual([]);
    expect((await readAll(0, { empty204: true })).ids).toEqual([]);
  });

  it('follows a cursor-style next link', async () => {
    const run = await readAll(450, { link: 'cursor' }, { concurrency: 4 });
    expect(run.ids).toEqual(expected(450));
    expect(run.queries[1]).toBe('cursor=100&limit=100');
  });

  it('starts at --offset and reads one page without --all', async () => {
    const run = await readAll(450, {}, { all: false, query: { limit: 10, offset: 20 } });
    expect(run.ids).toEqual(expected(30).slice(20));
    expect(run.queries).toEqual(['limit=10&offset=20']);
    expect(run.pager.total).toBe(450);
  });
});

describe('servers that would make a naive client loop', () => {
  it('stops with a clear error when the server ignores offset', async () => {
    const error = await readAll(450, { ignoreOffset: true, link: 'none' }).catch((e) => e);
    expect(error).toBeInstanceOf(RosterError);
    expect(error.code).toBe('unexpected');
    expect(error.message).toMatch(/paging does not advance: it served the same page twice \(offset 100\)/);
    const parallel = await readAll(450, { ignoreOffset: true }, { concurrency: 4 }).catch((e) => e);
    expect(parallel.message).toMatch(/paging does not advance: the page at offset 100 repeats 100 records/);
  });

  it('stops when the next link points at the page just read', async () => {
    const error = await readAll(450, { link: 'self' }).catch((e) => e);
    expect(error.message).toMatch(/next link points back to a page already read/);
  });

  it('stops when the same page comes back (records without sourcedId)', async () => {
    const send = async () => ({
      status: 200,
      headers: {},
      body: '{"users":[{"x":1}]}',
      url: `${BASE}${PATH}`,
    });
    const error = await readError(pagerOver(send, { query: { limit: 1 } }));
    expect(error.message).toMatch(/same page twice/);
  });

  it('never follows a next link to another origin: warns once and pages by offset', async () => {
    const run = await readAll(450, { link: 'foreign', total: false });
    expect(run.ids).toEqual(expected(450));
    expect(run.warnings).toHaveLength(1);
    expect(run.warnings[0]).toMatch(/outside the service \(https:\/\/evil\.example\/v1\/ims/);
  });

  it('reports records served twice when the data shifts during the read, writing each once', async () => {
    const run = await readAll(300, { link: 'none', insertAfter: 1 });
    expect(run.pager.repeats).toBe(1);
    expect(run.pager.repeatedIds).toEqual(['stu-99']);
    expect(new Set(run.ids).size).toBe(run.ids.length);
  });

  it('reads a list named after the path, cuts its record texts, and says which key in --debug', async () => {
    const bodies = [
      '{"students":[{"sourcedId":"stu-1"},{"sourcedId":"stu-2"}]}',
      '{"students":[{"sourcedId":"stu-3"}]}',
      '{"students":[]}',
    ];
    const debug: string[] = [];
    const send = async () => ({
      status: 200,
      headers: {},
      body: bodies.shift() ?? '',
      url: `${BASE}${PATH}`,
    });
    const pager = pagerOver(send, {
      query: { limit: 2 },
      debug: (line) => debug.push(line),
      withTexts: true,
    });
    const texts: string[] = [];
    for await (const page of pager.pages()) texts.push(...(page.texts ?? []));
    expect(texts).toEqual(['{"sourcedId":"stu-1"}', '{"sourcedId":"stu-2"}', '{"sourcedId":"stu-3"}']);
    expect(debug).toEqual([
      `students: the records are under "students", named after the path (the standard's key is "users")`,
    ]);
  });

  it('a 200 without the wrapper key is an error, not an empty list', async () => {
    const send = async () => ({ status: 200, headers: {}, body: '{"orgs":[]}', url: `${BASE}${PATH}` });
    const error = await readError(pagerOver(send, { all: false }));
    expect(error.code).toBe('unexpected');
    expect(error.message).toBe(
      'Reading students: the server answered HTTP 200 without a "users" or "students" list (keys: orgs)',
    );
  });
});

describe('parallel pages when the total is known', () => {
  it('fetches with bounded concurrency and hands records over in order', async () => {
    const run = await readAll(5000, { jitterMs: 5 }, { concurrency: 4 });
    expect(run.ids).toEqual(expected(5000));
    expect(run.inFlightMax).toBeGreaterThan(1);
    expect(run.inFlightMax).toBeLessThanOrEqual(4);
    expect(run.queries).toHaveLength(51); // and one past the total: the fake marks no page as the last
  });

  it('steps by the clamped page size and fills the gap of a page clamped later', async () => {
    const run = await readAll(2345, { cap: 50, jitterMs: 3 }, { concurrency: 4, query: { limit: 1000 } });
    expect(run.ids).toEqual(expected(2345));
    expect(run.queries).toHaveLength(Math.ceil(2345 / 50));
    expect(run.queries[1]).toBe('limit=50&offset=50');
  });

  it('holds fewer pages in flight when they are huge: no more than 32 M characters of bodies at once', async () => {
    // A hostile server's page may be up to --max-response-size (64 MiB): four at once took a read past 1 GB.
    const pad = 'x'.repeat(12 * 1024 * 1024);
    let inFlight = 0;
    let inFlightMax = 0;
    const send: PagerOptions['send'] = async (_path, query) => {
      inFlight++;
      inFlightMax = Math.max(inFlightMax, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 2));
      inFlight--;
      const offset = Number(new URLSearchParams(query).get('offset') ?? 0);
      const users = offset < 8 ? [{ sourcedId: `stu-${offset}`, pad }] : [];
      return {
        status: 200,
        headers: { 'x-total-count': '8' },
        body: JSON.stringify({ users }),
        url: `${BASE}${PATH}?${query}`,
      };
    };
    const ids: string[] = [];
    const pager = pagerOver(send, { concurrency: 4, query: { limit: 1 } });
    for await (const page of pager.pages())
      for (const r of page.records) ids.push((r as { sourcedId: string }).sourcedId);
    expect(ids).toEqual(expected(8));
    expect(inFlightMax).toBe(2); // 32 M ÷ 12 M
  });

  it('falls back to sequential when the total is unknown', async () => {
    const run = await readAll(1000, { total: false, jitterMs: 2 }, { concurrency: 4 });
    expect(run.ids).toEqual(expected(1000));
    expect(run.inFlightMax).toBe(1);
  });

  it('property: any size, cap, page size, concurrency and server variant gives every record once, in order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 700 }),
        fc.option(fc.integer({ min: 1, max: 120 }), { nil: undefined }),
        fc.integer({ min: 1, max: 150 }),
        fc.integer({ min: 1, max: 8 }),
        fc.constantFrom('angle', 'bare', 'relative', 'none', 'cursor') as fc.Arbitrary<FakeOptions['link']>,
        fc.boolean(),
        fc.boolean(),
        async (n, cap, limit, concurrency, link, total, empty204) => {
          const run = await readAll(
            n,
            { cap, link, total, empty204, jitterMs: 1 },
            { concurrency, query: { limit } },
          );
          expect(run.ids).toEqual(expected(n));
          expect(run.pager.repeats).toBe(0);
          expect(run.inFlightMax).toBeLessThanOrEqual(concurrency);
        },
      ),
      { numRuns: 60 },
    );
  });
});
