// The one table of OneRoster rostering collections: what each command reads, the wrapper keys of its
// answers, its default table columns, its CSV columns, and the nested reads its parent flags select.
// Every `roster roster <name>` command is generated from this table.
import type { OneRosterVersion } from '../config-file.js';

/** A parent flag of nested reads: `--school ID` reads `/schools/{ID}/<collection>`. */
export type ParentFlag = 'school' | 'class' | 'term' | 'course' | 'student' | 'teacher' | 'user';

export interface Collection {
  /** Command name: students, academic-sessions, … */
  name: string;
  /** Path segment below the version prefix: students, academicSessions, … */
  path: string;
  /** Body key of a list answer, e.g. `users` for students. */
  listKey: string;
  /** Body key of a single read, e.g. `user`. */
  oneKey: string;
  /** One record, for messages: "student". */
  noun: string;
  summary: string;
  /** Default table columns. */
  columns: string[];
  /** Columns of --csv per version (the CSV binding's file for this kind of record). */
  csv: Record<OneRosterVersion, string[]>;
  /** Nested reads: a parent flag, or two (school + class), and the path they read. */
  nested: Nested[];
}

export interface Nested {
  parents: ParentFlag[];
  /** Path below the version prefix with `{school}`, `{class}`, … placeholders. */
  path: string;
}

// The CSV binding's users.csv, per version (roles move to roles.csv in 1.2).
const USERS_CSV_11 = [
  'sourcedId',
  'status',
  'dateLastModified',
  'enabledUser',
  'orgSourcedIds',
  'role',
  'username',
  'userIds',
  'givenName',
  'familyName',
  'middleName',
  'identifier',
  'email',
  'sms',
  'phone',
  'agentSourcedIds',
  'grades',
  'password',
];
const USERS_CSV_12 = [
  'sourcedId',
  'status',
  'dateLastModified',
  'enabledUser',
  'username',
  'userIds',
  'givenName',
  'familyName',
  'middleName',
  'identifier',
  'email',
  'sms',
  'phone',
  'agentSourcedIds',
  'grades',
  'password',
  'userMasterIdentifier',
  'preferredGivenName',
  'preferredMiddleName',
  'preferredFamilyName',
  'primaryOrgSourcedId',
  'pronouns',
];
const same = (columns: string[]): Record<OneRosterVersion, string[]> => ({ '1.1': columns, '1.2': columns });

const USERS_CSV = { '1.1': USERS_CSV_11, '1.2': USERS_CSV_12 };
const ORGS_CSV = same([
  'sourcedId',
  'status',
  'dateLastModified',
  'name',
  'type',
  'identifier',
  'parentSourcedId',
]);
const SESSIONS_CSV = same([
  'sourcedId',
  'status',
  'dateLastModified',
  'title',
  'type',
  'startDate',
  'endDate',
  'parentSourcedId',
  'schoolYear',
]);
const SESSION_COLUMNS = ['sourcedId', 'title', 'type', 'startDate', 'endDate', 'parent', 'status'];

export const COLLECTIONS: readonly Collection[] = [
  {
    name: 'students',
    path: 'students',
    listKey: 'users',
    oneKey: 'user',
    noun: 'student',
    summary: 'students (users with the student role)',
    columns: ['sourcedId', 'givenName', 'familyName', 'grades', 'email', 'status'],
    csv: USERS_CSV,
    nested: [
      { parents: ['school', 'class'], path: 'schools/{school}/classes/{class}/students' },
      { parents: ['school'], path: 'schools/{school}/students' },
      { parents: ['class'], path: 'classes/{class}/students' },
    ],
  },
  {
    name: 'teachers',
    path: 'teachers',
    listKey: 'users',
    oneKey: 'user',
    noun: 'teacher',
    summary: 'teachers',
    columns: ['sourcedId', 'givenName', 'familyName', 'email', 'orgSourcedIds', 'status'],
    csv: USERS_CSV,
    nested: [
      { parents: ['school', 'class'], path: 'schools/{school}/classes/{class}/teachers' },
      { parents: ['school'], path: 'schools/{school}/teachers' },
      { parents: ['class'], path: 'classes/{class}/teachers' },
    ],
  },
  {
    name: 'users',
    path: 'users',
    listKey: 'users',
    oneKey: 'user',
    noun: 'user',
    summary: 'all users: students, teachers, administrators, …',
    columns: ['sourcedId', 'givenName', 'familyName', 'role', 'email', 'status'],
    csv: USERS_CSV,
    nested: [],
  },
  {
    name: 'schools',
    path: 'schools',
    listKey: 'orgs',
    oneKey: 'org',
    noun: 'school',
    summary: 'schools (orgs of type school)',
    columns: ['sourcedId', 'name', 'identifier', 'parent', 'status'],
    csv: ORGS_CSV,
    nested: [],
  },
  {
    name: 'orgs',
    path: 'orgs',
    listKey: 'orgs',
    oneKey: 'org',
    noun: 'org',
    summary: 'organisations: the district, its schools, departments, …',
    columns: ['sourcedId', 'name', 'type', 'identifier', 'parent', 'status'],
    csv: ORGS_CSV,
    nested: [],
  },
  {
    name: 'classes',
    path: 'classes',
    listKey: 'classes',
    oneKey: 'class',
    noun: 'class',
    summary: 'classes (sections of courses)',
    columns: ['sourcedId', 'title', 'classCode', 'school', 'course', 'status'],
    csv: same([
      'sourcedId',
      'status',
      'dateLastModified',
      'title',
      'grades',
      'courseSourcedId',
      'classCode',
      'classType',
      'location',
      'schoolSourcedId',
      'termSourcedIds',
      'subjects',
      'subjectCodes',
      'periods',
    ]),
    nested: [
      { parents: ['school'], path: 'schools/{school}/classes' },
      { parents: ['term'], path: 'terms/{term}/classes' },
      { parents: ['course'], path: 'courses/{course}/classes' },
      { parents: ['student'], path: 'students/{student}/classes' },
      { parents: ['teacher'], path: 'teachers/{teacher}/classes' },
      { parents: ['user'], path: 'users/{user}/classes' },
    ],
  },
  {
    name: 'courses',
    path: 'courses',
    listKey: 'courses',
    oneKey: 'course',
    noun: 'course',
    summary: 'courses',
    columns: ['sourcedId', 'title', 'courseCode', 'grades', 'org', 'status'],
    csv: same([
      'sourcedId',
      'status',
      'dateLastModified',
      'schoolYearSourcedId',
      'title',
      'courseCode',
      'grades',
      'orgSourcedId',
      'subjects',
      'subjectCodes',
    ]),
    nested: [{ parents: ['school'], path: 'schools/{school}/courses' }],
  },
  {
    name: 'enrollments',
    path: 'enrollments',
    listKey: 'enrollments',
    oneKey: 'enrollment',
    noun: 'enrollment',
    summary: 'enrollments (a user in a class, with a role)',
    columns: ['sourcedId', 'user', 'class', 'role', 'primary', 'beginDate', 'endDate', 'status'],
    csv: same([
      'sourcedId',
      'status',
      'dateLastModified',
      'classSourcedId',
      'schoolSourcedId',
      'userSourcedId',
      'role',
      'primary',
      'beginDate',
      'endDate',
    ]),
    nested: [
      { parents: ['school', 'class'], path: 'schools/{school}/classes/{class}/enrollments' },
      { parents: ['school'], path: 'schools/{school}/enrollments' },
    ],
  },
  {
    name: 'academic-sessions',
    path: 'academicSessions',
    listKey: 'academicSessions',
    oneKey: 'academicSession',
    noun: 'academic session',
    summary: 'academic sessions: school years, terms, grading periods',
    columns: SESSION_COLUMNS,
    csv: SESSIONS_CSV,
    nested: [],
  },
  {
    name: 'terms',
    path: 'terms',
    listKey: 'academicSessions',
    oneKey: 'academicSession',
    noun: 'term',
    summary: 'terms (academic sessions of type term)',
    columns: SESSION_COLUMNS,
    csv: SESSIONS_CSV,
    nested: [{ parents: ['school'], path: 'schools/{school}/terms' }],
  },
  {
    name: 'grading-periods',
    path: 'gradingPeriods',
    listKey: 'academicSessions',
    oneKey: 'academicSession',
    noun: 'grading period',
    summary: 'grading periods (academic sessions of type gradingPeriod)',
    columns: SESSION_COLUMNS,
    csv: SESSIONS_CSV,
    nested: [{ parents: ['term'], path: 'terms/{term}/gradingPeriods' }],
  },
  {
    name: 'demographics',
    path: 'demographics',
    listKey: 'demographics',
    oneKey: 'demographics',
    noun: 'demographics record',
    summary: 'demographics (sensitive: birth dates, race, ethnicity)',
    columns: ['sourcedId', 'birthDate', 'sex', 'status'],
    csv: same([
      'sourcedId',
      'status',
      'dateLastModified',
      'birthDate',
      'sex',
      'americanIndianOrAlaskaNative',
      'asian',
      'blackOrAfricanAmerican',
      'nativeHawaiianOrOtherPacificIslander',
      'white',
      'demographicRaceTwoOrMoreRaces',
      'hispanicOrLatinoEthnicity',
      'countryOfBirthCode',
      'stateOfBirthAbbreviation',
      'cityOfBirth',
      'publicSchoolResidenceStatus',
    ]),
    nested: [],
  },
];

/** The flags a collection's nested reads use, in table order. */
export function parentFlagsOf(collection: Collection): ParentFlag[] {
  return [...new Set(collection.nested.flatMap((n) => n.parents))];
}

/** The nested read selected by exactly these parent flags, if any. */
export function nestedRead(collection: Collection, given: ParentFlag[]): Nested | undefined {
  const key = [...given].sort().join('+');
  return collection.nested.find((n) => [...n.parents].sort().join('+') === key);
}

/**
 * The collection a word the user typed names, however it is spelt: the command (`academic-sessions`),
 * the path (`academicSessions`), the record (`student`, `grading period`), in any case: so an unknown
 * command that is a collection can say what to type.
 */
export function collectionNamedBy(word: string): Collection | undefined {
  const bare = (text: string) => text.toLowerCase().replace(/[-_\s]/g, '');
  const typed = bare(word);
  if (typed === '') return undefined;
  return COLLECTIONS.find((collection) => {
    const forms = [collection.name, collection.path, collection.noun, `${collection.noun}s`].map(bare);
    return forms.includes(typed);
  });
}
