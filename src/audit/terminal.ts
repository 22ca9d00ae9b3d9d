// The audit on a terminal (or a pipe, tab-separated): the findings by severity with their first records,
// then per school the students, the share with a guardian e-mail and the classes with a teacher.
import type { Context } from '../context.js';
import { printTable } from '../output/render.js';
import type { AuditResult, Finding, SchoolFigures } from './audit.js';
import { examplesOf, percent, share } from './output.js';

export async function printReport(ctx: Context, result: AuditResult): Promise<void> {
  await printTable<Finding>(
    ctx,
    [
      { header: 'check', value: (f) => f.check },
      { header: 'severity', value: (f) => f.severity },
      { header: 'count', value: (f) => f.count },
      { header: 'first examples', value: (f) => examplesOf(f), shrink: 'end' },
    ],
    result.findings,
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
