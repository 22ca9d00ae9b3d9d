// The Link header as servers write it, and where a next link may lead.
import { describe, expect, it } from 'vitest';
import { offsetOf, parseLinkHeader, resolveLink } from '../../src/oneroster/link.js';

const BASE = 'https://api.example.org/v1';

describe('parseLinkHeader', () => {
  it('reads angle-bracket links with several rels', () => {
    const links = parseLinkHeader(
      '<https://h/v1/x?offset=100>; rel="next", <https://h/v1/x?offset=900>; rel="last", <https://h/v1/x?offset=0>; rel="first"',
    );
    expect(Object.fromEntries(links)).toEqual({
      next: 'https://h/v1/x?offset=100',
      last: 'https://h/v1/x?offset=900',
      first: 'https://h/v1/x?offset=0',
    });
  });

  it('reads bare links, even with commas in their query', () => {
    const links = parseLinkHeader(
      'https://h/v1/x?fields=a,b&offset=10; rel="next", https://h/v1/x?fields=a,b&offset=90; rel="last"',
    );
    expect(links.get('next')).toBe('https://h/v1/x?fields=a,b&offset=10');
    expect(links.get('last')).toBe('https://h/v1/x?fields=a,b&offset=90');
  });

  it('reads relative links, unquoted and upper-case rels, rel lists and several header lines', () => {
    expect(parseLinkHeader('</v1/x?offset=5>; rel=NEXT').get('next')).toBe('/v1/x?offset=5');
    expect(parseLinkHeader('/v1/x?offset=5; title="t"; rel="prev next"').get('next')).toBe('/v1/x?offset=5');
    const lines = parseLinkHeader(['<a?offset=1>; rel="first"', '<b?offset=2>; rel="next"']);
    expect(lines.get('next')).toBe('b?offset=2');
  });

  it('ignores what it cannot read', () => {
    expect(parseLinkHeader(undefined).size).toBe(0);
    expect(parseLinkHeader('').size).toBe(0);
    expect(parseLinkHeader('garbage').size).toBe(0);
    expect(parseLinkHeader('<https://h/x>; title="no rel"').size).toBe(0);
    expect(parseLinkHeader('<https://h/x; rel="next"').size).toBe(0);
  });
});

describe('resolveLink', () => {
  const from = `${BASE}/ims/oneroster/v1p1/students?limit=10`;
  it('turns a link below the base URL into a path and the raw query, encoding kept', () => {
    expect(
      resolveLink(`${BASE}/ims/oneroster/v1p1/students?filter=a%3D%27Zo%C3%AB%27&offset=10`, from, BASE),
    ).toEqual({
      kind: 'ours',
      path: '/ims/oneroster/v1p1/students',
      query: 'filter=a%3D%27Zo%C3%AB%27&offset=10',
      url: `${BASE}/ims/oneroster/v1p1/students?filter=a%3D%27Zo%C3%AB%27&offset=10`,
    });
    expect(resolveLink('students?offset=20', from, BASE)).toMatchObject({
      kind: 'ours',
      path: '/ims/oneroster/v1p1/students',
      query: 'offset=20',
    });
    expect(resolveLink('/v1/ims/oneroster/v1p1/students?offset=30', from, BASE)).toMatchObject({
      kind: 'ours',
    });
  });

  it('never leads our token to another origin or outside the service', () => {
    expect(
      resolveLink('https://evil.example/v1/ims/oneroster/v1p1/students?offset=10', from, BASE).kind,
    ).toBe('elsewhere');
    expect(resolveLink('http://api.example.org/v1/x?offset=10', from, BASE).kind).toBe('elsewhere');
    expect(resolveLink('https://api.example.org:8443/v1/x', from, BASE).kind).toBe('elsewhere');
    expect(resolveLink('/v10/x?offset=1', from, BASE).kind).toBe('elsewhere');
    expect(resolveLink('/other/x?offset=1', from, BASE).kind).toBe('elsewhere');
    expect(resolveLink('http://[bad', from, BASE).kind).toBe('invalid');
  });

  it('finds the offset of a query', () => {
    expect(offsetOf('limit=10&offset=20')).toBe(20);
    expect(offsetOf('limit=10')).toBeUndefined();
    expect(offsetOf('offset=1&offset=2')).toBeUndefined();
    expect(offsetOf('cursor=abc')).toBeUndefined();
  });
});
