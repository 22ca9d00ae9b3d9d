// The OneRoster CSV binding as `roster roster export` writes it: which files, fed by which REST
// collection, with which columns (the collection table's own CSV columns; roles.csv for 1.2), and the
// manifest's properties. Bulk files leave status and dateLastModified blank and list only live records;
// delta files carry both and every record, tobedeleted ones included.
import { isRecord } from '../api/errors.js';
import type { OneRosterVersion } from '../config-file.js';
import { COLLECTIONS, type Collection } from './collections.js';
import { columnReader, sourcedIdOf } from './records.js';

export type ExportMode = 'bulk' | 'delta';

/** One CSV file of an export: its name, columns and the rows one REST record gives. */
export interface CsvFile {
  /** File name, e.g. users.csv; the manifest property is file.<name without .csv>. */
  name: string;
  header: string[];
  /** The cells of each row a record gives (users.csv: one; roles.csv: one per role). */
  rows(record: unknown): string[][];
  /** Reference columns whose target, when left out of a bulk export, leaves the row out too. */
  requires: number[];
}

/** One pass over a REST collection, writing one or more files. */
export interface ExportTask {
  collection: Collection;
  files: CsvFile[];
  /** Demographics: a 401 or 403 means "not permitted", the file is absent, and the export goes on. */
  optional: boolean;
}

// The 1.2 binding's roles.csv: the users' roles[] (1.1 has role and orgSourcedIds in users.csv).
export const ROLES_CSV = [
  'sourcedId',
  'status',
  'dateLastModified',
  'userSourcedId',
  'roleType',
  'role',
  'beginDate',
  'endDate',
  'orgSourcedId',
  'userProfileSourcedId',
];

/** Every file property of the manifest, per the binding (the export writes the rostering ones). */
const MANIFEST_FILES: Record<OneRosterVersion, string[]> = {
  '1.1': [
    'academicSessions',
    'categories',
    'classes',
    'classResources',
    'courses',
    'courseResources',
    'demographics',
    'enrollments',
    'lineItems',
    'orgs',
    'resources',
    'results',
    'users',
  ],
  '1.2': [
    'academicSessions',
    'categories',
    'classes',
    'classResources',
    'courses',
    'courseResources',
    'demographics',
    'enrollments',
    'lineItemLearningObjectiveIds',
    'lineItems',
    'lineItemScoreScales',
    'orgs',
    'resources',
    'resultLearningObjectiveIds',
    'results',
    'resultScoreScales',
    'roles',
    'scoreScales',
    'userProfiles',
    'users',
  ],
};

export const SOURCE_SYSTEM = 'roster';

// Which required references leave a bulk row out with their target.
const REQUIRES: Record<string, string[]> = {
  'courses.csv': ['orgSourcedId'],
  'classes.csv': ['courseSourcedId', 'schoolSourcedId'],
  'enrollments.csv': ['classSourcedId', 'userSourcedId', 'schoolSourcedId'],
  // A demographics record shares its user's sourcedId.
  'demographics.csv': ['sourcedId'],
  'roles.csv': ['userSourcedId', 'orgSourcedId'],
};

// Date columns are dates in the binding (YYYY-MM-DD); some servers send them as date-times.
const DATE_COLUMNS = new Set(['birthDate', 'startDate', 'endDate', 'beginDate']);
const BULK_BLANK = new Set(['status', 'dateLastModified']);

const TASKS: [collection: string, file: string][] = [
  ['orgs', 'orgs.csv'],
  ['academic-sessions', 'academicSessions.csv'],
  ['courses', 'courses.csv'],
  ['classes', 'classes.csv'],
  ['users', 'users.csv'],
  ['enrollments', 'enrollments.csv'],
  ['demographics', 'demographics.csv'],
];

/** The export of one version, in the order files are written (referenced records first). */
export function exportTasks(version: OneRosterVersion, mode: ExportMode): ExportTask[] {
  return TASKS.map(([name, file]) => {
    const collection = COLLECTIONS.find((c) => c.name === name);
    if (!collection) throw new Error(`no collection ${name}`);
    const files = [csvFile(file, collection.csv[version], mode, (record) => [record])];
    if (name === 'users' && version === '1.2') files.push(csvFile('roles.csv', ROLES_CSV, mode, roleRecords));
    return { collection, files, optional: name === 'demographics' };
  });
}

function csvFile(
  name: string,
  header: string[],
  mode: ExportMode,
  records: (record: unknown) => unknown[],
): CsvFile {
  const readers = header.map((column) => cellReader(column, mode));
  return {
    name,
    header,
    rows: (record) => records(record).map((r) => readers.map((read) => read(r))),
    requires: (REQUIRES[name] ?? []).map((column) => header.indexOf(column)).filter((i) => i >= 0),
  };
}

/** A cell: the column's values joined by commas (the writer quotes the cell), dates cut to the day. */
function cellReader(column: string, mode: ExportMode): (record: unknown) => string {
  if (mode === 'bulk' && BULK_BLANK.has(column)) return () => '';
  const values = columnReader(column);
  if (DATE_COLUMNS.has(column)) return (record) => values(record).map(dateOnly).join(',');
  return (record) => values(record).join(',');
}

function dateOnly(value: string): string {
  return /^\d{4}-\d{2}-\d{2}T/.test(value) ? value.slice(0, 10) : value;
}

/**
 * roles.csv rows of a 1.2 user: one per roles[] entry. The REST binding gives roles no sourcedId, so
 * each gets a stable one from its user, org and role (numbered should a user repeat the same pair).
 */
export function roleRecords(user: unknown): Record<string, unknown>[] {
  if (!isRecord(user) || !Array.isArray(user.roles)) return [];
  const userId = sourcedIdOf(user) ?? '';
  const seen = new Map<string, number>();
  return user.roles.filter(isRecord).map((role) => {
    const org = sourcedIdOf(role.org) ?? '';
    const base = `${userId}-${org}-${typeof role.role === 'string' ? role.role : 'role'}`;
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    return {
      sourcedId: n === 1 ? base : `${base}-${n}`,
      status: user.status,
      dateLastModified: user.dateLastModified,
      userSourcedId: userId,
      roleType: role.roleType,
      role: role.role,
      beginDate: role.beginDate,
      endDate: role.endDate,
      orgSourcedId: org,
      userProfileSourcedId: isRecord(role.userProfile)
        ? sourcedIdOf(role.userProfile)
        : typeof role.userProfile === 'string'
          ? role.userProfile
          : undefined,
    };
  });
}

/** Whether a record is marked for deletion (left out of bulk files). */
export function isToBeDeleted(record: unknown): boolean {
  return isRecord(record) && record.status === 'tobedeleted';
}

/** manifest.csv's rows: versions, each file property bulk|delta|absent, and the source system. */
export function manifestRows(
  version: OneRosterVersion,
  written: ReadonlySet<string>,
  mode: ExportMode,
): [string, string][] {
  return [
    ['manifest.version', '1.0'],
    ['oneroster.version', version],
    ...MANIFEST_FILES[version].map((name): [string, string] => [
      `file.${name}`,
      written.has(`${name}.csv`) ? mode : 'absent',
    ]),
    ['source.systemName', SOURCE_SYSTEM],
    ['source.systemCode', SOURCE_SYSTEM],
  ];
}
