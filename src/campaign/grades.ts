// Grades as `invite plan --grade` matches them: the server's own codes (CEDS `KG`, `01` … `12`), compared
// without regard to case or a leading zero, and kindergarten as one alias group, because SIS exports
// spell it `KG`, `K`, `00` or `Kindergarten`.
import { UsageError } from '../errors.js';
import { printable } from '../values.js';

const KINDERGARTEN = new Set(['kg', 'k', '00', 'kindergarten']);

/** The form two grade codes are compared in: `K`, `00` → `kg`; `1`, `01` → `1`; others lower-cased. */
export function gradeKey(code: string): string {
  const text = code.trim().toLowerCase();
  if (KINDERGARTEN.has(text)) return 'kg';
  return /^\d+$/.test(text) && text !== '0' ? String(Number(text)) : text;
}

/** `--grade KG,1,02`: the keys to match, or undefined for every grade. */
export function parseGrades(values: readonly string[] | undefined): Set<string> | undefined {
  if (values === undefined || values.length === 0) return undefined;
  const codes = typedGrades(values);
  const bad = codes.find((c) => c === '' || !/^[\p{L}\p{N} _-]{1,40}$/u.test(c));
  if (bad !== undefined)
    throw new UsageError(
      `Invalid --grade "${printable(bad, 40)}": give grade codes separated by commas, e.g. --grade KG,01,02.`,
    );
  return new Set(codes.map(gradeKey));
}

/** `--grade` values as typed, one per code (`KG,01` → KG, 01), trimmed. */
export function typedGrades(values: readonly string[]): string[] {
  return values.flatMap((v) => v.split(',')).map((v) => v.trim());
}

/** Whether a student with these grades is in a grade asked for (every student when none was asked). */
export function inGrades(grades: readonly string[], wanted: Set<string> | undefined): boolean {
  return wanted === undefined || grades.some((g) => wanted.has(gradeKey(g)));
}

/**
 * The OneRoster grade vocabulary (CEDS "Entry Grade Level", as 1.1 and 1.2 use it), by key: IT, PR, PK,
 * TK, KG, 01 … 13, PS, UG, Other.
 */
const VOCABULARY = new Set(
  [
    'IT',
    'PR',
    'PK',
    'TK',
    'KG',
    'PS',
    'UG',
    'Other',
    ...Array.from({ length: 13 }, (_, i) => String(i + 1)),
  ].map(gradeKey),
);

/** Whether a grade is a code of the vocabulary or one of the aliases gradeKey documents (K, 00, 1 for 01, case). */
export function isKnownGrade(code: string): boolean {
  return VOCABULARY.has(gradeKey(code));
}

/**
 * `--grade` codes measured against the grades the students read are in (key → a spelling seen): `unknown`,
 * codes that are neither of the vocabulary (or its aliases) nor used by these students, are a usage error;
 * `empty`, codes nobody read is in, a warning. Each as typed, once.
 */
export function gradeProblems(
  typed: readonly string[],
  seen: ReadonlyMap<string, string>,
): { unknown: string[]; empty: string[] } {
  const unknown: string[] = [];
  const empty: string[] = [];
  const said = new Set<string>();
  for (const code of typed) {
    const key = gradeKey(code);
    if (said.has(key) || seen.has(key)) continue;
    said.add(key);
    (isKnownGrade(code) ? empty : unknown).push(code);
  }
  return { unknown, empty };
}

/** Grade codes in school order: the vocabulary's (IT … KG, 01 … 13, PS, UG, Other), then others by name. */
export function sortGrades(codes: Iterable<string>): string[] {
  const order = [
    'it',
    'pr',
    'pk',
    'tk',
    'kg',
    ...Array.from({ length: 13 }, (_, i) => String(i + 1)),
    'ps',
    'ug',
    'other',
  ];
  const rank = (code: string) => {
    const at = order.indexOf(gradeKey(code));
    return at < 0 ? order.length : at;
  };
  return [...codes].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}
