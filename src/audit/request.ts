// What `roster roster audit` is asked to do, from its flags, checked before any request: the checks, the
// date, the limits and outputs. `roster doctor` builds its audit line's request here too, so both run the
// audit with the same defaults.
import { resolve } from 'node:path';
import { DEFAULT_MAX_CHILDREN_PER_EMAIL } from '../campaign/limits.js';
import { UsageError } from '../errors.js';
import { DEFAULT_CONCURRENCY, DEFAULT_PAGE_SIZE } from '../oneroster/read-limits.js';
import { printable } from '../values.js';
import {
  AUDIT_COLLECTIONS,
  CHECK_IDS,
  type CheckId,
  type Collection,
  SEVERITIES,
  type Severity,
} from './checks.js';

export interface AuditFlags {
  school?: string[];
  allSchools?: boolean;
  check?: string[];
  skip?: string[];
  /** Checked by its argParser (commands/common.ts's choice). */
  failOn?: FailOn;
  json?: boolean;
  /** Checked by its argParser (outputPath), as are the values below (auditDate, counts). */
  csvDir?: string;
  html?: string;
  maxChildren?: number;
  date?: string;
  pageSize?: number;
  concurrency?: number;
  refreshSchools?: boolean;
  require?: string[];
}

export interface AuditRequest {
  schools: string[] | 'all';
  checks: Set<CheckId>;
  failOn: Severity | 'never';
  maxChildren: number;
  date: string;
  pageSize: number;
  concurrency: number;
  csvDir?: string;
  html?: string;
  /** Collections whose absence from the server is an error (--require). */
  require: Collection[];
}

export const FAIL_ON = [...SEVERITIES, 'never'] as const;
export type FailOn = (typeof FAIL_ON)[number];

function checkList(flag: string, values: string[] | undefined): CheckId[] | undefined {
  if (values === undefined) return undefined;
  const ids = values.flatMap((v) => v.split(',')).map((v) => v.trim());
  const unknown = ids.find((id) => !(CHECK_IDS as readonly string[]).includes(id));
  if (unknown !== undefined)
    throw new UsageError(
      `Unknown check "${printable(unknown, 40)}" in ${flag}.`,
      `The checks: ${CHECK_IDS.join(', ')}.`,
    );
  return ids as CheckId[];
}

/** --require's collections (comma-separated, repeatable), each one the audit reads. */
function requiredCollections(values: string[] | undefined): Collection[] {
  const names = (values ?? []).flatMap((v) => v.split(',')).map((v) => v.trim());
  const unknown = names.find((name) => !(AUDIT_COLLECTIONS as readonly string[]).includes(name));
  if (unknown !== undefined)
    throw new UsageError(
      `Unknown collection "${printable(unknown, 40)}" in --require.`,
      `The collections the audit reads: ${AUDIT_COLLECTIONS.join(', ')}.`,
    );
  return [...new Set(names as Collection[])];
}

/** commander's argParser for --date: a day, YYYY-MM-DD. */
export function auditDate(date: string): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || Number.isNaN(Date.parse(date)))
    throw new UsageError(`Invalid --date "${printable(date, 20)}": expected YYYY-MM-DD.`);
  return date;
}

/** commander's argParser for --csv-dir and --html: a path (the report goes to stdout with --json). */
export const outputPath = (flag: '--csv-dir' | '--html') => (value: string) => {
  if (value.trim() === '' || value === '-')
    throw new UsageError(`${flag} needs a ${flag === '--html' ? 'file' : 'directory'} path.`);
  return value;
};

/** commander's argParser for --school: repeatable, each value trimmed and never empty. */
export const auditSchool = (value: string, previous: string[] = []): string[] => {
  if (value.trim() === '') throw new UsageError('--school is empty.');
  return [...previous, value.trim()];
};

/** The checks to run: --check's, or every check but --skip's. */
function checksOf(flags: AuditFlags): Set<CheckId> {
  const only = checkList('--check', flags.check);
  const skip = checkList('--skip', flags.skip);
  if (only && skip) throw new UsageError('Give --check or --skip, not both.');
  const checks = new Set<CheckId>(only ?? CHECK_IDS.filter((id) => !skip?.includes(id)));
  if (checks.size === 0) throw new UsageError('--skip leaves no check to run.');
  return checks;
}

/**
 * What the flags ask for, checked before any request: the values by their argParsers (roster audit's
 * register), the checks, and what goes with what here. Doctor's audit line asks with --check and --require.
 */
export function parseAuditFlags(flags: AuditFlags, now: number): AuditRequest {
  const schools = flags.school ?? [];
  if (flags.allSchools && schools.length > 0)
    throw new UsageError('Give --school or --all-schools, not both.');
  return {
    schools: flags.allSchools || schools.length === 0 ? 'all' : [...new Set(schools)],
    checks: checksOf(flags),
    failOn: flags.failOn ?? 'error',
    maxChildren: flags.maxChildren ?? DEFAULT_MAX_CHILDREN_PER_EMAIL,
    date: flags.date ?? new Date(now).toISOString().slice(0, 10),
    pageSize: flags.pageSize ?? DEFAULT_PAGE_SIZE,
    concurrency: flags.concurrency ?? DEFAULT_CONCURRENCY,
    require: requiredCollections(flags.require),
    ...(flags.csvDir !== undefined && { csvDir: resolve(flags.csvDir) }),
    ...(flags.html !== undefined && { html: resolve(flags.html) }),
  };
}
