// The text of each record of a page's list, cut out of the body as the server sent it, so --ndjson and
// --json write records without a JSON.stringify of each (that was half the client's time in an export:
// test/bench/export.js). Only for a body JSON.parse has already accepted, and only when the list is
// compact (no whitespace inside a record outside its strings), so each text is one line of valid JSON
// meaning the same record; otherwise undefined, and the caller stringifies the parsed records.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

function skipSpace(text: string, i: number): number {
  while (isSpace(text.charCodeAt(i))) i++;
  return i;
}

/** Index just past the string that opens at `i`. */
function stringEnd(text: string, i: number): number {
  for (let from = i + 1; ; ) {
    const q = text.indexOf('"', from);
    if (q < 0) return text.length;
    let slashes = 0;
    while (text.charCodeAt(q - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return q + 1;
    from = q + 1;
  }
}

/** Index just past the scalar (number, true, false, null) that starts at `i`. */
function scalarEnd(text: string, i: number): number {
  let j = i;
  for (let c = text.charCodeAt(j); j < text.length; c = text.charCodeAt(++j)) {
    if (c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET || isSpace(c)) break;
  }
  return j;
}

/** Index just past the object or array that opens at `i`; -1 when `compact` and it holds whitespace. */
function containerEnd(text: string, i: number, compact: boolean): number {
  let depth = 0;
  for (let j = i; j < text.length; ) {
    const c = text.charCodeAt(j);
    if (c === QUOTE) {
      j = stringEnd(text, j);
      continue;
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
    else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      if (--depth === 0) return j + 1;
    } else if (compact && isSpace(c)) return -1;
    j++;
  }
  return -1;
}

/** Index just past the value that starts at `i`; -1 when `compact` and a container holds whitespace. */
function valueEnd(text: string, i: number, compact: boolean): number {
  const first = text.charCodeAt(i);
  if (first === QUOTE) return stringEnd(text, i);
  if (first === OPEN_BRACE || first === OPEN_BRACKET) return containerEnd(text, i, compact);
  return scalarEnd(text, i);
}

/**
 * The texts of the elements of the array that opens at `i`, and the index just past it; undefined when no
 * array opens there or an element holds whitespace.
 */
function elements(text: string, i: number): { texts: string[]; end: number } | undefined {
  if (text.charCodeAt(i) !== OPEN_BRACKET) return undefined;
  const texts: string[] = [];
  let j = skipSpace(text, i + 1);
  if (text.charCodeAt(j) === CLOSE_BRACKET) return { texts, end: j + 1 };
  for (;;) {
    const end = valueEnd(text, j, true);
    if (end < 0) return undefined;
    texts.push(text.slice(j, end));
    j = skipSpace(text, end);
    const c = text.charCodeAt(j);
    if (c === CLOSE_BRACKET) return { texts, end: j + 1 };
    if (c !== COMMA) return undefined;
    j = skipSpace(text, j + 1);
  }
}

/**
 * The key of the object member at `i` and where its value starts; undefined when no member is there, or its
 * key is spelled with escapes: such a key could name the list too (JSON.parse keeps the last), not ours to
 * guess.
 */
function member(text: string, i: number): { key: string; value: number } | undefined {
  if (text.charCodeAt(i) !== QUOTE) return undefined;
  const keyEnd = stringEnd(text, i);
  const key = text.slice(i + 1, keyEnd - 1);
  if (key.includes('\\')) return undefined;
  const colon = skipSpace(text, keyEnd);
  if (text.charCodeAt(colon) !== COLON) return undefined;
  return { key, value: skipSpace(text, colon + 1) };
}

/**
 * The record texts of the list under `wrapper` in a page body (a JSON object), in order; undefined when
 * they cannot be cut safely (whitespace inside a record, the key spelled with escapes or given twice).
 */
export function recordTexts(body: string, wrapper: string): string[] | undefined {
  let i = skipSpace(body, 0);
  if (body.charCodeAt(i) !== OPEN_BRACE) return undefined;
  i = skipSpace(body, i + 1);
  if (body.charCodeAt(i) === CLOSE_BRACE) return undefined;
  let found: string[] | undefined;
  for (;;) {
    const at = member(body, i);
    if (!at) return undefined;
    if (at.key === wrapper) {
      // Given twice, the list JSON.parse keeps is the last: not ours to guess either.
      const list = found === undefined ? elements(body, at.value) : undefined;
      if (!list) return undefined;
      found = list.texts;
      i = list.end;
    } else {
      i = valueEnd(body, at.value, false);
      if (i < 0) return undefined;
    }
    i = skipSpace(body, i);
    const c = body.charCodeAt(i);
    if (c === CLOSE_BRACE) return found;
    if (c !== COMMA) return undefined;
    i = skipSpace(body, i + 1);
  }
}
