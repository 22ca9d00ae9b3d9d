// `roster roster audit`: the go-live data audit. Reads the district once (src/audit/), reports what will
// break before families are invited, as tables, JSON, one CSV per check and an HTML page; exits 1 when a
// finding is at or above --fail-on, as `roster doctor` does when a check fails. The audit itself loads
// only when the command runs.
import { join } from 'node:path';
import type { Command } from 'commander';
import type { AuditResult } from '../../audit/audit.js';
import { AUDIT_CHECKS, AUDIT_COLLECTIONS, SEVERITIES } from '../../audit/checks.js';
import type { ReportMeta } from '../../audit/output.js';
import {
  type AuditFlags,
  type AuditRequest,
  auditDate,
  auditSchool,
  FAIL_ON,
  outputPath,
  parseAuditFlags,
} from '../../audit/request.js';
import { DEFAULT_MAX_CHILDREN_PER_EMAIL } from '../../campaign/limits.js';
import type { Context } from '../../context.js';
import { RosterError } from '../../errors.js';
import {
  DEFAULT_CONCURRENCY,
  DEFAULT_PAGE_SIZE,
  MAX_CONCURRENCY,
  MAX_PAGE_SIZE,
} from '../../oneroster/read-limits.js';
import { choice, count, examples, repeatable } from '../common.js';
import { withJsonVerdict } from '../verdict.js';

export interface AuditOutcome {
  request: AuditRequest;
  /** The findings of the selected schools (and district-wide ones), worst first. */
  result: AuditResult;
  meta: ReportMeta;
}

/** Reads the district once and audits it; nothing is printed or written here. */
export async function run(flags: AuditFlags, ctx: Context): Promise<AuditOutcome> {
  const request = parseAuditFlags(flags, ctx.now());
  // The folders written to are checked before any request, by the rule of every file roster writes.
  if (request.csvDir || request.html) {
    const { outputFileFolder, outputFolder } = await import('../../files.js');
    const warn = (line: string) => ctx.log.warn(line);
    if (request.csvDir) await outputFolder(request.csvDir, warn, 'the CSV files');
    if (request.html) await outputFileFolder(request.html, warn);
  }
  const session = await ctx.session();
  const [{ runAudit, forSchools, sorted }, { onerosterService }, { startProgress }] = await Promise.all([
    import('../../audit/run.js'),
    import('../../oneroster/service.js'),
    import('../../output/progress.js'),
  ]);
  let selected: Map<string, string> | undefined;
  if (request.schools !== 'all') {
    const { SchoolDirectory } = await import('../../schools/directory.js');
    selected = await new SchoolDirectory(ctx, session, Boolean(flags.refreshSchools)).selection(
      request.schools,
    );
  }
  const service = onerosterService(session);
  const progress = await startProgress(ctx, `Auditing OneRoster ${service.version}…`);
  let full: AuditResult;
  try {
    full = await runAudit(service, request, {
      signal: ctx.trapInterrupt(),
      progress: (text) => progress.update(text),
      warn: (line) => ctx.log.warn(line),
      debug: (line) => ctx.log.debug(line),
    });
  } finally {
    progress.stop();
  }
  const result = sorted(forSchools(full, selected && new Set(selected.keys())));
  const meta = {
    version: service.version,
    date: request.date,
    schools: selected ? [...selected.keys()] : null,
    failOn: request.failOn,
  };
  return { request, result, meta };
}

/** The files asked for (a CSV per check with findings, the HTML page), then stdout and the summary. */
async function report({ request, result, meta }: AuditOutcome, json: boolean, ctx: Context): Promise<void> {
  const { auditJson, findingCsv, notCheckedCsv } = await import('../../audit/output.js');
  if (request.csvDir) {
    const { writePrivateFile } = await import('../../files.js');
    for (const finding of result.findings.filter((f) => f.count > 0))
      await writePrivateFile(join(request.csvDir, `${finding.check}.csv`), findingCsv(finding), {
        forExcel: true,
      });
    if (result.notChecked.length > 0)
      await writePrivateFile(join(request.csvDir, 'not-checked.csv'), notCheckedCsv(result.notChecked), {
        forExcel: true,
      });
  }
  if (request.html) {
    const [{ auditHtml }, { writePrivateFile }] = await Promise.all([
      import('../../audit/html.js'),
      import('../../files.js'),
    ]);
    await writePrivateFile(request.html, auditHtml(auditJson(result, meta)));
  }
  const [{ printJson }, { fails }] = await Promise.all([
    import('../../output/render.js'),
    import('../../audit/run.js'),
  ]);
  // `success` as attendance check and doctor print it: false when --fail-on fails the run (exit 1).
  if (json) printJson(ctx, { success: !fails(result, request.failOn), ...auditJson(result, meta) });
  else {
    const { printReport } = await import('./audit-terminal.js');
    await printReport(ctx, result);
  }
  const found = result.findings.filter((f) => f.count > 0);
  const total = found.reduce((n, f) => n + f.count, 0);
  const ran = result.findings.length;
  const notRun = request.checks.size - ran;
  const checks =
    notRun === 0
      ? `${ran} checks`
      : `${ran} checks run, ${notRun} not run: the server does not serve ${result.notChecked.map((n) => n.collection).join(', ')}`;
  ctx.log.info(
    total === 0
      ? `Audit of OneRoster ${meta.version}: no finding (${checks}).`
      : `Audit of OneRoster ${meta.version}: ${total} record${total === 1 ? '' : 's'} to look at in ${found.length} check${found.length === 1 ? '' : 's'} (${checks}).`,
  );
  if (request.csvDir) ctx.log.info(`CSV files written to ${request.csvDir}.`);
  if (request.html) ctx.log.info(`HTML report written to ${request.html}.`);
}

/** Exit 1 when a finding is at or above --fail-on, or a collection --require names is not served. */
async function failOnFindings({ request, result }: AuditOutcome): Promise<void> {
  const { fails } = await import('../../audit/run.js');
  if (!fails(result, request.failOn)) return;
  const missing = result.notChecked.filter((n) => n.required).map((n) => n.collection);
  if (missing.length > 0)
    throw new RosterError(
      'failure',
      `The server does not serve ${missing.join(', ')}, which --require names: the checks that need ${missing.length === 1 ? 'it' : 'them'} were not run.`,
    );
  const worst = result.findings.filter(
    (f) =>
      f.count > 0 &&
      request.failOn !== 'never' &&
      SEVERITIES.indexOf(f.severity) <= SEVERITIES.indexOf(request.failOn),
  );
  throw new RosterError(
    'failure',
    `The audit found problems at or above --fail-on ${request.failOn}: ${worst.map((f) => `${f.check} (${f.count})`).join(', ')}`,
  );
}

export function register(group: Command, ctx: Context): void {
  const command = group
    .command('audit')
    .summary('go-live data audit: what will break before families are invited')
    .description(
      'Read the district once (orgs, academic sessions, courses, classes, users, enrollments) and check what ' +
        'go-live needs: references that resolve, a current school year, students in classes, classes with a ' +
        'teacher, guardian e-mails invite send takes. Exit 1 when a finding is at or above --fail-on (default ' +
        'error), 0 otherwise.',
    )
    .addHelpText(
      'after',
      `\nChecks (ids for --check / --skip) and their severities:\n${AUDIT_CHECKS.map((c) => `  ${c.id.padEnd(31)} ${c.severity.padEnd(8)} ${c.meaning}`).join('\n')}\n`,
    )
    .option(
      '--school <school>',
      'limit the report to a school: sourcedId, name or identifier (repeatable)',
      auditSchool,
    )
    .option('--all-schools', 'report on every school (the default)');
  declareChecksAndOutputs(command);
  declareReadFlags(command);
  command.action(async (flags: AuditFlags) => {
    const outcome = await withJsonVerdict(ctx, Boolean(flags.json), () => run(flags, ctx));
    await report(outcome, Boolean(flags.json), ctx);
    await failOnFindings(outcome);
  });
  examples(command, [
    'roster roster audit',
    'roster roster audit --school "Alder Elementary School" --html audit.html',
    'roster roster audit --fail-on warning --csv-dir ./to-fix',
    'roster roster audit --check missing-reference,duplicate-sourcedid --json > audit.json',
    'roster roster audit --require academicSessions,enrollments   # a server without them fails',
  ]);
}

/** Which checks run, what fails the run, and where the report goes. */
function declareChecksAndOutputs(command: Command): void {
  command
    .option('--check <ids>', 'run only these checks (comma-separated, repeatable)', repeatable)
    .option('--skip <ids>', 'run every check but these (comma-separated, repeatable)', repeatable)
    .option(
      '--fail-on <severity>',
      `exit 1 when a finding is at or above: ${FAIL_ON.join(', ')} (default error)`,
      choice('--fail-on', FAIL_ON),
    )
    .option('--json', 'the report as JSON on stdout, every record')
    .option(
      '--csv-dir <dir>',
      'write one CSV per check with findings: the records to fix',
      outputPath('--csv-dir'),
    )
    .option('--html <file>', 'write the report as one self-contained HTML page', outputPath('--html'));
}

/** What the audit reads, for which day, how fast, and which collections it needs. */
function declareReadFlags(command: Command): void {
  command
    .option(
      '--max-children <n>',
      `guardian-many-students: children per e-mail at one school above which it is reported (default ${DEFAULT_MAX_CHILDREN_PER_EMAIL})`,
      count('--max-children', 1, 1000),
    )
    .option(
      '--date <YYYY-MM-DD>',
      'the day to audit for: roles ended and the current school year (default today)',
      auditDate,
    )
    .option(
      '--page-size <n>',
      `records per request (default ${DEFAULT_PAGE_SIZE})`,
      count('--page-size', 1, MAX_PAGE_SIZE),
    )
    .option(
      '--concurrency <n>',
      `pages in flight (default ${DEFAULT_CONCURRENCY}, max ${MAX_CONCURRENCY})`,
      count('--concurrency', 1, MAX_CONCURRENCY),
    )
    .option(
      '--require <collections>',
      `fail (exit 1) when the server does not serve one of these (comma-separated, repeatable): ${AUDIT_COLLECTIONS.join(', ')}; otherwise a collection not served is reported as not checked, and the checks that need it do not run`,
      repeatable,
    )
    .option('--refresh-schools', "read the district's schools again instead of using the day-old cache");
}
