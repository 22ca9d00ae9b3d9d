// `roster invite send --file invites.csv`: the whole file validated first, then sent with bounded
// concurrency under a journal that makes the run resumable (see src/invite/journal.ts). Re-running the same
// command skips rows already sent, retries failed rows, and lists in-doubt rows without re-sending them.
// The journal follows the file's path and destination, not its content, and rows are matched by e-mail and
// school: fixing failed rows, adding or reordering rows in the same file and re-running never re-sends a row
// already sent (even one whose other fields were edited since), and never re-sends one in doubt by accident.
import { readFile, rm } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { INVITATIONS_PATH, sendInvitation } from '../../api/enrollment.js';
import type { Context } from '../../context.js';
import { RosterError, UsageError } from '../../errors.js';
import { outputFileFolder, privateFolder, writePrivateFile } from '../../files.js';
import { sendRows, sentEntry } from '../../invite/bulk-runner.js';
import { CsvEncodingError, csvText, type Delimiter } from '../../invite/csv.js';
import { type InvitationDraft, invitationKey } from '../../invite/invitation.js';
import {
  type InfoColumn,
  type InviteFile,
  inviteCsv,
  type PlannedRow,
  type RowProblem,
  readInviteFile,
} from '../../invite/invite-file.js';
import {
  contentHash,
  type Destination,
  Journal,
  type JournalEntry,
  type JournalHeader,
  locateJournal,
} from '../../invite/journal.js';
import { recordGuard } from '../../invite/record-guard.js';
import { type BulkReport, countRows, finalRows, linesBySchool, summaryLines } from '../../invite/report.js';
import { invitationIdentity, SentRecord } from '../../invite/sent-record.js';
import { startProgress } from '../../output/progress.js';
import { printJson, printNdjsonLine } from '../../output/render.js';
import { consent } from '../../prompter.js';
import { Session } from '../../session.js';
import type { Settings } from '../../settings.js';
import { printable } from '../../values.js';
import { draftFromFlags, parseConcurrency, parseDelimiter, type SendOptions } from './options.js';
import { confirmUnlisted, parseUnlisted, UNLISTED_HINT, type UnlistedSends } from './unlisted.js';

/** Rows split by what the journal says happened to them before this run. */
interface Plan {
  toSend: PlannedRow[];
  skipped: PlannedRow[];
  inDoubt: PlannedRow[];
  /** Rows that roster's record shows sent by another run (another file or a single send): by key, when. */
  elsewhere: Map<string, string>;
  /** Keys of in-doubt rows sent again because of --resend-in-doubt. */
  resending: Set<string>;
}

/** When roster's record shows the row sent (by another run), else undefined. */
type SentElsewhere = (row: PlannedRow) => string | undefined;

const keyOf = (row: PlannedRow) => invitationKey(row.body.email, row.body.schoolId);

/**
 * By row identity, whatever else changed: sent stays skipped, failed (or never tried) is sent with the
 * current values unless roster's record shows it sent by another run, in doubt stays in doubt unless
 * --resend-in-doubt (or the record shows it sent by another run since: then it is skipped).
 */
function plan(
  rows: PlannedRow[],
  states: Map<string, JournalEntry>,
  resendInDoubt: boolean,
  sentElsewhere: SentElsewhere,
): Plan {
  const result: Plan = { toSend: [], skipped: [], inDoubt: [], elsewhere: new Map(), resending: new Set() };
  for (const row of rows) {
    const state = states.get(keyOf(row))?.state;
    const elsewhere = state === 'sent' ? undefined : sentElsewhere(row);
    if (state === 'sent') result.skipped.push(row);
    // Even a row in doubt here: another run had it confirmed sent, so --resend-in-doubt would send it twice.
    else if (elsewhere !== undefined) result.elsewhere.set(keyOf(row), elsewhere);
    else if (state === 'in-flight' || state === 'in-doubt') {
      if (resendInDoubt) {
        result.toSend.push(row);
        result.resending.add(keyOf(row));
      } else result.inDoubt.push(row);
    } else result.toSend.push(row);
  }
  return result;
}

export async function runBulk(options: SendOptions, ctx: Context, settings: Settings): Promise<void> {
  if (options.email !== undefined) {
    throw new UsageError('--email and --file do not go together: the file gives one address per row.');
  }
  const concurrency = parseConcurrency(options.concurrency);
  const delimiter = parseDelimiter(options.delimiter);
  const unlisted = parseUnlisted(options.allowUnlistedSchool);
  const file = resolve(options.file ?? '');
  const content = await readInput(file, options.file ?? '');
  // Rows roster's record shows sent by another run are skipped unless the user asks for them again.
  const resendSent = Boolean(options.resendSent);

  const fill = draftFromFlags(options, settings);
  // Every check that needs no request first. A bad file whose rows name schools is still checked against
  // the district's schools (a read, never a send), so that all its problems are listed at once; one that
  // cannot be read that far (no rows, no header) is refused before any request.
  let namesSchools = false;
  const first = await readInviteFile(content, fill, {
    delimiter,
    schoolOf: (value) => {
      namesSchools = true;
      return { sourcedId: value.trim() };
    },
  });
  const session = new Session(ctx, settings);
  if (!first.ok && !namesSchools) throw refuse(ctx, first.problems, file, options);
  if (!first.ok) {
    const all = await withSchools(ctx, session, content, fill, options, { delimiter, unlisted }).catch(
      (error) => {
        // The flags' own mistakes and an interrupt stand; a list that cannot be read leaves the rest.
        if (error instanceof RosterError && (error.code === 'usage' || error.code === 'interrupted'))
          throw error;
        return { file: first, unknownSchool: false };
      },
    );
    throw refuse(ctx, all.file.ok ? first.problems : all.file.problems, file, options, all.unknownSchool);
  }
  // The failed rows' folder before anything is sent, by the rule of every file roster writes.
  if (options.failedCsv !== undefined && !options.dryRun) {
    await outputFileFolder(resolve(options.failedCsv), (line) => ctx.log.warn(line));
  }
  // No credentials: said now, not after the schools were read without them and the admin said yes.
  if (!options.dryRun) await session.checkCredentials('invitations');
  const { file: checked, unknownSchool } = await withSchools(ctx, session, content, fill, options, {
    delimiter,
    unlisted,
  });
  if (!checked.ok) throw refuse(ctx, checked.problems, file, options, unknownSchool);
  const rows = checked.rows;
  warnUnusedUnlisted(ctx, unlisted, rows, fill);
  // The same file sent to another district, or as another client, is another run with its own journal.
  const destination: Destination = { baseUrl: session.baseUrl, clientId: settings.clientId ?? '' };
  // However the file and the service are spelled: one file, one destination, one journal.
  const place = await locateJournal(ctx.paths.stateDir, file, destination);
  const { path } = place;
  // roster's state folder down to the journal's: refused if another user owns one or others can write to it.
  await privateFolder(dirname(path), ctx.paths.stateDir, { create: !options.dryRun });
  const sha256 = contentHash(content);

  if (options.dryRun) {
    const record = await SentRecord.peek(ctx.paths.stateDir, destination);
    const elsewhere = sentElsewhereBy(record, resendSent);
    return dryRun(ctx, session, rows, place.path, place.legacy, sha256, elsewhere, options);
  }

  const journal = await Journal.open(
    path,
    { journal: 'roster invite send', version: 1, file: place.file, destination, sha256 },
    new Date(ctx.now()),
    place.legacy,
  );
  let record: SentRecord | undefined;
  try {
    record = await SentRecord.open(ctx.paths.stateDir, destination);
    record.load();
    await recordSentRows(record, rows, journal.states);
    const sentElsewhere = sentElsewhereBy(record, resendSent);
    if (journal.carriedOver.length > 0)
      ctx.log.info(
        `Carried over the rows of ${journal.carriedOver.join(', ')} (an earlier spelling of this run).`,
      );
    const contentChanged = noteChanged(ctx, journal.header, sha256, options.file ?? file);
    const before = new Map(journal.states);
    const work = plan(rows, before, Boolean(options.resendInDoubt), sentElsewhere);
    // Credentials are checked once, before the question and before any row is marked in flight.
    if (work.toSend.length > 0) await session.accessToken('invitations');
    const toUnlisted = unlistedOf(work.toSend);
    if (toUnlisted.size > 0 && ctx.interactive && !options.yes) await confirmUnlisted(ctx, toUnlisted);
    if (work.toSend.length > 0 && ctx.interactive && !options.yes)
      await confirm(ctx, work, options.file ?? file);
    const fresh = work.toSend.filter((r) => !before.has(keyOf(r)));
    if (fresh.length > 0) {
      // The whole plan on disk before the first request: a crash can never make a row look untouched.
      const at = new Date(ctx.now()).toISOString();
      await journal.record(
        fresh.map((r) => ({
          key: keyOf(r),
          line: r.line,
          state: 'pending',
          at,
          email: r.body.email,
          schoolId: r.body.schoolId,
        })),
      );
    }

    let outcome: Awaited<ReturnType<typeof sendRows>> = { results: new Map() };
    let interrupted = false;
    if (work.toSend.length > 0) {
      ctx.log.info(
        `Sending ${work.toSend.length} invitation${work.toSend.length === 1 ? '' : 's'} from ${options.file}` +
          ` (concurrency ${concurrency}${work.skipped.length ? `, ${work.skipped.length} already sent` : ''}). Journal: ${path}`,
      );
      const signal = ctx.trapInterrupt();
      const progress = await startProgress(ctx, progressText(0, 0, 0, work.toSend.length));
      try {
        outcome = await sendRows({
          rows: work.toSend,
          journal,
          // Claimed just before each request: another run may be sending the same people right now.
          guard: recordGuard(record, {
            run: { run: path, file: file },
            signal,
            resendSent,
            resendInDoubt: Boolean(options.resendInDoubt),
            resending: work.resending,
            timeoutMs: settings.timeoutMs,
            now: () => new Date(ctx.now()),
            warn: (message) => ctx.log.warn(message),
            info: (message) => ctx.log.info(message),
          }),
          concurrency,
          signal,
          resending: work.resending,
          send: (row) => sendInvitation(session.api, row.body),
          now: () => new Date(ctx.now()),
          onProgress: (c) => progress.update(progressText(c.sent, c.failed, c.inDoubt, c.remaining)),
        });
      } finally {
        progress.stop();
      }
      interrupted = signal.aborted;
    }

    for (const [key, sentAt] of work.elsewhere) outcome.results.set(key, { state: 'elsewhere', sentAt });
    const reportRows = finalRows(rows, before, outcome.results);
    // finalRows keeps the order of `rows`, so the two line up.
    const failedRows = rows.filter((_, i) => reportRows[i]?.result === 'failed');
    const failedCsv = await writeFailed(failedRows, checked.info ?? [], options.failedCsv, path);
    const report: BulkReport = {
      file,
      journal: path,
      interrupted,
      contentChanged,
      ...(outcome.stoppedBy && { stoppedBy: outcome.stoppedBy.message }),
      counts: countRows(reportRows),
      failedCsv,
      rows: reportRows,
    };
    if (options.json) printJson(ctx, report);
    for (const line of summaryLines(report, options.file ?? file)) ctx.log.info(line);
    throwForOutcome(report, outcome.stoppedBy);
  } finally {
    await record?.close();
    await journal.close();
  }
}

const identityOf = (row: PlannedRow) =>
  invitationIdentity(row.body.email, row.body.schoolId, row.body.schoolYearId);

/**
 * A row roster's record shows sent by a run other than this file's (whose own rows its journal governs):
 * overlapping files, or a file sent while a plan written earlier waited. Whatever the file's mtime (a save,
 * touch or copy says nothing about who was invited); only --resend-sent sends such rows again.
 */
function sentElsewhereBy(record: SentRecord, resendSent: boolean): SentElsewhere {
  return (row) => (resendSent ? undefined : record.sentAt(identityOf(row)));
}

/**
 * Rows the journal says were sent and the record lacks (a run killed between the two writes, or sent by a
 * release without the record) are added, so no campaign plan lists them again; not those forgotten
 * (`roster invite forget`) since they were sent, which would undo the forgetting.
 */
async function recordSentRows(
  record: SentRecord,
  rows: PlannedRow[],
  states: Map<string, JournalEntry>,
): Promise<void> {
  const missing = rows.flatMap((row) => {
    const entry = states.get(keyOf(row));
    if (entry?.state !== 'sent' || record.has(identityOf(row))) return [];
    const forgotten = record.forgottenAt(identityOf(row));
    return forgotten !== undefined && forgotten >= entry.at ? [] : [sentEntry(row, new Date(entry.at))];
  });
  await record.add(missing);
}

/** Every problem listed with its line (and in the --json report); the error to throw. */
function refuse(
  ctx: Context,
  problems: RowProblem[],
  file: string,
  options: SendOptions,
  unknownSchool = false,
): UsageError {
  if (options.json) printJson(ctx, { file, problems });
  for (const p of problems) ctx.log.info(`  line ${p.line}: ${p.reason}`);
  const n = problems.length;
  return new UsageError(
    `${options.file}: ${n} problem${n === 1 ? '' : 's'} found (listed above); nothing was sent.`,
    `Fix the file and run the command again.${unknownSchool ? ` ${UNLISTED_HINT}` : ''}`,
  );
}

/** The rows going to a school id the district's list lacks, by id with their lines. */
function unlistedOf(rows: readonly PlannedRow[]): UnlistedSends {
  return linesBySchool(
    rows.filter((r) => r.unlistedSchool).map((r) => ({ schoolId: r.body.schoolId, line: r.line })),
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
 * list does not know a value; a value naming no one school is a problem of its line.
 */
async function withSchools(
  ctx: Context,
  session: Session,
  content: string,
  fill: InvitationDraft,
  options: SendOptions,
  /** The flags parsed once by the caller: --delimiter, and the ids --allow-unlisted-school names. */
  { delimiter, unlisted }: { delimiter: Delimiter | undefined; unlisted: ReadonlySet<string> },
): Promise<{ file: InviteFile; unknownSchool: boolean }> {
  const { SchoolDirectory } = await import('../../schools/directory.js');
  const { refusal } = await import('../../schools/match.js');
  const schools = new SchoolDirectory(ctx, session, options.refreshSchools);
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
      schoolOf:
        lookup &&
        ((value, allowUnlisted) => {
          const match = lookup(value);
          if (match.kind === 'school') return { sourcedId: match.school.sourcedId };
          missed = true;
          // Only a value naming no school at all may be an unlisted one; an ambiguous name never is.
          if (match.kind === 'unknown' && (allowUnlisted || unlisted.has(value.trim())))
            return { sourcedId: value.trim(), unlisted: true };
          if (match.kind === 'unknown') unknownSchool = true;
          return { problem: `"${printable(value, 80)}" ${refusal(match)}` };
        }),
    });
  };
  const checked = await check();
  const file = missed && (await schools.reread()) ? await check() : checked;
  return { file, unknownSchool };
}

/**
 * One line on stderr when the file was edited since the journal began (fixed rows, added ones): expected,
 * and safe, but worth saying since the admin may not expect rows to be matched rather than lines.
 */
function noteChanged(
  ctx: Context,
  header: JournalHeader | undefined,
  sha256: string,
  fileName: string,
): boolean {
  if (header === undefined || header.sha256 === sha256) return false;
  ctx.log.info(
    `${fileName} changed since the first run (${header.createdAt}); rows are matched by e-mail and school, so rows already sent stay skipped.`,
  );
  return true;
}

function progressText(sent: number, failed: number, inDoubt: number, remaining: number): string {
  return `Sending invitations: ${sent} sent, ${failed} failed${inDoubt ? `, ${inDoubt} in doubt` : ''}, ${remaining} remaining`;
}

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

async function confirm(ctx: Context, work: Plan, fileName: string): Promise<void> {
  const schools = [...new Set(work.toSend.map((r) => r.body.schoolId))];
  const senders = [...new Set(work.toSend.map((r) => r.body.sentByUserId))];
  const sample = work.toSend
    .slice(0, 5)
    .map(
      (r) =>
        `    line ${r.line}: ${r.body.email} (${r.body.schoolId}, ${r.body.studentCount} student${r.body.studentCount === 1 ? '' : 's'})`,
    );
  const n = work.toSend.length;
  ctx.io.stderr.write(
    [
      `About to e-mail ${n} enrollment invitation${n === 1 ? '' : 's'} from ${fileName} (they cannot be taken back):`,
      `  schools: ${listed(schools)}`,
      `  sent by user: ${listed(senders)}`,
      ...sample,
      ...(n > sample.length ? [`    … and ${n - sample.length} more`] : []),
      ...(work.skipped.length
        ? [`  ${work.skipped.length} already sent by an earlier run will be skipped.`]
        : []),
      ...(work.elsewhere.size
        ? [
            `  ${work.elsewhere.size} already sent by another roster run will be skipped (--resend-sent sends them again).`,
          ]
        : []),
      ...(work.resending.size
        ? [`  ${work.resending.size} in doubt will be sent AGAIN (--resend-in-doubt).`]
        : []),
      ...(work.inDoubt.length ? [`  ${work.inDoubt.length} in doubt will not be sent.`] : []),
      '',
    ].join('\n'),
  );
  await consent(ctx, `Send ${n} invitation${n === 1 ? '' : 's'}?`, 'nothing was sent');
}

const listed = (values: string[]) =>
  values.length <= 5 ? values.join(', ') : `${values.slice(0, 5).join(', ')} and ${values.length - 5} more`;

/** The requests a run would send, one JSON object per line on stdout; the journal is read, not written. */
async function dryRun(
  ctx: Context,
  session: Session,
  rows: PlannedRow[],
  path: string,
  legacy: string[],
  sha256: string,
  sentElsewhere: SentElsewhere,
  options: SendOptions,
): Promise<void> {
  const { header, states } = await Journal.peek(path, legacy);
  noteChanged(ctx, header, sha256, options.file ?? path);
  const work = plan(rows, states, Boolean(options.resendInDoubt), sentElsewhere);
  const url = session.api.url(INVITATIONS_PATH);
  for (const row of work.toSend)
    await printNdjsonLine(ctx, {
      line: row.line,
      method: 'POST',
      url,
      body: row.body,
      ...(row.unlistedSchool && { unlistedSchool: true }),
    });
  ctx.log.info(
    `Dry run: would send ${work.toSend.length} of ${rows.length} invitations` +
      `${work.skipped.length ? ` (${work.skipped.length} already sent)` : ''}` +
      `${work.elsewhere.size ? ` (${work.elsewhere.size} already sent by another run, not re-sent)` : ''}` +
      `${work.inDoubt.length ? ` (${work.inDoubt.length} in doubt, not re-sent)` : ''}; nothing was sent. Journal: ${path}`,
  );
}

/** Failed rows as a CSV to feed back in. A stale default one is removed so it can never be re-sent by mistake. */
async function writeFailed(
  failed: PlannedRow[],
  info: InfoColumn[],
  chosen: string | undefined,
  journal: string,
): Promise<string | null> {
  const path = chosen ? resolve(chosen) : `${dirname(journal)}/${basename(journal, '.jsonl')}.failed.csv`;
  if (failed.length === 0) {
    if (!chosen) await rm(path, { force: true });
    return null;
  }
  await writePrivateFile(
    path,
    inviteCsv(
      failed.map((r) => r.body),
      info,
      failed.map((r) => r.info),
      failed.map((r) => Boolean(r.unlistedSchool)),
    ),
  );
  return path;
}

function throwForOutcome(report: BulkReport, stoppedBy: RosterError | undefined): void {
  const { counts } = report;
  if (report.interrupted) {
    throw new RosterError(
      'interrupted',
      `Interrupted: ${counts.notStarted} row${counts.notStarted === 1 ? '' : 's'} not started`,
      'Run the same command again to continue; rows already sent will be skipped.',
    );
  }
  if (stoppedBy) {
    throw new RosterError(
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
    throw new RosterError('partial', `Not every invitation is confirmed sent: ${parts.join(', ')}`);
  }
}
