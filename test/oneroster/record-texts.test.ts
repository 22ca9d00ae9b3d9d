import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { recordTexts } from '../../src/oneroster/record-texts.js';

const record = fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 6 });

describe('recordTexts', () => {
  it('cuts each record of a compact list out of the body, exactly as JSON.stringify writes it', () => {
    fc.assert(
      fc.property(fc.array(record, { maxLength: 20 }), fc.jsonValue(), (records, other) => {
        for (const body of [
          JSON.stringify({ users: records }),
          JSON.stringify({ before: other, users: records, after: other }),
          JSON.stringify({ statusInfoSet: [{ a: '"users":[1]' }], users: records }),
        ]) {
          expect(recordTexts(body, 'users')).toEqual(records.map((r) => JSON.stringify(r)));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('any compact record, whatever its spelling, is one line that parses to the same record', () => {
    const body =
      '{"users": [ {"sourcedId":"a\\u0022\\\\","n":1.50,"e":1E2,"s":"\\/x ] } [ {","t":true,"z":null,"u":"\u2028"} ,\n{"k":[]}],"x":{}}';
    const texts = recordTexts(body, 'users');
    const parsed = JSON.parse(body).users;
    expect(texts).toHaveLength(2);
    texts?.forEach((text, i) => {
      expect(text).not.toContain('\n');
      expect(JSON.parse(text)).toEqual(parsed[i]);
    });
  });

  it.each([
    ['whitespace inside a record', '{"users":[{"a": 1}]}'],
    ['a pretty-printed page', JSON.stringify({ users: [{ a: 1 }] }, null, 2)],
    ['the list given twice', '{"users":[{"a":1}],"users":[{"a":2}]}'],
    ['the key spelled with an escape', '{"user\\u0073":[{"a":1}]}'],
    ['no such list', '{"orgs":[{"a":1}]}'],
    ['not a list', '{"users":{"a":1}}'],
    ['not an object', '[{"a":1}]'],
  ])('gives up on %s', (_name, body) => {
    expect(recordTexts(body, 'users')).toBeUndefined();
  });

  it('an empty list has no texts', () => {
    expect(recordTexts('{"users":[]}', 'users')).toEqual([]);
  });
});
