// The OneRoster filter grammar: `field<op>'value'`, optionally joined with one ` AND ` or ` OR `.
//
// Choices a client author should know:
// - Values are compared after Unicode NFC normalisation. `=`, `!=`, `<`… are exact and case-sensitive
//   (ordering is by UTF-16 code units, which suits ISO dates and zero-padded grades); `~` (contains) is
//   case-insensitive.
// - `>`, `>=`, `<`, `<=` on dateLastModified compare instants, as the standard's DateTime type means:
//   '2026-11-01T06:00:00Z' and '2026-11-01T06:00:00.000Z' are the same moment, a date alone is its
//   midnight UTC, and a value that is not an ISO 8601 date or date-time is a 400.
// - A quote inside a value needs no escaping: a `'` ends the value only when followed by the end of the
//   filter or by ` AND ` / ` OR `, so `familyName='O'Brien'` works. (A value can therefore not contain
//   `' AND ` itself.)
// - Arrays match when any element matches (`grades='09'`), and `!=` when no element equals the value; a
//   field absent from a record matches only `!=`. A GUIDRef compared as a whole compares its sourcedId
//   (`school='org-sch-1'` is `school.sourcedId='org-sch-1'`).
import { OneRosterError } from './errors.js';
import { isKnownPath } from './fields.js';
import type { Kind, Rec, Version } from './records.js';

export type Op = '=' | '!=' | '>' | '>=' | '<' | '<=' | '~';

export interface Clause {
  field: string;
  op: Op;
  value: string;
}

export interface Filter {
  clauses: [Clause] | [Clause, Clause];
  logic: 'AND' | 'OR';
}

const OPS: readonly Op[] = ['>=', '<=', '!=', '=', '>', '<', '~'];
const FIELD = /^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*/;
const LOGIC = /^\s+(AND|OR)\s+/i;

export function parseFilter(text: string): Filter {
  const clauses: Clause[] = [];
  let logic: 'AND' | 'OR' = 'AND';
  let pos = 0;
  for (;;) {
    const { clause, end } = parseClause(text, pos);
    clauses.push(clause);
    pos = end;
    if (/^\s*$/.test(text.slice(pos))) break;
    const m = LOGIC.exec(text.slice(pos));
    if (!m) throw malformed(`unexpected text after the value of '${clause.field}': "${text.slice(pos)}"`);
    if (clauses.length === 2) throw malformed('at most one AND or OR is supported');
    logic = m[1]!.toUpperCase() as 'AND' | 'OR';
    pos += m[0].length;
  }
  return { clauses: clauses as [Clause] | [Clause, Clause], logic };
}

function malformed(what: string): OneRosterError {
  return new OneRosterError(`Malformed filter: ${what}`, 'invaliddata');
}

function parseClause(text: string, start: number): { clause: Clause; end: number } {
  let pos = start;
  while (text[pos] === ' ') pos++;
  const field = FIELD.exec(text.slice(pos))?.[0];
  if (!field) throw malformed(`expected a field name at position ${pos + 1}`);
  pos += field.length;
  while (text[pos] === ' ') pos++;
  const op = OPS.find((o) => text.startsWith(o, pos));
  if (!op) throw malformed(`expected one of = != > >= < <= ~ after '${field}'`);
  pos += op.length;
  while (text[pos] === ' ') pos++;
  if (text[pos] !== "'") throw malformed(`the value of '${field}' must be in single quotes`);
  const open = pos;
  // The closing quote is the first one followed by the end of the filter or by a logical operator.
  for (let q = text.indexOf("'", open + 1); q >= 0; q = text.indexOf("'", q + 1)) {
    const rest = text.slice(q + 1);
    if (/^\s*$/.test(rest) || LOGIC.test(rest)) {
      return { clause: { field, op, value: text.slice(open + 1, q).normalize('NFC') }, end: q + 1 };
    }
  }
  throw malformed(`unterminated quoted value for '${field}'`);
}

/** Rejects filters naming fields the records of this kind and version do not have. */
export function checkFilterFields(filter: Filter, version: Version, kind: Kind): void {
  for (const c of filter.clauses) {
    if (isInstantComparison(c) && Number.isNaN(instant(c.value))) {
      throw new OneRosterError(
        `Invalid filter value: '${c.value}' is not an ISO 8601 date or date-time for '${c.field}'`,
        'invaliddata',
      );
    }
    if (!isKnownPath(version, kind, c.field)) {
      throw new OneRosterError(
        `Invalid filter field: '${c.field}' is not a field of ${kind}`,
        'invalid_filter_field',
      );
    }
  }
}

/** The comparable leaf values at a dotted path (arrays flattened; GUIDRefs stand for their sourcedId). */
export function valuesAt(rec: Rec, path: string): string[] {
  let current: unknown[] = [rec];
  for (const part of path.split('.')) current = childrenAt(current, part);
  const out: string[] = [];
  for (const v of current) {
    const value = comparable(v);
    if (value !== undefined) out.push(value);
  }
  return out;
}

/** What each object among `values` holds under `part`, arrays flattened, null and absent left out. */
function childrenAt(values: readonly unknown[], part: string): unknown[] {
  const next: unknown[] = [];
  for (const v of values) {
    if (v === null || typeof v !== 'object') continue;
    const child = (v as Record<string, unknown>)[part];
    if (Array.isArray(child)) next.push(...child);
    else if (child !== undefined && child !== null) next.push(child);
  }
  return next;
}

/** A leaf as a filter compares it: a string (NFC), a number or boolean as text, a GUIDRef as its sourcedId. */
function comparable(v: unknown): string | undefined {
  if (typeof v === 'string') return v.normalize('NFC');
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v && typeof v === 'object' && typeof (v as Rec).sourcedId === 'string')
    return (v as Rec).sourcedId as string;
  return undefined;
}

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2}))?$/;

/** Epoch milliseconds of an ISO 8601 date (midnight UTC) or date-time with a zone; NaN otherwise. */
function instant(text: string): number {
  return ISO_INSTANT.test(text) ? Date.parse(text) : Number.NaN;
}

const ORDERING = new Set<Op>(['>', '>=', '<', '<=']);
const isInstantComparison = (c: Clause) => ORDERING.has(c.op) && /(^|\.)dateLastModified$/.test(c.field);

function compareInstants(values: string[], op: Op, value: string): boolean {
  const at = instant(value);
  return values.some((v) => {
    const t = instant(v);
    if (Number.isNaN(t)) return false;
    return op === '>' ? t > at : op === '>=' ? t >= at : op === '<' ? t < at : t <= at;
  });
}

function test(values: string[], op: Op, value: string, field: string): boolean {
  if (isInstantComparison({ field, op, value })) return compareInstants(values, op, value);
  switch (op) {
    case '=':
      return values.includes(value);
    case '!=':
      return !values.includes(value);
    case '>':
      return values.some((v) => v > value);
    case '>=':
      return values.some((v) => v >= value);
    case '<':
      return values.some((v) => v < value);
    case '<=':
      return values.some((v) => v <= value);
    case '~': {
      const needle = value.toLowerCase();
      return values.some((v) => v.toLowerCase().includes(needle));
    }
  }
}

export function matches(filter: Filter, rec: Rec): boolean {
  const [a, b] = filter.clauses;
  const first = test(valuesAt(rec, a.field), a.op, a.value, a.field);
  if (!b) return first;
  if (filter.logic === 'AND') return first && test(valuesAt(rec, b.field), b.op, b.value, b.field);
  return first || test(valuesAt(rec, b.field), b.op, b.value, b.field);
}
