// What a plan becomes: the CSV `roster invite send --file` takes as it is (the spec's columns, then
// informational ones it never sends), the uncovered students for the office, the --json document, and the
// lines an admin reads on the terminal.
import { csvLine } from '../invite/csv.js';
import { formulaSafe } from '../output/csv.js';
import { displayText } from '../output/safe-text.js';
import type { Plan } from './planner.js';

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The plan as an invitation file: email, schoolId, studentCount[, schoolYearId], guardianNames, studentIds. */
export function planCsv(plan: Plan, schoolYearId: string | undefined): string {
  const header = ['email', 'schoolId', 'studentCount', ...(schoolYearId ? ['schoolYearId'] : [])];
  const lines = [csvLine([...header, 'guardianNames', 'studentIds'])];
  for (const i of plan.invitations) {
    lines.push(
      csvLine([
        i.email,
        i.schoolId,
        String(i.studentCount),
        ...(schoolYearId ? [schoolYearId] : []),
        // Names are only for the reader, who may open the file in a spreadsheet: never run as a formula.
        formulaSafe(i.guardians.map((g) => g.name || g.sourcedId).join('; ')),
        i.students.map((s) => s.sourcedId).join(' '),
      ]),
    );
  }
  return lines.join('');
}

/** The students left out, with their reasons, for the office to fix in the SIS. */
export function uncoveredCsv(plan: Plan): string {
  return [
    csvLine(['sourcedId', 'name', 'reason']),
    ...plan.uncovered.map((u) => csvLine([u.sourcedId, formulaSafe(u.name), u.reason])),
  ].join('');
}

export interface Sources {
  /** Where "already invited" was looked up, in words. */
  alreadyInvited: string;
}

export function planJson(plan: Plan, sources: Sources) {
  const total = (key: 'invitations' | 'students' | 'uncovered' | 'alreadyInvited' | 'refused') =>
    plan.schools.reduce((sum, s) => sum + s[key], 0);
  return {
    invitations: plan.invitations,
    uncovered: plan.uncovered,
    skipped: plan.skipped,
    summary: {
      invitations: plan.invitations.length,
      students: total('students'),
      uncovered: plan.uncovered.length,
      alreadyInvited: total('alreadyInvited'),
      refusedEmails: total('refused'),
      alreadyInvitedFrom: sources.alreadyInvited,
      schools: plan.schools,
    },
  };
}

/** One line per school: "Alder Elementary School: 412 invitations for 598 students; …". */
export function summaryLines(plan: Plan, includeInvited: boolean): string[] {
  return plan.schools.map((s) => {
    const parts = [
      `${plural(s.invitations, 'invitation')} for ${plural(s.students, 'student')}`,
      `${plural(s.uncovered, 'student')} without a guardian e-mail`,
      `${s.alreadyInvited} already invited${s.alreadyInvited && includeInvited ? ' (listed again: --include-invited)' : ''}`,
      ...(s.refused ? [`${plural(s.refused, 'e-mail')} invite send would refuse`] : []),
    ];
    return `${displayText(s.name)}: ${parts.join('; ')}`;
  });
}

/**
 * The first rows of the plan as a table for the terminal (cli-table3 loads only here); the school column
 * only when the plan spans several. Long addresses wrap rather than being cut: each is someone to e-mail.
 */
export async function previewTable(plan: Plan, columns: number, rows = 15): Promise<string> {
  const { default: Table } = await import('cli-table3');
  const several = plan.schools.length > 1;
  const head = ['e-mail', ...(several ? ['school'] : []), 'students', 'guardians', 'children'];
  const table = new Table({
    head,
    style: { head: [], border: [] },
    wordWrap: true,
    wrapOnWordBoundary: false,
    colWidths: widths(columns, several),
  });
  const names = (people: { name: string; sourcedId: string }[]) =>
    displayText(people.map((p) => p.name || p.sourcedId).join('; '));
  for (const i of plan.invitations.slice(0, rows)) {
    table.push([
      displayText(i.email) + (i.invitedBefore ? ' (invited before)' : ''),
      ...(several ? [displayText(i.schoolId)] : []),
      String(i.studentCount),
      names(i.guardians),
      names(i.students),
    ]);
  }
  const more = plan.invitations.length - rows;
  return `${table.toString()}\n${more > 0 ? `… and ${more} more\n` : ''}`;
}

/** Column widths (cli-table3 counts padding inside them) filling the terminal, the e-mail widest. */
function widths(columns: number, several: boolean): number[] {
  const parts = several ? 5 : 4;
  const room = Math.max(60, columns) - (parts + 1);
  const students = 10;
  const school = several ? Math.floor(room * 0.15) : 0;
  const email = Math.floor((room - students - school) * 0.4);
  const rest = room - students - school - email;
  const guardians = Math.floor(rest / 2);
  return [email, ...(several ? [school] : []), students, guardians, rest - guardians];
}
