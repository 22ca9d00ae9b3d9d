// What a file's send would e-mail, as a person reads it: the first rows as a table (school by name, as the
// admin wrote it), "… and N more", and the totals by school. Shown before the question of a send and, on
// a terminal, as a dry run's answer; scripts get the requests themselves (one JSON object a line).
import { type Column, tableText } from '../output/table-text.js';
import type { PlannedRow } from './invite-file.js';

/** The school's name from the district's list, when it has one; else the id is shown. */
export type SchoolName = (sourcedId: string) => string | undefined;

/** Rows shown before "… and N more". */
export const PREVIEW_ROWS = 10;

interface SchoolTotal {
  school: string;
  invitations: number;
  students: number;
}

/** The preview, for a terminal `width` columns wide. */
export async function previewText(
  rows: readonly PlannedRow[],
  schoolName: SchoolName,
  terminal: { width: number; color: boolean },
  shown = PREVIEW_ROWS,
): Promise<string> {
  const school = (id: string) => schoolName(id) ?? id;
  const columns: Column<PlannedRow>[] = [
    { header: 'line', value: (r) => r.line },
    { header: 'e-mail', value: (r) => r.body.email },
    { header: 'school', value: (r) => school(r.body.schoolId), shrink: 'end' },
    { header: 'students', value: (r) => r.body.studentCount },
  ];
  const more = rows.length - shown;
  const totals: Column<SchoolTotal>[] = [
    { header: 'school', value: (t) => t.school, shrink: 'end' },
    { header: 'invitations', value: (t) => t.invitations },
    { header: 'students', value: (t) => t.students },
  ];
  return [
    await tableText(columns, rows.slice(0, shown), terminal),
    more > 0 ? `… and ${more} more\n` : '',
    '\n',
    await tableText(totals, totalsBySchool(rows, school), terminal),
  ].join('');
}

/** Invitations and students per school, in the order the schools first appear in the file. */
export function totalsBySchool(rows: readonly PlannedRow[], school: (id: string) => string): SchoolTotal[] {
  const byId = new Map<string, SchoolTotal>();
  for (const { body } of rows) {
    const total = byId.get(body.schoolId) ?? { school: school(body.schoolId), invitations: 0, students: 0 };
    byId.set(body.schoolId, total);
    total.invitations++;
    total.students += body.studentCount;
  }
  return [...byId.values()];
}
