// The end of a bulk run: where every row stands (this run's results over the journal's earlier states), the
// human summary for stderr and the machine report for --json.
import { checkCommand } from '../api/enrollment.js';
import { RosterError } from '../errors.js';
import type { RowResult } from './bulk-runner.js';
import { invitationKey } from './invitation.js';
import type { PlannedRow } from './invite-file.js';
import type { SchoolName } from './preview.js';
import { bodyHash, type LastEntry } from './store/index.js';

export type FinalState = 'sent' | 'skipped' | 'failed' | 'in-doubt' | 'not-started';

export interface ReportRow {
  line: number;
  email: string;
  schoolId: string;
  /**
   * sent: by this run; skipped: sent by an earlier run of this file, or (sentElsewhere) by another run after
   * the file was saved; not-started: interrupted before its turn.
   */
  result: FinalState;
  reason?: string;
  status?: number;
  /** The server's message for a row sent by this run. */
  message?: string;
  /** The failure or doubt comes from an earlier run (this run did not try the row). */
  earlier?: boolean;
  /** A skipped row whose fields were edited after it was sent: the edit was not sent. */
  changed?: boolean;
  /** A skipped row that roster's record shows sent by another run at this time, after the file was saved. */
  sentElsewhere?: string;
  /** Its schoolId is not in the district's list of schools (allowed by --allow-unlisted-school). */
  unlistedSchool?: true;
  /** The row's informational cells (guardianNames, studentIds, schoolName, studentNames), as in the file. */
  guardianNames?: string;
  studentIds?: string;
  schoolName?: string;
  studentNames?: string;
}

export interface Counts {
  total: number;
  sent: number;
  skipped: number;
  failed: number;
  inDoubt: number;
  notStarted: number;
}

export interface BulkReport {
  file: string;
  journal: string;
  interrupted: boolean;
  /** The file's content differs from when the journal began (rows are still matched by e-mail and school). */
  contentChanged: boolean;
  /** Why the run stopped taking rows early, when it did. */
  stoppedBy?: string;
  counts: Counts;
  /** The CSV of failed rows, ready to be fed back to --file; null when nothing failed. */
  failedCsv: string | null;
  /** Every row (--json); else only the rows the summary names (namedInSummary), counted in `counts`. */
  rows: ReportRow[];
}

/** What a row's report tells about it, before its fate. */
type RowBase = Pick<ReportRow, 'line' | 'email' | 'schoolId' | 'unlistedSchool' | InfoName>;
type InfoName = 'guardianNames' | 'studentIds' | 'schoolName' | 'studentNames';

/**
 * Where one row stands after the run: this run's result for it (`result`, or `elsewhere`: sent by another
 * run, so not sent by this one), else the journal's state before the run (`before`); both maps by row key
 * (invitationKey). The report keeps the line of the current file.
 */
export function finalRow(
  { line, body, info, unlistedSchool }: PlannedRow,
  before: ReadonlyMap<string, LastEntry>,
  thisRun: RowResult | undefined,
  elsewhere: ReadonlyMap<string, string>,
): ReportRow {
  const base: RowBase = {
    line,
    email: body.email,
    schoolId: body.schoolId,
    ...(unlistedSchool && { unlistedSchool }),
    ...info,
  };
  const key = invitationKey(body.email, body.schoolId);
  const sentAt = elsewhere.get(key);
  const result: RowResult | undefined = sentAt !== undefined ? { state: 'elsewhere', sentAt } : thisRun;
  if (result?.state === 'sent')
    return { ...base, result: 'sent', ...(result.message !== undefined && { message: result.message }) };
  if (result?.state === 'elsewhere') return { ...base, result: 'skipped', sentElsewhere: result.sentAt };
  if (result) {
    return {
      ...base,
      result: result.state,
      reason: result.reason,
      ...(result.status !== undefined && { status: result.status }),
    };
  }
  const earlier = before.get(key);
  switch (earlier?.state) {
    case 'sent':
      // Older entries carry no bodyHash: nothing to compare, so no claim either way.
      return earlier.bodyHash !== undefined && earlier.bodyHash !== bodyHash(body)
        ? { ...base, result: 'skipped', changed: true }
        : { ...base, result: 'skipped' };
    case 'failed':
      return { ...base, result: 'failed', reason: earlier.reason ?? 'failed', earlier: true };
    case 'in-flight':
    case 'in-doubt':
      return {
        ...base,
        result: 'in-doubt',
        reason: earlier.reason ?? `in flight when an earlier run stopped (${earlier.at})`,
        earlier: true,
      };
    default:
      return { ...base, result: 'not-started' };
  }
}

/** A row the summary names: failed, in doubt, sent by another run, edited since sent, or sent to an unlisted school. */
export const namedInSummary = (row: ReportRow) =>
  row.result === 'failed' ||
  row.result === 'in-doubt' ||
  row.sentElsewhere !== undefined ||
  row.changed === true ||
  (row.unlistedSchool === true && row.result === 'sent');

/**
 * Every row's final state counted, in one pass; kept are the rows `keep` picks (every row for --json, else
 * those the summary names: a district's rows are not all held for a summary of counts) and the failed
 * planned rows (for the failed rows' CSV), in file order.
 */
export function tallyRows(
  planned: Iterable<PlannedRow>,
  fate: (row: PlannedRow) => ReportRow,
  keep: (row: ReportRow) => boolean,
): { counts: Counts; rows: ReportRow[]; failed: PlannedRow[] } {
  const counts: Counts = { total: 0, sent: 0, skipped: 0, failed: 0, inDoubt: 0, notStarted: 0 };
  const rows: ReportRow[] = [];
  const failed: PlannedRow[] = [];
  for (const row of planned) {
    const final = fate(row);
    counts.total++;
    if (final.result === 'sent') counts.sent++;
    else if (final.result === 'skipped') counts.skipped++;
    else if (final.result === 'failed') counts.failed++;
    else if (final.result === 'in-doubt') counts.inDoubt++;
    else counts.notStarted++;
    if (final.result === 'failed') failed.push(row);
    if (keep(final)) rows.push(final);
  }
  return { counts, rows, failed };
}

/** A row as the admin reads it: its line, its address and its school by name (the id without a name). */
type RowText = (row: ReportRow) => string;

/** The summary on stderr: counts first, then every failed and in-doubt row with what to do about it. */
export function summaryLines(
  report: BulkReport,
  fileName: string,
  schoolName: SchoolName = () => undefined,
): string[] {
  const row: RowText = (r) => `line ${r.line}: ${r.email} (${schoolName(r.schoolId) ?? r.schoolId})`;
  const lines = [headline(report, fileName), ...skippedLines(report, row)];
  const { notStarted } = report.counts;
  if (notStarted > 0) lines.push(`  Not started: ${notStarted} (run the same command again to send them).`);
  lines.push(...failedLines(report.rows, row), ...doubtLines(report.rows, row));
  const unlisted = unlistedSummary(report.rows);
  if (unlisted) lines.push(unlisted);
  if (report.failedCsv)
    lines.push(`  Failed rows written to ${report.failedCsv} (fix them and send that file).`);
  lines.push(`Journal: ${report.journal}`);
  return lines;
}

function headline(report: BulkReport, fileName: string): string {
  const { counts } = report;
  // Over the named rows only, the same: a row the summary leaves out is sent or not started (counted
  // above) or skipped.
  const nothingTried =
    counts.sent + counts.notStarted === 0 && report.rows.every((r) => r.result === 'skipped' || r.earlier);
  if (nothingTried)
    return `Nothing sent from ${fileName}: an earlier run already dealt with all ${counts.total} rows.`;
  return (
    `Sent ${counts.sent} of ${counts.total} invitation${counts.total === 1 ? '' : 's'} from ${fileName}` +
    `${report.interrupted ? ' before the interrupt' : ''}.`
  );
}

/** Rows skipped: by an earlier run of the file, by another run (named), and those edited since sent. */
function skippedLines(report: BulkReport, row: RowText): string[] {
  const lines: string[] = [];
  const elsewhere = report.rows.filter((r) => r.sentElsewhere !== undefined);
  if (report.counts.skipped > elsewhere.length)
    lines.push(`  Skipped ${report.counts.skipped - elsewhere.length} already sent by an earlier run.`);
  if (elsewhere.length > 0) {
    lines.push(
      `  Skipped ${elsewhere.length} that roster's record shows already sent by another run (never e-mailed twice; to send them again, re-run with --resend-sent):`,
    );
    for (const r of elsewhere.slice(0, 20)) lines.push(`    ${row(r)}: sent ${r.sentElsewhere}`);
    if (elsewhere.length > 20) lines.push(`    … and ${elsewhere.length - 20} more (--json lists them all)`);
  }
  const changed = report.rows.filter((r) => r.changed);
  if (changed.length > 0) {
    lines.push(`    ${changed.length} of them edited in the file since; the edits were not sent:`);
    for (const r of changed) lines.push(`      ${row(r)}: skipped as already sent (before the edit)`);
  }
  return lines;
}

function failedLines(rows: ReportRow[], row: RowText): string[] {
  const failed = rows.filter((r) => r.result === 'failed');
  if (failed.length === 0) return [];
  return [
    `  Failed: ${failed.length} (not sent; a re-run retries them):`,
    ...failed.map((r) => `    ${row(r)}: ${r.reason}`),
  ];
}

/** Rows in doubt, each with the command that checks it. */
function doubtLines(rows: ReportRow[], row: RowText): string[] {
  const doubt = rows.filter((r) => r.result === 'in-doubt');
  if (doubt.length === 0) return [];
  return [
    `  In doubt: ${doubt.length} (may have been sent; not sent again):`,
    ...doubt.flatMap((r) => [
      `    ${row(r)}: ${r.reason}`,
      `      check: ${checkCommand(r.email, r.schoolId)}`,
    ]),
    '    To send them again anyway, re-run with --resend-in-doubt.',
  ];
}

/** The unlisted school ids this run sent to, with their lines: `sch-2027 (lines 3, 4)`. */
function unlistedSummary(rows: ReportRow[]): string | undefined {
  const byId = linesBySchool(rows.filter((r) => r.unlistedSchool && r.result === 'sent'));
  if (byId.size === 0) return undefined;
  const ids = [...byId].map(([id, at]) => `${id} (line${at.length === 1 ? '' : 's'} ${at.join(', ')})`);
  return `  Sent to ${byId.size === 1 ? 'a school id' : `${byId.size} school ids`} not in the district's list of schools (--allow-unlisted-school): ${ids.join('; ')}.`;
}

/** The lines of these rows, by school id, in row order. */
export function linesBySchool(rows: Iterable<{ schoolId: string; line: number }>): Map<string, number[]> {
  const byId = new Map<string, number[]>();
  for (const { schoolId, line } of rows) byId.set(schoolId, [...(byId.get(schoolId) ?? []), line]);
  return byId;
}

/** What a send of a file came to (bulk-send.ts), for the command to show. */
export interface FileSendOutcome {
  report: BulkReport;
  /** The error that stopped the run before every row was tried, if one did. */
  stoppedBy?: RosterError;
  /** The schools' names, for the summary (the report keeps the ids). */
  schoolName?: SchoolName;
}

/**
 * The error a send of a file ends with, once shown: interrupted, stopped, or partial when a row failed or
 * is in doubt; undefined when every row is confirmed sent.
 */
export function outcomeError(
  report: BulkReport,
  stoppedBy: RosterError | undefined,
): RosterError | undefined {
  const { counts } = report;
  if (report.interrupted) {
    return new RosterError(
      'interrupted',
      `Interrupted: ${counts.notStarted} row${counts.notStarted === 1 ? '' : 's'} not started`,
      'Run the same command again to continue; rows already sent will be skipped.',
    );
  }
  if (stoppedBy) {
    return new RosterError(
      stoppedBy.code,
      `Stopped sending: ${stoppedBy.message.replace(/\.$/, '')}`,
      stoppedBy.hint ?? 'Fix the cause and run the same command again to continue.',
    );
  }
  if (counts.failed > 0 || counts.inDoubt > 0) {
    const parts = [
      ...(counts.failed ? [`${counts.failed} failed`] : []),
      ...(counts.inDoubt ? [`${counts.inDoubt} in doubt`] : []),
    ];
    return new RosterError('partial', `Not every invitation is confirmed sent: ${parts.join(', ')}`);
  }
  return undefined;
}
