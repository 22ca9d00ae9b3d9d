// The OneRoster query string: limit, offset, sort, orderBy, filter and fields, encoded the way servers in
// the field decode them. Every value is percent-encoded as UTF-8 with a space as %20 (never `+`, which
// strict servers read as a literal plus) and `'` as %27 (some gateways mangle a bare quote).
import { UsageError } from '../errors.js';
import { printable } from '../values.js';

export interface ReadQuery {
  limit?: number;
  offset?: number;
  sort?: string;
  orderBy?: 'asc' | 'desc';
  filter?: string;
  fields?: string[];
}

/** encodeURIComponent plus the characters it leaves alone that RFC 3986 reserves: ! ' ( ) *. */
export function encodeQueryValue(value: string): string {
  let encoded: string;
  try {
    encoded = encodeURIComponent(value);
  } catch {
    // A lone UTF-16 surrogate: cannot be sent as UTF-8. Validation catches it first; this is a backstop.
    throw new UsageError(`"${printable(value)}" is not valid Unicode text.`);
  }
  return encoded.replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** The query in the order servers and their Link headers use; undefined parts are left out. */
export function buildQuery(query: ReadQuery): string {
  const parts: string[] = [];
  const add = (name: string, value: string | number | undefined) => {
    if (value !== undefined) parts.push(`${name}=${encodeQueryValue(String(value))}`);
  };
  add('limit', query.limit);
  add('offset', query.offset);
  add('sort', query.sort);
  add('orderBy', query.orderBy);
  add('filter', query.filter);
  add('fields', query.fields?.join(','));
  return parts.join('&');
}

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
export const MAX_FILTER_LENGTH = 2048;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Rejects only filters that are certainly wrong (empty, control characters, text that cannot be UTF-8):
 * the server is the judge of the grammar, and its 400 description is shown to the user.
 */
export function checkFilter(filter: string): string {
  if (filter.trim() === '') {
    throw new UsageError('--filter is empty.', 'Give an expression such as --filter "familyName=\'Jones\'".');
  }
  if (CONTROL.test(filter)) throw new UsageError('--filter contains a control character (a stray newline?).');
  if (filter.length > MAX_FILTER_LENGTH) {
    throw new UsageError(
      `--filter is too long (${filter.length} characters; at most ${MAX_FILTER_LENGTH}).`,
      'A OneRoster filter is one or two predicates; servers refuse URLs much longer than this.',
    );
  }
  if (LONE_SURROGATE.test(filter)) throw new UsageError('--filter is not valid Unicode text.');
  return filter;
}

const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_.]*$/;

/** A comma-separated list of field names (for --fields and --columns). */
export function parseFieldList(flag: string, text: string): string[] {
  const names = text
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name.length > 0);
  if (names.length === 0) throw new UsageError(`${flag} is empty: give field names separated by commas.`);
  const bad = names.find((name) => !FIELD_NAME.test(name));
  if (bad !== undefined) {
    throw new UsageError(
      `Invalid field name "${printable(bad, 40)}" in ${flag}: use letters, digits, _ and .`,
    );
  }
  return names;
}

export function checkSortField(sort: string): string {
  if (!FIELD_NAME.test(sort)) {
    throw new UsageError(`Invalid --sort "${printable(sort, 40)}": give one field name, e.g. familyName.`);
  }
  return sort;
}

/** A sourcedId as one path segment. */
export function encodePathSegment(id: string): string {
  return encodeQueryValue(id);
}
