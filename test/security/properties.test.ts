// Property-based tests (fast-check) for the parsers and encoders that meet untrusted text: the CSV reader
// (invitation files from spreadsheets), the OneRoster filter/query encoder and the Link header parser
// (servers' answers), and the Basic-credential encoder (secrets with any character).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { basicAuthorization, formEncode } from '../../src/api/oauth.js';
import { csvLine, parseCsv } from '../../src/invite/csv.js';
import { parseLinkHeader, resolveLink } from '../../src/oneroster/link.js';
import { buildQuery, checkFilter, MAX_FILTER_LENGTH, type ReadQuery } from '../../src/oneroster/query.js';
import { decodeQuery, parseReadQuery } from '../../src/sandbox/oneroster/query.js';

const RUNS = { numRuns: 300, seed: 6 };

/** Text a spreadsheet cell may hold: commas, quotes, CR, LF, spaces, tabs, non-ASCII, emoji. */
const cell = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.stringMatching(/^[a-z",\r\n ;\t]{0,8}$/),
  fc.constantFrom('', '"', '""', ',', '\r\n', '\n', '\r', ' lead', 'trail ', 'Zoë', '𝒜', 'a"b,c\nd'),
);
/** A record as the reader returns it: a record of one empty field is a blank line, and is skipped. */
const record = fc
  .array(cell, { minLength: 1, maxLength: 6 })
  .filter((fields) => !(fields.length === 1 && fields[0] === ''));

/** A correct RFC 4180 writer that quotes every field. */
const quoteAll = (fields: string[]) => fields.map((f) => `"${f.replace(/"/g, '""')}"`).join(',');

describe('CSV reader (src/invite/csv.ts)', () => {
  it('round-trips any records through a correct writer: BOM or not, CRLF, LF or CR, last line end or not', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(record, { minLength: 1, maxLength: 8 }),
        fc.boolean(),
        fc.constantFrom('\r\n', '\n', '\r'),
        fc.boolean(),
        fc.boolean(),
        async (records, bom, eol, finalEol, minimalQuoting) => {
          const lines = records.map((r) => (minimalQuoting ? csvLine(r).replace(/\r\n$/, '') : quoteAll(r)));
          const text = `${bom ? '\ufeff' : ''}${lines.join(eol)}${finalEol ? eol : ''}`;
          const parsed = await parseCsv(text);
          expect(parsed.problems).toEqual([]);
          expect(parsed.records.map((r) => r.fields)).toEqual(records);
          // Each record starts on the line after every line break before it, those inside quotes included.
          let line = 1;
          parsed.records.forEach((r, i) => {
            expect(r.line).toBe(line);
            line += (lines[i]?.match(/\r\n|\r|\n/g) ?? []).length + 1;
          });
        },
      ),
      RUNS,
    );
  });

  it('never throws on arbitrary text, and reports every problem with a line inside the file', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary', maxLength: 200 }), async (text) => {
        const parsed = await parseCsv(text);
        const lastLine = (text.match(/\r\n|\r|\n/g) ?? []).length + 1;
        for (const { line } of [...parsed.records, ...parsed.problems]) {
          expect(line).toBeGreaterThanOrEqual(1);
          expect(line).toBeLessThanOrEqual(lastLine);
        }
      }),
      RUNS,
    );
  });
});

describe('OneRoster query and filter encoder (src/oneroster/query.ts)', () => {
  const field = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_.]{0,10}$/);
  /** Filters with quotes (doubled inside values), operators, AND/OR and any Unicode in the values. */
  const filter = fc
    .tuple(
      field,
      fc.constantFrom('=', '!=', '>', '>=', '<', '<=', '~'),
      fc.string({ unit: 'grapheme', maxLength: 20 }),
      fc.option(
        fc.tuple(fc.constantFrom(' AND ', ' OR '), field, fc.string({ unit: 'grapheme', maxLength: 10 })),
      ),
    )
    .map(([f, op, value, more]) => {
      const quoted = (v: string) => `'${v.replace(/'/g, "''")}'`;
      return `${f}${op}${quoted(value)}${more ? `${more[0]}${more[1]}=${quoted(more[2])}` : ''}`;
    });
  const query = fc.record(
    {
      limit: fc.integer({ min: 1, max: 10_000 }),
      offset: fc.integer({ min: 0, max: 1_000_000 }),
      sort: field,
      orderBy: fc.constantFrom('asc' as const, 'desc' as const),
      filter,
      fields: fc.array(field, { minLength: 1, maxLength: 4 }),
    },
    { requiredKeys: [] },
  );

  it('a strict server (no + as space) reads back exactly the query that was meant', () => {
    fc.assert(
      fc.property(query, (q: ReadQuery) => {
        const raw = buildQuery(q);
        expect(raw).toMatch(/^(?:[a-zA-Z]+=(?:[A-Za-z0-9\-._~]|%[0-9A-F]{2})*(?:&|$))*$/);
        const read = parseReadQuery(decodeQuery(raw));
        if (q.limit !== undefined) expect(read.limit).toBe(q.limit);
        expect(read.offset).toBe(q.offset ?? 0);
        expect(read.sort).toBe(q.sort);
        expect(read.orderBy).toBe(q.orderBy ?? 'asc');
        expect(read.filter).toBe(q.filter?.trim() ? q.filter : undefined);
        expect(read.fields).toEqual(q.fields);
      }),
      RUNS,
    );
  });

  it('checkFilter accepts every well-formed filter and refuses any with a control character', () => {
    fc.assert(
      fc.property(filter, fc.integer({ min: 0, max: 0x9f }), fc.nat(), (f, code, at) => {
        if (f.length <= MAX_FILTER_LENGTH) expect(checkFilter(f)).toBe(f);
        if (code >= 0x20 && code < 0x7f) return;
        const i = at % (f.length + 1);
        const bad = `${f.slice(0, i)}${String.fromCharCode(code)}${f.slice(i)}`;
        expect(() => checkFilter(bad)).toThrow(/control character|empty/);
      }),
      RUNS,
    );
  });
});

describe('Link header parser (src/oneroster/link.ts)', () => {
  const REL = ['next', 'prev', 'first', 'last', 'self'];
  /** Links as servers write them: absolute or relative, with queries holding commas, = and escapes. */
  const url = fc
    .tuple(
      fc.constantFrom('https://api.example/v1', 'http://127.0.0.1:4010/v1', '', '/v1'),
      fc.array(fc.stringMatching(/^[a-z0-9-]{1,8}$/), { minLength: 1, maxLength: 3 }),
      fc.array(
        fc.tuple(fc.stringMatching(/^[a-zA-Z]{1,6}$/), fc.stringMatching(/^[a-zA-Z0-9,.~%-]{0,10}$/)),
        {
          maxLength: 4,
        },
      ),
    )
    .map(([origin, path, params]) => {
      const query = params.map(([k, v]) => `${k}=${v}`).join('&');
      return `${origin}/${path.join('/')}${query ? `?${query}` : ''}`;
    });
  const link = fc.record({
    url,
    rels: fc.uniqueArray(fc.constantFrom(...REL), { minLength: 1, maxLength: 2 }),
    relQuoted: fc.boolean(),
    upper: fc.boolean(),
    space: fc.constantFrom('', ' ', '  '),
  });

  it('finds the first URL of each rel, in angle brackets or bare, quoted or not, any case and spacing', () => {
    fc.assert(
      fc.property(fc.array(link, { minLength: 1, maxLength: 5 }), fc.boolean(), (links, bare) => {
        const header = links
          .map((l) => {
            const rel = l.upper ? l.rels.join(' ').toUpperCase() : l.rels.join(' ');
            const relText = l.relQuoted || l.rels.length > 1 ? `"${rel}"` : rel;
            return `${bare ? l.url : `<${l.url}>`};${l.space}rel=${relText}`;
          })
          .join(`,${links[0]?.space ?? ''}`);
        const expected = new Map<string, string>();
        for (const l of links) for (const rel of l.rels) if (!expected.has(rel)) expected.set(rel, l.url);
        expect(parseLinkHeader(header)).toEqual(expected);
      }),
      RUNS,
    );
  });

  it('never throws on arbitrary header text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        parseLinkHeader(text);
        parseLinkHeader([text, text]);
      }),
      RUNS,
    );
  });

  it('never calls a link "ours" unless it is on the base URL\'s origin, below its path', () => {
    const base = 'https://api.example/v1';
    const anyLink = fc.oneof(
      url,
      fc.webUrl({ withQueryParameters: true, withFragments: true }),
      fc.string({ maxLength: 60 }),
      fc.constantFrom(
        '//evil.example/v1/x',
        '/v1/../admin',
        '/v10/students',
        'https://api.example:443/v1/s',
        'https://api.example.evil/v1/s',
        'HTTPS://API.EXAMPLE/v1/s',
      ),
    );
    fc.assert(
      fc.property(anyLink, (l) => {
        const target = resolveLink(l, `${base}/students?offset=0`, base);
        if (target.kind !== 'ours') return;
        const resolved = new URL(target.url);
        expect(resolved.origin).toBe('https://api.example');
        expect(resolved.pathname === '/v1' || resolved.pathname.startsWith('/v1/')).toBe(true);
        // What is requested is the path and query (a fragment never leaves the client).
        expect(`${resolved.origin}${resolved.pathname}${resolved.search}`).toBe(
          `${base}${target.path}${target.query ? `?${target.query}` : ''}`,
        );
      }),
      RUNS,
    );
  });
});

describe('Basic-credential encoder (src/api/oauth.ts), beyond the round trip in test/unit/api/oauth.test.ts', () => {
  it('puts only form-encoded characters and one separating colon inside the base64', () => {
    const text = fc.oneof(fc.string({ unit: 'binary' }), fc.stringMatching(/^[:+%&= /!"'\\]*$/));
    fc.assert(
      fc.property(text, text, (id, secret) => {
        const value = basicAuthorization({ clientId: id, clientSecret: secret }).slice('Basic '.length);
        const decoded = Buffer.from(value, 'base64').toString('utf8');
        expect(decoded).toBe(`${formEncode(id)}:${formEncode(secret)}`);
        expect(decoded.split(':')).toHaveLength(2);
        expect(decoded).toMatch(/^[A-Za-z0-9*\-._+%]*:[A-Za-z0-9*\-._+%]*$/);
      }),
      RUNS,
    );
  });
});
