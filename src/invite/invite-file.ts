// A whole invitation CSV checked before anything is sent: header names mapped to the §2.4 fields, per-run
// flag values filling absent columns and empty cells, every row validated, duplicates (same e-mail and
// school) flagged. The result is either the complete plan or every problem with its line number.

import type { InvitationBody } from '../api/enrollment.js';
import { UsageError } from '../errors.js';
import { formulaUnescaped, peopleCell } from '../output/csv.js';
import { printable } from '../values.js';
import { type CsvRecord, csvLine, DELIMITERS, type Delimiter, readCsvRecords } from './csv.js';
import {
  FIELDS,
  type FieldName,
  flagOf,
  type InvitationDraft,
  invitationKey,
  type Validation,
  validateInvitation,
} from './invitation.js';
import { withResolvedSchool } from './school-id.js';

export interface PlannedRow {
  /** Line of the file where the row starts: how the user finds it. */
  line: number;
  body: InvitationBody;
  /** The row's informational cells (a campaign plan's), carried into the report and never sent. */
  info?: Info;
  /** Its schoolId is not in the district's list of schools, and was allowed (--allow-unlisted-school). */
  unlistedSchool?: true;
}

/**
 * Columns a campaign plan (`roster invite plan`) adds for the people reading it: plain text, carried into the
 * report and the failed-rows CSV, never sent. Any other unknown column is still refused (a typo must not pass).
 */
export const INFO_COLUMNS = ['guardianNames', 'studentIds', 'schoolName', 'studentNames'] as const;
export type InfoColumn = (typeof INFO_COLUMNS)[number];
export type Info = Partial<Record<InfoColumn, string>>;

export interface RowProblem {
  line: number;
  reason: string;
}

export type InviteFile =
  | {
      ok: true;
      rows: PlannedRow[];
      /** The file's informational columns, in its order (absent when it has none). */
      info?: InfoColumn[];
    }
  | { ok: false; problems: RowProblem[] };

/**
 * A row's schoolId as the sourcedId to send (`unlisted` when the district's list lacks it and that was
 * allowed: `allowUnlisted` is the row's own allowUnlistedSchool cell), or why it names no one school.
 */
export type SchoolOf = (
  value: string,
  allowUnlisted: boolean,
) => { sourcedId: string; unlisted?: boolean } | { problem: string };

/**
 * The column that lets a row go to a school id the district's list does not have yet (a school opening next
 * year): yes/true/1 or no/false/0/empty. Never sent; `--allow-unlisted-school ID` does the same for the rows
 * with that id.
 */
export const UNLISTED_COLUMN = 'allowUnlistedSchool';
const YES = new Set(['yes', 'y', 'true', '1', 'x']);
const NO = new Set(['no', 'n', 'false', '0', '']);

export interface ReadOptions {
  schoolOf?: SchoolOf;
  /** Forced by --delimiter; else the header's (csv.ts). */
  delimiter?: Delimiter;
}

/** Header cells match a field whatever their case and separators: `schoolId`, `school_id`, `School ID`. */
const normal = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');
const FIELD_BY_HEADER = new Map<string, FieldName>([
  ...FIELDS.map((f) => [normal(f.name), f.name] as [string, FieldName]),
  ['scope', 'scopes'],
]);
const INFO_BY_HEADER = new Map<string, InfoColumn>(INFO_COLUMNS.map((c) => [normal(c), c]));

/** The columns a file may have, for --help and the unknown-column message. */
export const COLUMNS_TEXT = `${FIELDS.map((f) => f.name).join(', ')} (and, not sent: ${UNLISTED_COLUMN}, ${INFO_COLUMNS.join(', ')})`;

/**
 * The columns a campaign plan (and the failed-rows CSV) writes through peopleCell, for the office staff who
 * open them in a spreadsheet: a leading ' before =, +, -, @, a tab or a CR. Read back, that ' is taken off,
 * so `=1+1@example.org` is sent as itself.
 */
const ESCAPED = new Set<FieldName | InfoColumn>([
  'email',
  'schoolId',
  'schoolYearId',
  'guardianNames',
  'studentIds',
  'schoolName',
  'studentNames',
]);

/**
 * `fill` holds the per-run values (flags, profile default, built-in defaults): they stand in for a column the
 * file lacks and for an empty cell. A value in the file wins over the flag. `schoolOf`, when given, turns
 * each row's schoolId (a name, identifier or sourcedId) into the sourcedId sent, before duplicates are found;
 * it is asked about every row whose schoolId is readable, so a file's every problem is found in one pass.
 * Each record is checked as the CSV parser hands it over: a district's file is never held as cells too.
 */
export async function readInviteFile(
  text: string,
  fill: InvitationDraft,
  { schoolOf, delimiter }: ReadOptions = {},
): Promise<InviteFile> {
  let layout: Layout | undefined;
  let rows: RowReader | undefined;
  let count = 0;
  const { problems: syntax } = await readCsvRecords(
    text,
    (record) => {
      if (!layout) {
        layout = readHeader(record, fill, schoolOf);
        if (layout.hasEmail) rows = new RowReader(layout);
        return;
      }
      count++;
      rows?.read(record);
    },
    delimiter,
  );
  if (!layout) return { ok: false, problems: [...syntax, { line: 1, reason: 'the file is empty' }] };
  const problems: RowProblem[] = [...syntax, ...layout.problems];
  if (!rows) return { ok: false, problems };
  if (count === 0) {
    return { ok: false, problems: [...problems, { line: layout.line, reason: 'no rows after the header' }] };
  }
  problems.push(...rows.problems);
  if (problems.length > 0) return { ok: false, problems: problems.sort((a, b) => a.line - b.line) };
  const info = layout.infoAt.filter((c): c is InfoColumn => c !== undefined);
  return { ok: true, rows: rows.planned, ...(info.length > 0 && { info }) };
}

/** What the header line says about every row: which field or info column each cell is, and the fill. */
interface Layout {
  line: number;
  columns: (FieldName | undefined)[];
  infoAt: (InfoColumn | undefined)[];
  unlistedAt: number | undefined;
  /** The per-run values, with a placeholder for a required field neither a column nor a flag gives. */
  rowFill: InvitationDraft;
  checkSchool: SchoolOf | undefined;
  hasEmail: boolean;
  problems: RowProblem[];
}

function readHeader(header: CsvRecord, fill: InvitationDraft, schoolOf: SchoolOf | undefined): Layout {
  const problems: RowProblem[] = [];
  const columns: (FieldName | undefined)[] = [];
  const infoAt: (InfoColumn | undefined)[] = [];
  let unlistedAt: number | undefined;
  const seen = new Set<FieldName | InfoColumn>();
  header.fields.forEach((cell, index) => {
    const field = FIELD_BY_HEADER.get(normal(cell));
    const info = field ? undefined : INFO_BY_HEADER.get(normal(cell));
    const unlisted = !field && !info && normal(cell) === normal(UNLISTED_COLUMN);
    if (unlisted) {
      if (unlistedAt !== undefined)
        problems.push({ line: header.line, reason: `column ${UNLISTED_COLUMN} appears twice` });
      unlistedAt = index;
    } else if (field === undefined && info === undefined) {
      problems.push({
        line: header.line,
        reason: `unknown column "${cell.trim()}" (column ${index + 1}); expected the spec's field names: ${COLUMNS_TEXT}${delimiterHint(cell)}`,
      });
    } else if (seen.has((field ?? info) as FieldName | InfoColumn)) {
      problems.push({ line: header.line, reason: `column ${field ?? info} appears twice` });
    }
    if (field) seen.add(field);
    if (info) seen.add(info);
    columns.push(field);
    infoAt.push(info);
  });
  const hasEmail = seen.has('email');
  if (!hasEmail) problems.push({ line: header.line, reason: 'no email column' });
  // A required field with neither a column nor a per-run value: said once, not on every row.
  const missing = FIELDS.filter(
    (f) => f.required && f.name !== 'email' && !seen.has(f.name) && !fill[f.name],
  );
  const rowFill: InvitationDraft = { ...fill };
  // A file without schools has none to check: the placeholder below is no school's name.
  const checkSchool = missing.some((f) => f.name === 'schoolId') ? undefined : schoolOf;
  for (const f of missing) {
    problems.push({ line: header.line, reason: `no ${f.name} column and no ${flagOf(f.name)} given` });
    // Rows are still checked for everything else; this placeholder keeps them from repeating the above.
    rowFill[f.name] = 'placeholder';
  }
  return { line: header.line, columns, infoAt, unlistedAt, rowFill, checkSchool, hasEmail, problems };
}

/** Checks the rows after the header one by one: each becomes a planned row or a problem on its line. */
class RowReader {
  readonly planned: PlannedRow[] = [];
  readonly problems: RowProblem[] = [];
  private readonly plannedByKey = new RowsByKey(this.planned);
  private readonly shared = new SharedValues();

  constructor(private readonly layout: Layout) {}

  read(row: CsvRecord): void {
    const { columns, infoAt, unlistedAt, rowFill, checkSchool } = this.layout;
    if (row.fields.length !== columns.length) {
      this.problem(
        row.line,
        `${row.fields.length} field${row.fields.length === 1 ? '' : 's'}, but the header has ${columns.length}`,
      );
      return;
    }
    const draft: InvitationDraft = { ...rowFill };
    const info: Info = {};
    const allowCell = unlistedAt === undefined ? '' : (row.fields[unlistedAt] ?? '').trim().toLowerCase();
    if (!YES.has(allowCell) && !NO.has(allowCell)) {
      this.problem(row.line, `${UNLISTED_COLUMN} "${printable(allowCell, 20)}" is not yes or no`);
      return;
    }
    row.fields.forEach((raw, index) => {
      const field = columns[index];
      const cell = ESCAPED.has((field ?? infoAt[index]) as FieldName) ? formulaUnescaped(raw) : raw;
      if (field && cell.trim() !== '') draft[field] = cell;
      const column = infoAt[index];
      if (column) info[column] = cell;
    });
    const { result, unlisted } = withSchool(
      draft,
      validateInvitation(draft),
      checkSchool,
      YES.has(allowCell),
    );
    if (!result.ok) {
      this.problem(row.line, result.problems.map((p) => `${p.field} ${p.reason}`).join('; '));
      return;
    }
    const key = invitationKey(result.body.email, result.body.schoolId);
    const first = this.plannedByKey.find(key);
    if (first !== undefined) {
      this.problem(
        row.line,
        `duplicate of line ${first.line} (same email ${result.body.email} and schoolId ${result.body.schoolId})`,
      );
      return;
    }
    this.plannedByKey.add(key, this.planned.length);
    const body = this.shared.body(result.body);
    const hasInfo = Object.keys(info).length > 0;
    // A literal when the row has neither (most rows): 40 bytes, where spreads make it 56.
    this.planned.push(
      hasInfo || unlisted
        ? {
            line: row.line,
            body,
            ...(hasInfo && { info }),
            ...(unlisted && { unlistedSchool: true as const }),
          }
        : { line: row.line, body },
    );
  }

  private problem(line: number, reason: string): void {
    this.problems.push({ line, reason });
  }
}

/**
 * One copy of each value many rows repeat (a district's few schools, scopes and senders), for the rows a
 * district's file holds for its whole run: each cell read is a string of its own, some 80 bytes a row.
 */
/**
 * The planned rows found by key (invitationKey), exactly, without a key string held per row: by a hash of
 * the key, each candidate's key made again from its row (a district's file held 80 bytes a row in keys).
 */
class RowsByKey {
  private readonly byHash = new Map<number, number | number[]>();

  constructor(private readonly rows: readonly PlannedRow[]) {}

  find(key: string): PlannedRow | undefined {
    const at = this.byHash.get(keyHash(key));
    for (const index of typeof at === 'number' ? [at] : (at ?? [])) {
      const row = this.rows[index]!;
      if (invitationKey(row.body.email, row.body.schoolId) === key) return row;
    }
    return undefined;
  }

  /** The row at `index` of the rows has `key`. */
  add(key: string, index: number): void {
    const hash = keyHash(key);
    const at = this.byHash.get(hash);
    if (at === undefined) this.byHash.set(hash, index);
    else if (typeof at === 'number') this.byHash.set(hash, [at, index]);
    else at.push(index);
  }
}

/** FNV-1a over the key's UTF-16 code units, cut to 30 bits: a small integer, which a Map holds unboxed. */
export function keyHash(key: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return hash & 0x3fffffff;
}

class SharedValues {
  private readonly texts = new Map<string, string>();
  private readonly lists = new Map<string, readonly string[]>();

  body(body: InvitationBody): InvitationBody {
    body.schoolId = this.text(body.schoolId);
    body.sentByUserId = this.text(body.sentByUserId);
    if (body.schoolYearId !== undefined) body.schoolYearId = this.text(body.schoolYearId);
    if (body.learningCenterId !== undefined) body.learningCenterId = this.text(body.learningCenterId);
    body.scopes = this.list(body.scopes);
    return body;
  }

  private text(value: string): string {
    const known = this.texts.get(value);
    if (known !== undefined) return known;
    this.texts.set(value, value);
    return value;
  }

  /** Frozen: every row holding it shares it. */
  private list(values: string[]): string[] {
    const key = values.join('\n');
    const known = this.lists.get(key);
    if (known !== undefined) return known as string[];
    const list = Object.freeze(values);
    this.lists.set(key, list);
    return list as string[];
  }
}

/**
 * A row with its schoolId as the sourcedId `schoolOf` resolves it to (checked again: school-id.ts). A row
 * invalid otherwise still has its school checked, so its every problem is reported at once.
 */
function withSchool(
  draft: InvitationDraft,
  checked: Validation,
  schoolOf: SchoolOf | undefined,
  allowUnlisted: boolean,
): { result: Validation; unlisted?: boolean } {
  if (!schoolOf) return { result: checked };
  if (!checked.ok) {
    const typed = draft.schoolId?.trim() ?? '';
    if (typed === '' || checked.problems.some((p) => p.field === 'schoolId')) return { result: checked };
    const school = schoolOf(typed, allowUnlisted);
    if (!('problem' in school)) return { result: checked };
    return {
      result: { ok: false, problems: [...checked.problems, { field: 'schoolId', reason: school.problem }] },
    };
  }
  const typed = checked.body.schoolId;
  const school = schoolOf(typed, allowUnlisted);
  if ('problem' in school)
    return { result: { ok: false, problems: [{ field: 'schoolId', reason: school.problem }] } };
  const result = school.sourcedId === typed ? checked : withResolvedSchool(draft, typed, school.sourcedId);
  return { result, unlisted: Boolean(school.unlisted) };
}

/** A header cell holding another delimiter: the file is likely read with the wrong one. */
function delimiterHint(cell: string): string {
  const name = Object.entries(DELIMITERS).find(([, d]) => cell.includes(d))?.[0];
  if (name === undefined) return '';
  return `; the header holds a ${name}: pass --delimiter ${name} if the file is ${name}-delimited`;
}

/**
 * Rows as a CSV with the spec's field names, to be fed back to `roster invite send --file`; then the
 * informational `columns`, from each row's `infos` entry.
 */
export function inviteCsv(
  bodies: InvitationBody[],
  columns: readonly InfoColumn[] = [],
  infos: readonly (Info | undefined)[] = [],
  /** Per body: it went to an unlisted school (an allowUnlistedSchool column, written when any did). */
  unlisted: readonly boolean[] = [],
): string {
  const names = FIELDS.map((f) => f.name);
  const cell = (body: InvitationBody, name: FieldName): string => {
    const value = body[name];
    if (value === undefined) return '';
    return Array.isArray(value) ? value.join(' ') : String(value);
  };
  const safe = (name: FieldName | InfoColumn, value: string) =>
    ESCAPED.has(name) ? peopleCell(value) : value;
  const marks = unlisted.some(Boolean);
  return [
    [...names, ...(marks ? [UNLISTED_COLUMN] : []), ...columns],
    ...bodies.map((b, i) => [
      ...names.map((n) => safe(n, cell(b, n))),
      ...(marks ? [unlisted[i] ? 'yes' : ''] : []),
      ...columns.map((c) => safe(c, infos[i]?.[c] ?? '')),
    ]),
  ]
    .map(csvLine)
    .join('');
}

/**
 * A file's rows as `invite send --file` reads them, to look them up in its journal (`invite settle`,
 * `invite history`): only who each is for matters, so the columns a send needs are given stand-ins. A school
 * named by name is resolved by `lookup` (the district's list, as the send resolved it); without a list, or
 * for a name it does not know, the value stands as given (such a row was never sent).
 */
export async function rowsOfSentFile(
  content: string,
  given: string,
  lookup?: (value: string) => { kind: string; school?: { sourcedId: string } },
  refused = 'nothing was asked',
): Promise<PlannedRow[]> {
  const read = await readInviteFile(
    content,
    { sentByUserId: 'settle', scopes: 'fillEnrollment', studentCount: '1' },
    { schoolOf: (value) => ({ sourcedId: lookup?.(value).school?.sourcedId ?? value.trim() }) },
  );
  if (!read.ok) {
    const first = read.problems.slice(0, 5).map((p) => `line ${p.line}: ${p.reason}`);
    throw new UsageError(
      `${given}: ${read.problems.length} problem${read.problems.length === 1 ? '' : 's'} found (${first.join('; ')}${read.problems.length > 5 ? '; …' : ''}); ${refused}.`,
    );
  }
  return read.rows;
}
