// The enrollment invitation of spec §2.4 as the CLI builds it: from flags or a CSV row (strings) to the
// JSON body with the spec's names and types. Every check that can be made before a request is made here,
// so a bad value is a usage error and nothing reaches the server.
import type { InvitationBody } from '../api/enrollment.js';
import { hiddenCharacter, printable } from '../values.js';

export type FieldName = keyof InvitationBody;

/** Raw text for each field, as typed on the command line or read from a CSV cell. */
export type InvitationDraft = Partial<Record<FieldName, string>>;

export interface FieldProblem {
  field: FieldName;
  reason: string;
}

/** The §2.4 fields in the spec's order, with the flag that sets each. */
export const FIELDS: readonly { name: FieldName; flag: string; required: boolean }[] = [
  { name: 'email', flag: '--email', required: true },
  { name: 'schoolId', flag: '--school-id', required: true },
  { name: 'scopes', flag: '--scope', required: true },
  { name: 'interestFormSubmissionId', flag: '--interest-form-submission-id', required: false },
  { name: 'studentCount', flag: '--student-count', required: true },
  { name: 'learningCenterId', flag: '--learning-center-id', required: false },
  { name: 'schoolYearId', flag: '--school-year-id', required: false },
  { name: 'sentByUserId', flag: '--sent-by-user-id', required: true },
];

export const flagOf = (field: FieldName): string => FIELDS.find((f) => f.name === field)?.flag ?? field;

/**
 * Who an invitation is for: the e-mail (trimmed, any case) and the school. One per file (duplicates are
 * refused) and what the bulk journal matches rows by, so editing other fields or moving a row keeps it.
 * A valid address holds no space, so the first space separates the two.
 */
export const invitationKey = (email: string, schoolId: string): string =>
  `${email.trim().toLowerCase()} ${schoolId.trim()}`;

/** The one scope value the spec shows (§2.4). */
export const KNOWN_SCOPES: readonly string[] = ['fillEnrollment'];
export const DEFAULT_SCOPES = 'fillEnrollment';
export const DEFAULT_STUDENT_COUNT = '1';
const MAX_STUDENT_COUNT = 2_147_483_647; // the spec gives no bound; this keeps it a 32-bit integer
/** The spec bounds no id; a longer one is a pasted blob, not an id (and would make a request servers refuse). */
export const MAX_ID_LENGTH = 1000;

// A plain dotted address: what schools mail. No display names, quoted local parts or IP literals.
const EMAIL =
  /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/;

export function isValidEmail(value: string): boolean {
  const at = value.lastIndexOf('@');
  return value.length <= 254 && at > 0 && at <= 64 && EMAIL.test(value);
}

/**
 * Why an invitation's e-mail would be refused, or undefined when it is taken. Spaces around it are trimmed;
 * checked before trimming, a line end or an invisible character is a mistake to show, not to mend silently.
 */
export function emailProblem(raw: string): string | undefined {
  const email = raw.trim();
  const hidden = hiddenCharacter(raw);
  if (email === '') return 'is required';
  if (hidden?.startsWith('a control'))
    return `"${printable(email, 60)}" contains a control character (a line break?)`;
  if (hidden) return `"${printable(email, 60)}" contains ${hidden}`;
  const letter = nonAsciiIn(email);
  if (letter) return `"${printable(email, 60)}" contains ${letter}`;
  if (!isValidEmail(email)) return `"${printable(email, 60)}" is not a valid e-mail address`;
  return undefined;
}

/**
 * The first character of an address outside ASCII, said with why it is refused: "zoë@example.org" was only
 * "not a valid e-mail address", and a user could not see what was wrong with it.
 */
function nonAsciiIn(email: string): string | undefined {
  const found = /[^\x00-\x7f]/u.exec(email)?.[0];
  if (found === undefined) return undefined;
  const code = `U+${(found.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
  const where = email.indexOf('@') < email.indexOf(found) ? 'domain' : 'name';
  const instead =
    where === 'domain'
      ? 'write the domain in its ASCII (xn--) form'
      : 'ask the family for an address in plain letters (a-z, 0-9 . _ + -)';
  return `"${printable(found)}" (${code}), which is not ASCII: mail systems do not all deliver to international addresses, so the ${where} must be plain ASCII; ${instead}`;
}

/** Scopes as written: one or more values separated by commas, semicolons or spaces. */
export function splitScopes(text: string): string[] {
  return [...new Set(text.split(/[\s,;]+/).filter(Boolean))];
}

export type Validation = { ok: true; body: InvitationBody } | { ok: false; problems: FieldProblem[] };

/** Checks every field (not just the first bad one) and builds the body; optional fields left out when empty. */
export function validateInvitation(draft: InvitationDraft): Validation {
  const problems: FieldProblem[] = [];
  const problem = (field: FieldName, reason: string) => problems.push({ field, reason });

  const email = textOf(draft, 'email');
  const emailRefused = emailProblem(draft.email ?? '');
  if (emailRefused !== undefined) problem('email', emailRefused);

  const ids: Partial<Record<FieldName, string>> = {};
  for (const field of ID_FIELDS) {
    const value = textOf(draft, field);
    const refused = idProblem(draft, field, value);
    if (refused !== undefined) problem(field, refused);
    else if (value !== undefined) ids[field] = value;
  }

  const scopes = splitScopes(textOf(draft, 'scopes') ?? '');
  for (const reason of scopeProblems(scopes)) problem('scopes', reason);

  const countText = textOf(draft, 'studentCount') ?? '';
  const count = /^\d+$/.test(countText) ? Number(countText) : Number.NaN;
  if (!(Number.isSafeInteger(count) && count >= 1 && count <= MAX_STUDENT_COUNT)) {
    problem('studentCount', `must be a positive whole number (got "${printable(countText, 60)}")`);
  }

  if (problems.length > 0 || email === undefined) return { ok: false, problems };
  return { ok: true, body: bodyOf(email, scopes, count, ids) };
}

/** A field's text, trimmed; undefined when absent or blank. */
function textOf(draft: InvitationDraft, field: FieldName): string | undefined {
  const value = draft[field]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/** The fields that hold an id, in the spec's order. */
const ID_FIELDS = [
  'schoolId',
  'interestFormSubmissionId',
  'learningCenterId',
  'schoolYearId',
  'sentByUserId',
] as const satisfies readonly FieldName[];

/** Why an id field is refused (`value`: its text, trimmed), or undefined when it is taken. */
function idProblem(draft: InvitationDraft, field: FieldName, value: string | undefined): string | undefined {
  if (value === undefined) return FIELDS.find((f) => f.name === field)?.required ? 'is required' : undefined;
  // Checked before trimming: "parent@example.org\n" (a pasted line end, a quoted CSV cell holding one)
  // is a mistake to show, not to mend silently. Ordinary spaces around a value are still trimmed.
  // Invisible characters too (a zero-width space, a bidi control): "sch-1" and "sch-1\u200b" look alike
  // but are two schools to the server, and would dodge the duplicate check.
  const hidden = hiddenCharacter(draft[field] ?? '');
  if (hidden) return `contains ${hidden}`;
  if (value.length > MAX_ID_LENGTH)
    return `must be at most ${MAX_ID_LENGTH} characters (got ${value.length})`;
  return undefined;
}

/** What is wrong with the scopes: none at all, or some the spec does not know. */
function scopeProblems(scopes: readonly string[]): string[] {
  if (scopes.length === 0) return ['needs at least one scope'];
  const unknown = scopes.filter((s) => !KNOWN_SCOPES.includes(s));
  if (unknown.length === 0) return [];
  return [
    `unknown scope ${unknown.map((s) => `"${printable(s, 60)}"`).join(', ')} (known: ${KNOWN_SCOPES.join(', ')})`,
  ];
}

/**
 * The body in the spec's order. Most rows have none of the optional ids: a literal of the fields alone is
 * 64 bytes where the same object built with spreads is 88, and a district's send holds a body per row.
 */
function bodyOf(
  email: string,
  scopes: string[],
  studentCount: number,
  ids: Partial<Record<FieldName, string>>,
): InvitationBody {
  if (
    ids.interestFormSubmissionId === undefined &&
    ids.learningCenterId === undefined &&
    ids.schoolYearId === undefined
  ) {
    return { email, schoolId: ids.schoolId!, scopes, studentCount, sentByUserId: ids.sentByUserId! };
  }
  return {
    email,
    schoolId: ids.schoolId!,
    scopes,
    studentCount,
    ...(ids.interestFormSubmissionId !== undefined && {
      interestFormSubmissionId: ids.interestFormSubmissionId,
    }),
    ...(ids.learningCenterId !== undefined && { learningCenterId: ids.learningCenterId }),
    ...(ids.schoolYearId !== undefined && { schoolYearId: ids.schoolYearId }),
    sentByUserId: ids.sentByUserId!,
  };
}
