import { describe, expect, it } from 'vitest';
import { stringify } from '../../src/output/json-text.js';

describe('stringify', () => {
  it('is JSON.stringify for any value of ordinary depth', () => {
    const value = { a: [1, { b: 'c', d: null }], e: 'ü\u202e' };
    expect(stringify(value)).toBe(JSON.stringify(value));
    expect(stringify(value, 2)).toBe(JSON.stringify(value, null, 2));
    expect(stringify(undefined)).toBeUndefined();
  });

  it('writes a value nested 50,000 deep (V8 before Node 26 could not), with what lies past 64 levels noted', () => {
    const depth = 50_000;
    const deep = JSON.parse(`{"keep":1,"deep":${'['.repeat(depth)}${']'.repeat(depth)}}`);
    const written = JSON.parse(stringify(deep, 2)) as { keep: number; deep: unknown };
    expect(written.keep).toBe(1);
    let value = written.deep;
    let levels = 1;
    for (; Array.isArray(value); levels++) value = value[0];
    expect(value).toBe('[nested deeper than 64 levels: not shown]');
    expect(levels).toBe(64);
  });

  it('cuts every branch at the same depth, siblings whole', () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 70; i++) deep = { x: deep };
    const text = stringify({ left: deep, right: { shallow: true } });
    expect(text).toBe(JSON.stringify({ left: deep, right: { shallow: true } }));
    const wide = JSON.parse(`[${'['.repeat(20_000)}${']'.repeat(20_000)}, {"ok": true}]`);
    const out = JSON.parse(stringify(wide)) as unknown[];
    expect(out[1]).toEqual({ ok: true });
  });
});
