// `roster roster audit` on a terminal (or a pipe, tab-separated): the findings by severity with their first
// records, then per school the students, the share with a guardian e-mail and the classes with a teacher.
import type { AuditResult, Finding, SchoolFigures } from '../../audit/audit.js';
import { severityOf } from '../../audit/checks.js';
import { examplesOf, percent, share } from '../../audit/output.js';
import type { Context } from '../../context.js';
import { printTable } from '../../output/render.js';

interface Row {
  check: string;
  severity: string;
  count: number | string;
  examples: string;
}

/** The checks a collection not served took out, as rows after the findings: not run, and why. */
function notRunRows(result: AuditResult): Row[] {
  return result.notChecked.flatMap((n) =>
    n.checks.map((check) => ({
      check,
      severity: severityOf(check),
      count: 'not run',
      examples: `the server does not serve ${n.collection} (${n.answer})`,
    })),
  );
}

export async function printReport(ctx: Context, result: AuditResult): Promise<void> {
  const rows: Row[] = result.findings.map((f: Finding) => ({
    check: f.check,
    severity: f.severity,
    count: f.count,
    examples: examplesOf(f),
  }));
  await printTable<Row>(
    ctx,
    [
      { header: 'check', value: (r) => r.check },
      { header: 'severity', value: (r) => r.severity },
      { header: 'count', value: (r) => r.count },
      { header: 'first examples', value: (r) => r.examples, shrink: 'end' },
    ],
    [...rows, ...notRunRows(result)],
  );
  if (result.schools.length === 0) return;
  ctx.io.stdout.write('\n');
  await printTable<SchoolFigures>(
    ctx,
    [
      { header: 'school', value: (s) => `${s.name} (${s.sourcedId})` },
      { header: 'students', value: (s) => s.students },
      { header: 'with guardian e-mail', value: (s) => percent(share(s.withGuardianEmail, s.students)) },
      { header: 'classes with teacher', value: (s) => `${s.classesWithTeacher}/${s.classes}` },
    ],
    result.schools,
  );
}
