// The doctor's table as text, for the command to print: marks and colour on a terminal, with the message
// column wrapped rather than cut (the server's message is the point); tab-separated words for a pipe.
import wrapAnsi from 'wrap-ansi';
import { colours } from '../output/style.js';
import { cellText, tsvText } from '../output/table-text.js';
import type { CheckResult, DoctorReport } from './run.js';

/** What stdout shows: the table for a terminal `width` columns wide, or tab-separated lines for a pipe. */
export function reportText(
  report: DoctorReport,
  terminal: { tty: boolean; width: number; color: boolean },
): string {
  if (!terminal.tty) {
    return tsvText(
      [
        { header: 'STATUS', value: (c: CheckResult) => c.status },
        { header: 'CHECK', value: (c) => c.id },
        { header: 'REQUIRED', value: (c) => (c.required ? 'yes' : 'no') },
        { header: 'MS', value: (c) => c.ms },
        { header: 'MESSAGE', value: (c) => c.message },
      ],
      report.checks,
    );
  }
  const c = colours(terminal.color);
  const idWidth = Math.max(5, ...report.checks.map((check) => check.id.length));
  const msWidth = Math.max(4, ...report.checks.map((check) => msText(check).length));
  const indent = 2 + idWidth + 2 + msWidth + 2;
  const messageWidth = Math.max(30, terminal.width - indent - 1);
  const lines = [c.bold(`  ${'CHECK'.padEnd(idWidth)}  ${'TIME'.padStart(msWidth)}  RESULT`)];
  for (const check of report.checks) {
    const [first = '', ...rest] = wrap(cellText(check.message), messageWidth);
    const paint = painter(check, c);
    // Colour the mark; the message only when something is wrong, so a green run stays readable.
    const text = check.status === 'pass' ? (line: string) => line : paint;
    lines.push(
      `${paint(mark(check))} ${check.id.padEnd(idWidth)}  ${msText(check).padStart(msWidth)}  ${text(first)}`,
    );
    for (const line of rest) lines.push(`${' '.repeat(indent)}${text(line)}`);
  }
  return `${lines.join('\n')}\n`;
}

function mark(check: CheckResult): string {
  if (check.status === 'pass') return '✓';
  if (check.status === 'skip') return '-';
  return check.required ? '✗' : '!';
}

function painter(check: CheckResult, c: ReturnType<typeof colours>): (text: string) => string {
  if (check.status === 'pass') return c.green;
  if (check.status === 'skip') return c.dim;
  return check.required ? c.red : c.yellow;
}

const msText = (check: CheckResult) => (check.ms === null ? '' : `${check.ms} ms`);

/**
 * Word wrap by the width the terminal gives each character (wrap-ansi over string-width: a CJK letter takes
 * two columns); a word longer than the width (a URL) is split.
 */
export function wrap(text: string, width: number): string[] {
  return wrapAnsi(text, width, { hard: true, trim: true }).split('\n');
}

export function summary(report: DoctorReport): string {
  const required = report.checks.filter((check) => check.required);
  const passed = required.filter((check) => check.status === 'pass');
  const notPassed = required.filter((check) => check.status !== 'pass').map((check) => check.id);
  return notPassed.length === 0
    ? `All ${required.length} required checks passed.`
    : `${notPassed.length} of ${required.length} required checks did not pass: ${notPassed.join(', ')} (${passed.length} passed).`;
}
