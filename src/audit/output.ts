// The audit's report in each of its forms: JSON (every record), the terminal's two tables, and one CSV per
// check for the office that fixes the records in the SIS (cells that could run as formulas are quoted off).
import { csvLine, peopleCell } from '../output/csv.js';
import {
  type AuditResult,
  type Finding,
  type NotChecked,
  notCheckedText,
  type SchoolFigures,
} from './audit.js';
import type { Severity } from './checks.js';

export interface ReportMeta {
  version: string;
  /** The audit date (YYYY-MM-DD). */
  date: string;
  /** The schools the report is limited to, or null for the district. */
  schools: string[] | null;
  failOn: Severity | 'never';
}

export interface AuditJson {
  summary: {
    version: string;
    date: string;
    schools: string[] | null;
    failOn: Severity | 'never';
    /** Records found per severity. */
    counts: Record<Severity, number>;
    read: AuditResult['read'];
    perSchool: (SchoolFigures & { guardianEmailShare: number | null })[];
    /** Collections the server does not serve, each with the checks not run for it and the sentence. */
    notChecked: (NotChecked & { text: string })[];
  };
  findings: { check: string; severity: Severity; count: number; records: ReportRecord[] }[];
}

interface ReportRecord {
  collection: string;
  sourcedId: string;
  /** A user's given and family name, and their schools' names. */
  name?: string;
  school?: string;
  detail: string;
}

export const share = (part: number, whole: number): number | null =>
  whole === 0 ? null : Math.round((1000 * part) / whole) / 1000;

export function auditJson(result: AuditResult, meta: ReportMeta): AuditJson {
  const counts: Record<Severity, number> = { error: 0, warning: 0, info: 0 };
  for (const f of result.findings) counts[f.severity] += f.count;
  return {
    summary: {
      ...meta,
      counts,
      read: result.read,
      perSchool: result.schools.map((s) => ({
        ...s,
        guardianEmailShare: share(s.withGuardianEmail, s.students),
      })),
      notChecked: result.notChecked.map((n) => ({ ...n, text: notCheckedText(n) })),
    },
    findings: result.findings.map((f) => ({
      check: f.check,
      severity: f.severity,
      count: f.count,
      records: f.records.map(({ collection, sourcedId, person, detail }) => ({
        collection,
        sourcedId,
        ...(person && { name: person.name, school: person.school }),
        detail,
      })),
    })),
  };
}

/**
 * The first few records of a finding, for the summary table: each named once (a student with two agents
 * who are not guardians is two findings), then how many findings are left.
 */
export function examplesOf(finding: Finding, n = 3): string {
  const ids: string[] = [];
  let used = 0;
  for (const record of finding.records) {
    if (ids.length === n) break;
    used++;
    // A finding of no record (no school year at all, no school) is named by its sentence.
    const id = (record.sourcedId || record.detail) + (record.person ? ` (${personText(record.person)})` : '');
    if (!ids.includes(id)) ids.push(id);
  }
  const more = finding.count - used;
  return ids.join(', ') + (more > 0 ? `, … (${more} more)` : '');
}

/** "Zoë Åkesson, Alder Elementary School": who a record is about, as the office would look them up. */
export const personText = (person: { name: string; school: string }): string =>
  [person.name, person.school].filter(Boolean).join(', ');

export const percent = (value: number | null): string =>
  value === null ? '–' : `${(100 * value).toFixed(1)}%`;

/** One CSV per check: the records to fix, one a line. */
export function findingCsv(finding: Finding): string {
  const header = csvLine(['check', 'severity', 'collection', 'sourcedId', 'name', 'school', 'detail']);
  return (
    header +
    finding.records
      .map((r) =>
        csvLine(
          [
            finding.check,
            finding.severity,
            r.collection,
            r.sourcedId,
            r.person?.name ?? '',
            r.person?.school ?? '',
            r.detail,
          ].map(peopleCell),
        ),
      )
      .join('')
  );
}

/** What was not checked, for the office reading the CSV files: one line per collection the server does not serve. */
export function notCheckedCsv(notChecked: readonly NotChecked[]): string {
  const header = csvLine(['collection', 'answer', 'required', 'checks not run', 'what it means']);
  return (
    header +
    notChecked
      .map((n) =>
        csvLine(
          [n.collection, n.answer, n.required ? 'yes' : 'no', n.checks.join(' '), notCheckedText(n)].map(
            peopleCell,
          ),
        ),
      )
      .join('')
  );
}
