import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  displayLines,
  displayText,
  jsonText,
  jsonUnsafe,
  MAYBE_JSON_UNSAFE,
  showControls,
} from '../../src/output/safe-text.js';

const ESC = '\u001b';

describe('text for a person', () => {
  it('displayText: one line, every control or invisible character shown as an escape', () => {
    expect(displayText(`${ESC}]52;c;ZWNobw==\u0007`)).toBe('\\u001b]52;c;ZWNobw==\\u0007');
    expect(displayText('\u009b2J \u202eexe \u2066x\u2069 a\u200bb \ufeff \u00ad \u2028')).toBe(
      '\\u009b2J \\u202eexe \\u2066x\\u2069 a\\u200bb \\ufeff \\u00ad \\u2028',
    );
    expect(displayText('tag \u{e0041}')).toBe('tag \\u{e0041}');
    // Layout characters become spaces: a cell stays one cell, a row one row.
    expect(displayText('a\tb\nc\rd')).toBe('a b c d');
  });

  it('keeps ordinary text, accents, emoji and the joiners scripts need', () => {
    const text = 'Zoë Ångström 東京 👩‍👩‍👧 می‌خواهم ✓';
    expect(displayText(text)).toBe(text);
    expect(displayLines(text)).toBe(text);
  });

  it('displayLines: line breaks and tabs kept, a lone CR shown', () => {
    expect(displayLines('one\r\ntwo\tcols\nthree\rFAKE')).toBe('one\ntwo\tcols\nthree\\rFAKE');
  });

  it('showControls: a quoted value shown exactly, joiners too', () => {
    expect(showControls('parent@example.org\n')).toBe('parent@example.org\\n');
    expect(showControls('sch\u200d1')).toBe('sch\\u200d1');
  });

  it('jsonText: the same data, no character a terminal obeys', () => {
    const value = { label: `${ESC}[2J \u009b31m \u202e \u200b \u2028 \u{e0041} ok\r`, name: 'Zoë' };
    const text = jsonText(JSON.stringify(value, null, 2));
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200b\u202e\u2028\u{e0041}]/u);
    expect(JSON.parse(text)).toEqual(value);
    expect(text).toContain('\\udb40\\udc41'); // a tag, as the surrogate pair JSON needs
  });

  it('any text, ASCII or not (the plain-ASCII shortcut and the full check agree): nothing a terminal obeys', () => {
    const obeyed = /(?![\u200c\u200d])[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;
    const text = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.string({ unit: fc.integer({ min: 0, max: 0x7f }).map((c) => String.fromCharCode(c)) }),
    );
    fc.assert(
      fc.property(text, (t) => {
        expect(displayText(t)).not.toMatch(obeyed);
        expect(displayLines(t).replace(/[\n\t]/g, '')).not.toMatch(obeyed);
        expect(showControls(t)).not.toMatch(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u);
        const json = jsonText(JSON.stringify(t));
        expect(json).not.toMatch(/(?![\u200c\u200d])[\u007f-\u009f\p{Cf}\p{Zl}\p{Zp}]/u);
        expect(JSON.parse(json)).toBe(t);
        if (/^[\x20-\x7e]*$/.test(t)) expect(displayText(t)).toBe(t);
      }),
      { numRuns: 2000 },
    );
  });

  it("jsonText's quick test misses no character it must escape: every code point checked", () => {
    const missed: string[] = [];
    for (let code = 0; code <= 0x10ffff; code++) {
      const char = String.fromCodePoint(code);
      const unsafe = jsonUnsafe();
      unsafe.lastIndex = 0;
      if (unsafe.test(char) && !MAYBE_JSON_UNSAFE().test(char)) missed.push(code.toString(16));
    }
    expect(missed).toEqual([]);
  });
});
