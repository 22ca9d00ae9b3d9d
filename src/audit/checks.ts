// The go-live audit's checks: ids (part of the interface), default severities and what each means. Kept
// apart from the checks themselves so flag parsing, --help and doctor know them without loading the audit.

export type Severity = 'error' | 'warning' | 'info';
export const SEVERITIES: readonly Severity[] = ['error', 'warning', 'info'];

export interface CheckInfo {
  id: string;
  severity: Severity;
  meaning: string;
}

export const AUDIT_CHECKS = [
  { id: 'duplicate-sourcedid', severity: 'error', meaning: 'a sourcedId twice in one collection' },
  {
    id: 'missing-reference',
    severity: 'error',
    meaning: 'a reference to a record that does not exist',
  },
  {
    id: 'active-refers-to-deleted',
    severity: 'warning',
    meaning: 'an active record referring to a tobedeleted one',
  },
  { id: 'org-cycle', severity: 'error', meaning: 'an org that is its own ancestor' },
  {
    id: 'session-dates',
    severity: 'error',
    meaning: 'an academic session ending before it starts, or outside its parent session',
  },
  { id: 'no-current-school-year', severity: 'warning', meaning: 'no school year covers the audit date' },
  {
    id: 'student-without-enrollment',
    severity: 'warning',
    meaning: 'an active student in no active class',
  },
  { id: 'class-without-teacher', severity: 'warning', meaning: 'an active class with no active teacher' },
  { id: 'invalid-email', severity: 'warning', meaning: "a user's e-mail that invite send would refuse" },
  { id: 'shared-email', severity: 'warning', meaning: 'one e-mail on users of different families' },
  {
    id: 'invalid-grade',
    severity: 'warning',
    meaning: 'a grade neither in the OneRoster vocabulary nor a documented alias',
  },
  {
    id: 'student-without-guardian-email',
    severity: 'warning',
    meaning: 'a student invite plan cannot reach (its uncovered list, with the same reasons)',
  },
  {
    id: 'agent-not-guardian',
    severity: 'warning',
    meaning: "a student's agent whose role is not parent, guardian or relative",
  },
  { id: 'one-sided-link', severity: 'info', meaning: 'an agents link recorded on one side only' },
  { id: 'no-school', severity: 'error', meaning: 'no active org of type school: no plan can reach anyone' },
  {
    id: 'teacher-as-student',
    severity: 'warning',
    meaning: 'a teacher (no student role) enrolled as a student in a class',
  },
  {
    id: 'all-roles-ended',
    severity: 'warning',
    meaning: 'an active user every one of whose roles has ended (in no student or guardian check)',
  },
  {
    id: 'invalid-date-modified',
    severity: 'warning',
    meaning: 'a dateLastModified that is not ISO 8601: changes --since never finds the record',
  },
  {
    id: 'ended-enrollment-active',
    severity: 'warning',
    meaning: 'an active enrollment that ended before the current school year began (counted as current)',
  },
  { id: 'unknown-role', severity: 'warning', meaning: "a role not in the version's vocabulary" },
  { id: 'self-agent', severity: 'warning', meaning: 'a user named as its own agent' },
  {
    id: 'guardian-many-students',
    severity: 'warning',
    meaning: 'one e-mail with more children at one school than --max-children',
  },
] as const satisfies readonly CheckInfo[];

/** The collections the audit reads, in the order it reads them: each refers only to those before it. */
export const AUDIT_COLLECTIONS = [
  'orgs',
  'academicSessions',
  'courses',
  'classes',
  'users',
  'enrollments',
] as const;
export type Collection = (typeof AUDIT_COLLECTIONS)[number];

export type CheckId = (typeof AUDIT_CHECKS)[number]['id'];
export const CHECK_IDS: readonly CheckId[] = AUDIT_CHECKS.map((c) => c.id);

export const severityOf = (id: CheckId): Severity =>
  (AUDIT_CHECKS.find((c) => c.id === id) as CheckInfo).severity;

/** error 0, warning 1, info 2: lower is worse. */
export const rank = (severity: Severity): number => SEVERITIES.indexOf(severity);

/** The error-severity checks: what `roster doctor` runs. */
export const ERROR_CHECKS: readonly CheckId[] = CHECK_IDS.filter((id) => severityOf(id) === 'error');
