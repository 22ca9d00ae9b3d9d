// The query string a OneRoster server receives: UTF-8 percent-encoding, %20 for a space, %27 for a quote.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { buildQuery, checkFilter, encodeQueryValue, parseFieldList } from '../../src/oneroster/query.js';
import { parseCount } from '../../src/values.js';

describe('encodeQueryValue', () => {
  it('encodes the notes examples: quote as %27, space as %20, UTF-8 bytes', () => {
    expect(encodeQueryValue("givenName='Zoë'")).toBe('givenName%3D%27Zo%C3%AB%27');
    expect(encodeQueryValue("givenName='Mary Ann'")).toBe('givenName%3D%27Mary%20Ann%27');
    expect(encodeQueryValue("familyName~'O''Brien' AND x>='1'")).toBe(
      'familyName~%27O%27%27Brien%27%20AND%20x%3E%3D%271%27',
    );
    expect(encodeQueryValue('a+b&c=d')).toBe('a%2Bb%26c%3Dd');
    expect(encodeQueryValue("!'()*")).toBe('%21%27%28%29%2A');
  });

  it('round-trips any valid text and leaves only unreserved characters and escapes', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (text) => {
        const encoded = encodeQueryValue(text);
        expect(encoded).toMatch(/^(?:[A-Za-z0-9\-._~]|%[0-9A-F]{2})*$/);
        expect(decodeURIComponent(encoded)).toBe(text);
      }),
    );
  });
});

describe('buildQuery', () => {
  it('puts the parameters in a stable order and leaves out what is not given', () => {
    expect(buildQuery({})).toBe('');
    expect(
      buildQuery({
        limit: 50,
        offset: 100,
        sort: 'familyName',
        orderBy: 'desc',
        filter: "givenName='Zoë'",
        fields: ['sourcedId', 'givenName'],
      }),
    ).toBe(
      'limit=50&offset=100&sort=familyName&orderBy=desc&filter=givenName%3D%27Zo%C3%AB%27&fields=sourcedId%2CgivenName',
    );
  });
});

describe('client-side checks reject only what is certainly wrong', () => {
  it('refuses an empty filter, control characters and broken Unicode', () => {
    expect(() => checkFilter('  ')).toThrow(UsageError);
    expect(() => checkFilter("givenName='a'\n")).toThrow(/control character/);
    expect(() => checkFilter("givenName='\ud800'")).toThrow(/Unicode/);
  });

  it('passes anything else to the server, even what it will refuse', () => {
    for (const filter of ["givenName='Zoë'", 'nonsense', "a='1' AND b='2' AND c='3'", "x~'%'"]) {
      expect(checkFilter(filter)).toBe(filter);
    }
  });

  it('parses field lists and counts', () => {
    expect(parseFieldList('--fields', ' sourcedId, givenName ,,roles.role')).toEqual([
      'sourcedId',
      'givenName',
      'roles.role',
    ]);
    expect(() => parseFieldList('--fields', ' , ')).toThrow(/empty/);
    expect(() => parseFieldList('--fields', 'a b')).toThrow(/Invalid field name/);
    expect(parseCount('--limit', '10', 1, 100)).toBe(10);
    for (const bad of ['0', '-1', '1.5', 'ten', '101', '']) {
      expect(() => parseCount('--limit', bad, 1, 100)).toThrow(UsageError);
    }
  });
});
