// The file of `invite send --file` read and checked before anything is sent: its text (any encoding Excel
// writes), every row against the flags' values, and every schoolId against the district's schools. All its
// problems are listed at once, each with its line; nothing is sent from a file with one.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Context } from '../context.js';
import { RosterError, UsageError } from '../errors.js';
import { outputFileFolder } from '../files.js';
import type { SchoolMatch } from '../schools/match.js';
import type { Session } from '../session.js';
import { printable } from '../values.js';
import { CsvEncodingError, csvText, type Delimiter } from './csv.js';
import type { InvitationDraft } from './invitation.js';
import { type InviteFile, type PlannedRow, type RowProblem, readInviteFile } from './invite-file.js';
import type { SchoolName } from './preview.js';
import { UNLISTED_HINT } from './unlisted.js';

/** What a file send is asked, the flags already parsed (commands/invite/options.ts). */
export interface FileSendOptions {
  /** --file as typed, for messages. */
  given: string;
  /** The values rows without their own take (the flags', the profile's, the defaults). */
  fill: InvitationDraft;
  delimiter: Delimiter | undefined;
  /** School ids the district's list lacks that may still be sent to (--allow-unlisted-school). */
  unlisted: ReadonlySet<string>;
  concurrency: number;
  resendSent: boolean;
  resendInDoubt: boolean;
  failedCsv?: string;
  dryRun: boolean;
  refreshSchools: boolean;
  yes: boolean;
  json: boolean;
}

/** The file's text; stdin is refused (it cannot be resumed). */
export async function readInput(file: string, given: string): Promise<string> {
  if (given === '' || given === '-') {
    throw new UsageError(
      '--file needs a path to a CSV file (stdin cannot be resumed, so it is not accepted).',
    );
  }
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (error as Error).message;
    throw new UsageError(`Cannot read --file ${given}: ${why}.`);
  }
  // UTF-8 with or without a BOM, or UTF-16 with one: what Excel's "CSV UTF-8" and "Unicode Text" write.
  try {
    return csvText(bytes);
  } catch (error) {
    if (!(error instanceof CsvEncodingError)) throw error;
    throw new UsageError(`Cannot read --file ${given}: ${error.message}.`);
  }
}

/**
 * The file's rows, every one valid and its school resolved, or a UsageError listing every problem. Every
 * check that needs no request first; then (unless a dry run) the failed rows' folder and the credentials,
 * so that neither fails after the schools were read; then the schools.
 */
export async function checkFile(
  ctx: Context,
  session: Session,
  content: string,
  file: string,
  options: FileSendOptions,
): Promise<InviteFile & { ok: true; schoolName: SchoolName }> {
  // A bad file whose rows name schools is still checked against the district's schools (a read, never a
  // send), so that all its problems are listed at once; one that cannot be read that far (no rows, no
  // header) is refused before any request.
  const first = await readBeforeSchools(content, options);
  if (!first.file.ok) {
    const { problems } = first.file;
    if (!first.namesSchools) throw refuse(problems, file, options);
    const all = await withSchools(ctx, session, content, options).catch((error) => {
      // The flags' own mistakes and an interrupt stand; a list that cannot be read leaves the rest.
      if (error instanceof RosterError && (error.code === 'usage' || error.code === 'interrupted'))
        throw error;
      return { file: { ok: false as const, problems }, unknownSchool: false };
    });
    throw refuse(all.file.ok ? problems : all.file.problems, file, options, all.unknownSchool);
  }
  // The failed rows' folder before anything is sent, by the rule of every file roster writes.
  if (options.failedCsv !== undefined && !options.dryRun) {
    await outputFileFolder(resolve(options.failedCsv), (line) => ctx.log.warn(line));
  }
  // No credentials: said now, not after the schools were read without them and the admin said yes.
  if (!options.dryRun) await session.checkCredentials('invitations');
  const {
    file: checked,
    unknownSchool,
    schoolName,
  } = await withSchools(ctx, session, content, options, first);
  if (!checked.ok) throw refuse(checked.problems, file, options, unknownSchool);
  warnUnusedUnlisted(ctx, options.unlisted, checked.rows, options.fill);
  return { ...checked, schoolName };
}

/** The file as read before the district's schools: its schools taken as sourcedIds, as typed. */
interface FirstRead {
  file: InviteFile;
  /** Whether its rows name schools (a bad file's are then checked against the district's too). */
  namesSchools: boolean;
  /** Every schoolId value its rows (or --school-id) gave. */
  schools: Set<string>;
  /** --school-id as it stood when the file was read. */
  fillSchoolId: string | undefined;
}

/** What a first read holds once the file is read again. */
const DROPPED: InviteFile = { ok: false, problems: [] };

/**
 * The file read with every check that needs no request, each school value taken as the sourcedId it would be
 * if the district's list has it. A district's file is read once: when the list confirms every value as a
 * sourcedId, these rows are the checked ones (withSchools), and its rows are not held twice.
 */
async function readBeforeSchools(content: string, options: FileSendOptions): Promise<FirstRead> {
  const schools = new Set<string>();
  const fillSchoolId = options.fill.schoolId;
  const file = await readInviteFile(content, options.fill, {
    delimiter: options.delimiter,
    schoolOf: (value) => {
      schools.add(value);
      return { sourcedId: value.trim() };
    },
  });
  return { file, namesSchools: schools.size > 0, schools, fillSchoolId };
}

/**
 * A file with problems, refused before anything is sent: the command lists every problem with its line (and
 * --json reports them) before the message.
 */
export class FileProblemsError extends UsageError {
  constructor(
    /** The file's full path. */
    readonly file: string,
    readonly problems: RowProblem[],
    message: string,
    hint: string,
  ) {
    super(message, hint);
  }
}

/** The error to throw for a file's problems. */
function refuse(
  problems: RowProblem[],
  file: string,
  options: FileSendOptions,
  unknownSchool = false,
): FileProblemsError {
  const n = problems.length;
  return new FileProblemsError(
    file,
    problems,
    `${options.given}: ${n} problem${n === 1 ? '' : 's'} found (listed above); nothing was sent.`,
    `Fix the file and run the command again.${unknownSchool ? ` ${UNLISTED_HINT}` : ''}`,
  );
}

/** An --allow-unlisted-school id no row sends to is likely a typo of the one meant: said, not fatal. */
function warnUnusedUnlisted(
  ctx: Context,
  allowed: ReadonlySet<string>,
  rows: readonly PlannedRow[],
  fill: InvitationDraft,
): void {
  const used = new Set(rows.map((r) => r.body.schoolId));
  for (const id of allowed) {
    if (!used.has(id) && fill.schoolId !== id)
      ctx.log.warn(`--allow-unlisted-school ${printable(id, 80)}: no row of the file has that schoolId.`);
  }
}

/**
 * The file checked again with every schoolId (and --school-id) as a school's sourcedId: names and
 * identifiers are resolved against one list of the district's schools per run, read again once if a cached
 * list does not know a value; a value naming no one school is a problem of its line. `read`, the file as
 * read before (readBeforeSchools), is the answer as it stands when the list has each of its school values
 * as a sourcedId: reading the file again would give the same rows.
 */
async function withSchools(
  ctx: Context,
  session: Session,
  content: string,
  options: FileSendOptions,
  read?: FirstRead,
): Promise<{ file: InviteFile; unknownSchool: boolean; schoolName: SchoolName }> {
  const { fill, delimiter, unlisted } = options;
  const { SchoolDirectory, uncheckedRefusal } = await import('../schools/directory.js');
  const { refusal } = await import('../schools/match.js');
  const schools = new SchoolDirectory(ctx, session, options.refreshSchools);
  // The names the admin reads in the preview and the summary, from the list the rows were checked against.
  const schoolName: SchoolName = (id) => schools.labelOf(id);
  if (fill.schoolId?.trim())
    fill.schoolId = (
      await schools.schoolFor('--school-id', fill.schoolId, unlisted, UNLISTED_HINT)
    ).sourcedId;
  let missed = false;
  let unknownSchool = false;
  const check = async () => {
    const lookup = await schools.lookup();
    missed = false;
    unknownSchool = false;
    return readInviteFile(content, fill, {
      delimiter,
      schoolOf: (value, allowUnlisted) => {
        if (!lookup) {
          // No list to check against: an id goes as given (the warning said so), a name is refused.
          const refused = uncheckedRefusal(value);
          return refused ? { problem: `"${printable(value, 80)}" ${refused}` } : { sourcedId: value.trim() };
        }
        const match = lookup(value);
        if (match.kind === 'school') return { sourcedId: match.school.sourcedId };
        missed = true;
        // Only a value naming no school at all may be an unlisted one; an ambiguous name never is.
        if (match.kind === 'unknown' && (allowUnlisted || unlisted.has(value.trim())))
          return { sourcedId: value.trim(), unlisted: true };
        if (match.kind === 'unknown') unknownSchool = true;
        return { problem: `"${printable(value, 80)}" ${refusal(match)}` };
      },
    });
  };
  if (read && (await confirmedAsRead(read, schools, fill.schoolId)))
    return { file: read.file, unknownSchool: false, schoolName };
  // Read again: the first read's rows are let go first, so that a district's rows are not held twice.
  if (read) read.file = DROPPED;
  const checked = await check();
  const file = missed && (await schools.reread()) ? await check() : checked;
  return { file, unknownSchool, schoolName };
}

/**
 * Whether the list in hand has every school value of the first read as the sourcedId that read took it for,
 * and --school-id was one already: each row would then be read again into the same row.
 */
async function confirmedAsRead(
  read: FirstRead,
  schools: { lookup(): Promise<((value: string) => SchoolMatch) | undefined> },
  fillSchoolId: string | undefined,
): Promise<boolean> {
  if (fillSchoolId !== read.fillSchoolId) return false;
  const lookup = await schools.lookup();
  if (!lookup) return false;
  for (const value of read.schools) {
    const match = lookup(value);
    if (match.kind !== 'school' || match.school.sourcedId !== value.trim()) return false;
  }
  return true;
}
