// Text roster did not write itself (server answers, headers, file contents, typed values) on its way to
// a person. A terminal obeys control characters: ESC and C1 sequences clear the screen, retitle the
// window, write the clipboard (OSC 52) or plant a hidden link (OSC 8); a carriage return overwrites what
// was printed; bidi controls and invisible format characters make text read other than it is. None may
// reach a terminal as itself: each is shown as a visible escape, the way JSON writes it (\u001b, \u202e,
// \r), so the reader sees that something was there. Zero-width (non-)joiners are kept: they join letters
// in Persian and Indic scripts and in emoji, and move nothing.
//
// Applied where output is written (the logger, the renderers, the record writers, the error printer),
// never at each call site.

/**
 * A pattern built on first use. V8 checks every regular expression literal when it parses a file, and a
 * Unicode property (\p{…}) costs ICU a millisecond of set-building there: in dist/cli.js that would be paid
 * by every run, even one that writes nothing (test/bench/startup.js).
 */
export function lazyPattern(source: string, flags: string): () => RegExp {
  let pattern: RegExp | undefined;
  return () => (pattern ??= new RegExp(source, flags));
}

/** Controls (C0, DEL, C1), format characters (bidi, zero-width, tags…), line and paragraph separators. */
const UNSAFE = lazyPattern('(?![\\u200c\\u200d])[\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}]', 'gu');
const CONTROLS = lazyPattern('[\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}]', 'gu');
const LAYOUT = /^[\t\n\v\f\r]$/;
// Most text is plain ASCII: checked first, it never needs the Unicode patterns (nor ICU to build them).
const PRINTABLE = /^[\x20-\x7e]*$/;
/** Printable ASCII only (no control, no line break, nothing beyond ~). */
export const isPrintableAscii = (text: string): boolean => PRINTABLE.test(text);
const PRINTABLE_LINES = /^[\x20-\x7e\n\t]*$/;
const SHORT: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** One character as a visible escape: \n, \r, \t, \u001b, or \u{e0041} beyond the BMP. */
function escaped(char: string): string {
  const short = SHORT[char];
  if (short) return short;
  const code = char.codePointAt(0) ?? 0;
  return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** One line for a table cell or a tab-separated field: tabs and line breaks become spaces. */
export function displayText(text: string): string {
  if (PRINTABLE.test(text)) return text;
  return text.replace(UNSAFE(), (char) => (LAYOUT.test(char) ? ' ' : escaped(char)));
}

/** Messages and traces: line breaks (CRLF too) and tabs kept, every other control shown escaped. */
export function displayLines(text: string): string {
  if (PRINTABLE_LINES.test(text)) return text;
  return text
    .replace(/\r\n/g, '\n')
    .replace(UNSAFE(), (char) => (char === '\n' || char === '\t' ? char : escaped(char)));
}

/**
 * A value quoted in a message, to be seen exactly: every such character shown, line breaks and joiners
 * too ("parent@example.org\n", "sch-1\u200d").
 */
export function showControls(text: string): string {
  if (PRINTABLE.test(text)) return text;
  return text.replace(CONTROLS(), escaped);
}

/** The same JSON value, with what JSON.stringify leaves raw (DEL, C1, format characters) as \u escapes. */
const JSON_UNSAFE = lazyPattern('(?![\\u200c\\u200d])[\\u007f-\\u009f\\p{Cf}\\p{Zl}\\p{Zp}]', 'gu');

/**
 * Every character JSON_UNSAFE matches, and some more, in plain ranges (no Unicode tables, ~4× faster over
 * a page of records): DEL and C1, the soft hyphen, the BMP's format characters and separators, and every
 * surrogate (whatever lies beyond the BMP). test/unit/safe-text.test.ts checks every code point against
 * JSON_UNSAFE, so a Node whose Unicode data adds a format character elsewhere fails there, not silently.
 */
export const MAYBE_JSON_UNSAFE = lazyPattern(
  '[\\u007f-\\u009f\\u00ad\\u0600-\\u0605\\u061c\\u06dd\\u070f\\u0890-\\u08ff\\u180e\\u200b-\\u206f\\ufeff\\ufff0-\\ufffb\\ud800-\\udfff]',
  '',
);

/** The pattern jsonText escapes with (exported for the test that checks MAYBE_JSON_UNSAFE covers it). */
export const jsonUnsafe = JSON_UNSAFE;

const unitEscape = (unit: string) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * JSON text safe on a terminal and still exactly the same data: outside strings valid JSON holds only
 * ASCII, so any such character is inside a string, where a \u escape means the same character.
 */
export function jsonText(json: string): string {
  // JSON.stringify escapes C0 controls itself: only DEL and beyond need looking at. Most text (names with
  // accents included) holds none of them: one quick test over it, and the Unicode pattern never runs.
  if (!MAYBE_JSON_UNSAFE().test(json)) return json;
  // By UTF-16 unit: a character beyond the BMP (a tag) is written as its surrogate pair, as JSON must.
  return json.replace(JSON_UNSAFE(), (char) => char.split('').map(unitEscape).join(''));
}
