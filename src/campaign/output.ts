// What a plan becomes: the CSV `roster invite send --file` takes as it is (the spec's columns, then
// informational ones it never sends), the uncovered students for the office, the --json document, and the
// lines an admin reads on the terminal.
import { csvLine } from '../invite/csv.js';
import { csvCell, peopleCell } from '../output/csv.js';
import { displayText } from '../output/safe-text.js';
import { type Column, tableText } from '../output/table-text.js';
import type { CampaignPlan, Named, PlannedInvitation } from './planner.js';

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * The plan as an invitation file: email, schoolId, studentCount[, schoolYearId], guardianNames, studentIds.
 * Office staff open it in a spreadsheet, so no cell is ever a live formula: every value from the server
 * goes through peopleCell (no formula, no raw control character), and `invite send --file` takes the leading ' off again (invite-file.ts), so
 * the address sent is the true one.
 */
export function planCsv(plan: CampaignPlan, schoolYearId: string | undefined): string {
  return [...planCsvPieces(plan, schoolYearId)].join('');
}

/** Lines of the plan's CSV per piece of planCsvPieces. */
const LINES_PER_PIECE = 1000;

/**
 * planCsv in pieces of LINES_PER_PIECE lines, for writePrivateFile: a district's plan (80,000 lines, 6 MB)
 * is never held as one string beside its lines.
 */
export function* planCsvPieces(plan: CampaignPlan, schoolYearId: string | undefined): Generator<string> {
  const header = ['email', 'schoolId', 'studentCount', ...(schoolYearId ? ['schoolYearId'] : [])];
  let lines = [csvLine([...header, 'guardianNames', 'studentIds'])];
  // Each row as csvLine writes it (cells through peopleCell, then csvCell, joined by commas, CRLF), cell by
  // cell: the school's cells are made once per school, the count's are its digits, which neither changes.
  const schoolCells = new Map<string, string>();
  const yearCell = schoolYearId ? `,${cell(schoolYearId)}` : '';
  for (const i of plan.invitations) {
    let school = schoolCells.get(i.schoolId);
    if (school === undefined) {
      school = cell(i.schoolId);
      schoolCells.set(i.schoolId, school);
    }
    const guardians = joined(i.guardians, '; ', (g) => g.name || g.sourcedId);
    const students = joined(i.students, ' ', (s) => s.sourcedId);
    lines.push(
      `${cell(i.email)},${school},${i.studentCount}${yearCell},${cell(guardians)},${cell(students)}\r\n`,
    );
    if (lines.length === LINES_PER_PIECE) {
      yield lines.join('');
      lines = [];
    }
  }
  if (lines.length > 0) yield lines.join('');
}

/** One cell of the plan's CSV, never a live formula. */
const cell = (value: string) => csvCell(peopleCell(value));

/** `people.map(text).join(separator)`, without the list in between. */
function joined(people: readonly Named[], separator: string, text: (person: Named) => string): string {
  let line = '';
  for (let p = 0; p < people.length; p++)
    line += p === 0 ? text(people[p] as Named) : separator + text(people[p] as Named);
  return line;
}

/** The students left out, with their reasons, for the office to fix in the SIS (never a live formula). */
export function uncoveredCsv(plan: CampaignPlan): string {
  return [
    csvLine(['sourcedId', 'name', 'reason']),
    ...plan.uncovered.map((u) => csvLine([u.sourcedId, u.name, u.reason].map(peopleCell))),
  ].join('');
}

export interface Sources {
  /** Where "already invited" was looked up, in words. */
  alreadyInvited: string;
}

export function planJson(plan: CampaignPlan, sources: Sources) {
  const total = (key: 'inScope' | 'students' | 'alreadyInvited' | 'refused' | 'tooManyChildren') =>
    plan.schools.reduce((sum, s) => sum + s[key], 0);
  return {
    invitations: plan.invitations,
    uncovered: plan.uncovered,
    skipped: plan.skipped,
    tooManyChildren: plan.crowded,
    summary: {
      inScope: total('inScope'),
      invitations: plan.invitations.length,
      students: total('students'),
      uncovered: plan.uncovered.length,
      alreadyInvited: total('alreadyInvited'),
      refusedEmails: total('refused'),
      tooManyChildren: total('tooManyChildren'),
      alreadyInvitedFrom: sources.alreadyInvited,
      schools: plan.schools,
    },
  };
}

/**
 * One line per school, every student in scope accounted for: "Alder Elementary School: 598 students in
 * scope: 583 covered by 412 invitations, 15 without a guardian e-mail; 3 already invited". Students reached
 * only by invitations already sent (left out of the plan) are counted apart.
 */
export function summaryLines(plan: CampaignPlan, includeInvited: boolean): string[] {
  return plan.schools.map((s) => {
    const earlier = s.inScope - s.students - s.uncovered;
    const scope = [
      `${s.students} covered by ${plural(s.invitations, 'invitation')}`,
      ...(earlier > 0 ? [`${earlier} by invitations already sent`] : []),
      `${s.uncovered} without a guardian e-mail`,
    ];
    const parts = [
      `${plural(s.inScope, 'student')} in scope: ${scope.join(', ')}`,
      `${s.alreadyInvited} already invited${s.alreadyInvited && includeInvited ? ' (listed again: --include-invited)' : ''}`,
      ...(s.refused ? [`${plural(s.refused, 'e-mail')} invite send would refuse`] : []),
      ...(s.tooManyChildren
        ? [`${plural(s.tooManyChildren, 'e-mail')} with too many children left out (--max-children)`]
        : []),
    ];
    return `${displayText(s.name)}: ${parts.join('; ')}`;
  });
}

/**
 * The warning about e-mails linked to more children than --max-children at one school (a staff address,
 * a teacher entered as a guardian): each named with its count, the first `shown` of them.
 */
export function crowdedWarning(plan: CampaignPlan, max: number, shown = 20): string | undefined {
  const n = plan.crowded.length;
  if (n === 0) return undefined;
  const names = new Map(plan.schools.map((s) => [s.schoolId, s.name]));
  const list = plan.crowded
    .slice(0, shown)
    .map(
      (c) =>
        `${displayText(c.email)} (${c.children} children at ${displayText(names.get(c.schoolId) ?? c.schoolId)})`,
    );
  const more = n > shown ? `, and ${n - shown} more (--json lists them)` : '';
  return `${plural(n, 'e-mail')} ${n === 1 ? 'is' : 'are'} linked to more than ${max} children at one school, and left out of the plan (a staff or school address? check the SIS, or raise --max-children): ${list.join(', ')}${more}.`;
}

/**
 * The first rows of the plan as a table for the terminal (the one table layout); the school column only
 * (by name) when the plan spans several. The names give way to a narrow terminal, never an address.
 */
export async function previewTable(
  plan: CampaignPlan,
  terminal: { width: number; color: boolean },
  rows = 15,
): Promise<string> {
  // Schools by name, as the admin chose them (the plan's CSV and --json keep the ids).
  const schoolNames = new Map(plan.schools.map((s) => [s.schoolId, s.name]));
  const names = (people: { name: string; sourcedId: string }[]) =>
    people.map((p) => p.name || p.sourcedId).join('; ');
  const columns: Column<PlannedInvitation>[] = [
    { header: 'e-mail', value: (i) => i.email + (i.invitedBefore ? ' (invited before)' : '') },
    ...(plan.schools.length > 1
      ? [
          {
            header: 'school',
            value: (i: PlannedInvitation) => schoolNames.get(i.schoolId) || i.schoolId,
            shrink: 'end' as const,
          },
        ]
      : []),
    { header: 'students', value: (i) => i.studentCount },
    { header: 'guardians', value: (i) => names(i.guardians), shrink: 'end' },
    { header: 'children', value: (i) => names(i.students), shrink: 'end' },
  ];
  const more = plan.invitations.length - rows;
  return `${await tableText(columns, plan.invitations.slice(0, rows), terminal)}${more > 0 ? `… and ${more} more\n` : ''}`;
}
