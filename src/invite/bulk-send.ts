// The invite service behind `invite send --file` and `invite plan`: a CSV's invitations sent with bounded
// concurrency under the store's journal (src/invite/store/), so that re-running the same command skips rows
// already sent, retries failed rows, and lists in-doubt rows without re-sending them. The journal follows
// the file's path and destination, not its content, and rows are matched by e-mail and school: fixing failed
// rows, adding or reordering rows in the same file and re-running never re-sends a row already sent (even
// one whose other fields were edited since), and never re-sends one in doubt by accident. It never prompts
// or prints: the command asks its question, shows the progress and the outcome (SendHooks, FileSendResult).
import { rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { INVITATIONS_PATH } from '../api/enrollment.js';
import type { Context } from '../context.js';
import { writePrivateFile } from '../files.js';
import { keepHeapSmall } from '../heap.js';
import type { Session } from '../session.js';
import type { Settings } from '../settings.js';
import { RowResults, type RunCounts, type RunOutcome, sendRows } from './bulk-runner.js';
import { checkFile, type FileSendOptions, readInput } from './file-check.js';
import { type InfoColumn, inviteCsv, type PlannedRow } from './invite-file.js';
import type { SchoolName } from './preview.js';
import {
  type BulkReport,
  type FileSendOutcome,
  finalRow,
  linesBySchool,
  namedInSummary,
  tallyRows,
} from './report.js';
import { Settler, sendSettled } from './settle.js';
import { type SettledRow, settleOpenRows } from './settle-file.js';
import {
  contentHash,
  FileRun,
  peekRun,
  type ResendFlags,
  type RowPlan,
  type RunOf,
  type RunView,
} from './store/index.js';
import type { UnlistedSends } from './unlisted.js';

export type { FileSendOptions } from './file-check.js';

/**
 * What a send asks of the command that runs it: the last word before any row is sent (a terminal's
 * question), and a progress display. The invite service itself never prompts or prints.
 */
export interface SendHooks {
  /** Once a token is in hand and before any row is marked; throws (a CancelledError) to send nothing. */
  beforeSend(send: AboutToSend): Promise<void>;
  /** A display of a send of `total` rows, given the counts as rows are answered, and stopped at the end. */
  startProgress(total: number): Promise<SendProgress>;
}

export interface SendProgress {
  update(counts: RunCounts): void;
  stop(): void;
}

/** The rows about to be sent, and what they leave out, for the question before a send. */
export interface AboutToSend {
  plan: RowPlan;
  /** The rows going to a school id the district's list lacks, by id with their lines. */
  unlisted: UnlistedSends;
  schoolName: SchoolName;
}

/** What a dry run would send, the journal read and not written. */
export interface DryRunOutcome {
  kind: 'dry-run';
  /** The URL each invitation would be POSTed to. */
  url: string;
  plan: RowPlan;
  /** Rows of the file. */
  total: number;
  journal: string;
  schoolName: SchoolName;
}

/** What a send of a file came to: the report of a send, or what a dry run would send. */
export type FileSendResult = ({ kind: 'sent' } & FileSendOutcome) | DryRunOutcome;

/** Sends the file's invitations (or, with dryRun, reads what it would send) and returns what it came to. */
export async function sendInviteFile(
  options: FileSendOptions,
  ctx: Context,
  hooks: SendHooks,
): Promise<FileSendResult> {
  await keepHeapSmall((line) => ctx.log.debug(line));
  const file = resolve(options.given);
  const { session, rows, info, sha256, schoolName } = await readChecked(ctx, file, options);
  const { settings } = session;
  // The same file sent to another district, or as another client, is another run with its own journal.
  const run: RunOf = {
    stateDir: ctx.paths.stateDir,
    file,
    sha256,
    destination: { baseUrl: session.baseUrl, clientId: settings.clientId ?? '' },
  };
  const flags: ResendFlags = { resendSent: options.resendSent, resendInDoubt: options.resendInDoubt };
  if (options.dryRun) return dryRun(ctx, session, { rows, schoolName }, run, flags, options);

  const store = await FileRun.open(run, rows, flags, new Date(ctx.now()));
  try {
    // Rows an earlier run left in doubt, or failed after the server answered: the server's list first.
    tellSettled(ctx, await settleOpenRows(ctx, session, store, rows));
    const contentChanged = noteChanged(ctx, store.view, sha256, options.given);
    const { plan } = store.view;
    if (plan.toSend.length > 0) {
      // A token before the question: credentials the server refuses fail now, not after a "yes".
      await session.accessToken('invitations');
      await hooks.beforeSend({ plan, unlisted: unlistedOf(plan.toSend), schoolName });
    }
    const sent = await sendPlan(ctx, session, settings, store, options, hooks);
    const report = await reportOf(file, rows, info ?? [], store.view, sent, contentChanged, options);
    return { kind: 'sent', report, stoppedBy: sent.outcome.stoppedBy, schoolName };
  } finally {
    await store.close();
  }
}

/**
 * The file read, then the session, then every row checked; the file's text is let go once hashed (a
 * district's file is megabytes the run would hold for nothing).
 */
async function readChecked(ctx: Context, file: string, options: FileSendOptions) {
  const content = await readInput(file, options.given);
  const session = await ctx.session();
  const { rows, info, schoolName } = await checkFile(ctx, session, content, file, options);
  return { session, rows, info, schoolName, sha256: contentHash(content) };
}

/** The planned rows sent, with the caller's progress display; Ctrl-C stops taking rows (those in flight finish). */
async function sendPlan(
  ctx: Context,
  session: Session,
  settings: Settings,
  store: FileRun,
  options: FileSendOptions,
  hooks: SendHooks,
): Promise<{ outcome: RunOutcome; interrupted: boolean }> {
  const { plan, path } = store.view;
  if (plan.toSend.length === 0) return { outcome: { results: new RowResults(0) }, interrupted: false };
  const n = plan.toSend.length;
  ctx.log.info(
    `Sending ${n} invitation${n === 1 ? '' : 's'} from ${options.given}` +
      ` (concurrency ${options.concurrency}${plan.skipped.length ? `, ${plan.skipped.length} already sent` : ''}). Journal: ${path}`,
  );
  const signal = ctx.trapInterrupt();
  const now = () => new Date(ctx.now());
  const settler = new Settler(
    session,
    () => ctx.now(),
    (message) => ctx.log.warn(message),
  );
  const progress = await hooks.startProgress(n);
  try {
    const outcome = await sendRows({
      rows: plan.toSend,
      // Claimed before each request: another run may be sending the same people right now.
      guard: store.guard({
        timeoutMs: settings.timeoutMs,
        now,
        info: (message) => ctx.log.info(message),
      }),
      concurrency: options.concurrency,
      signal,
      resending: plan.resending,
      // The server's list asked before a retry, and before a row is reported in doubt.
      send: (row) => sendSettled(session, row.body, settler, () => ctx.now()),
      keepMessages: options.json,
      now,
      onProgress: (counts) => progress.update(counts),
    });
    return { outcome, interrupted: signal.aborted };
  } finally {
    progress.stop();
  }
}

/** Where every row stands after the run, and the failed rows written as a CSV to send again. */
async function reportOf(
  file: string,
  rows: PlannedRow[],
  info: InfoColumn[],
  view: RunView,
  sent: { outcome: RunOutcome; interrupted: boolean },
  contentChanged: boolean,
  options: FileSendOptions,
): Promise<BulkReport> {
  // The rows sent are the file's in its order, less some: a row's result is at the next one's place.
  const { toSend } = view.plan;
  let place = 0;
  const thisRun = (row: PlannedRow) =>
    toSend[place] === row ? sent.outcome.results.get(place++) : undefined;
  const {
    counts,
    rows: reportRows,
    failed,
  } = tallyRows(
    rows,
    (row) => finalRow(row, view.before, thisRun(row), view.plan.elsewhere),
    // --json lists every row (its report is the size of the file by nature); the summary names a few.
    options.json ? () => true : namedInSummary,
  );
  return {
    file,
    journal: view.path,
    interrupted: sent.interrupted,
    contentChanged,
    ...(sent.outcome.stoppedBy && { stoppedBy: sent.outcome.stoppedBy.message }),
    counts,
    failedCsv: await writeFailed(failed, info, options.failedCsv, view.failedCsv),
    rows: reportRows,
  };
}

/** One line on stderr per row the server's list settled as sent: it will not be sent again. */
function tellSettled(ctx: Context, rows: SettledRow[]): void {
  for (const row of rows)
    if (row.now === 'sent') ctx.log.info(`Line ${row.line}: ${row.why}; it is not sent again.`);
}

/** The rows going to a school id the district's list lacks, by id with their lines. */
function unlistedOf(rows: readonly PlannedRow[]): UnlistedSends {
  return linesBySchool(
    rows.filter((r) => r.unlistedSchool).map((r) => ({ schoolId: r.body.schoolId, line: r.line })),
  );
}

/**
 * One line on stderr when the file was edited since the journal began (fixed rows, added ones): expected,
 * and safe, but worth saying since the admin may not expect rows to be matched rather than lines.
 */
function noteChanged(
  ctx: Context,
  view: { header?: { sha256: string; createdAt: string } },
  sha256: string,
  fileName: string,
): boolean {
  const { header } = view;
  if (header === undefined || header.sha256 === sha256) return false;
  ctx.log.info(
    `${fileName} changed since the first run (${header.createdAt}); rows are matched by e-mail and school, so rows already sent stay skipped.`,
  );
  return true;
}

/** What a run would send, the journal read, not written. */
async function dryRun(
  ctx: Context,
  session: Session,
  { rows, schoolName }: { rows: PlannedRow[]; schoolName: SchoolName },
  run: RunOf,
  flags: ResendFlags,
  options: FileSendOptions,
): Promise<DryRunOutcome> {
  const view = await peekRun(run, rows, flags);
  noteChanged(ctx, view, run.sha256, options.given);
  return {
    kind: 'dry-run',
    url: session.api.url(INVITATIONS_PATH),
    plan: view.plan,
    total: rows.length,
    journal: view.path,
    schoolName,
  };
}

/** Failed rows as a CSV to feed back in. A stale default one is removed so it can never be re-sent by mistake. */
async function writeFailed(
  failed: PlannedRow[],
  info: InfoColumn[],
  chosen: string | undefined,
  byDefault: string,
): Promise<string | null> {
  const path = chosen ? resolve(chosen) : byDefault;
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
    { forExcel: true },
  );
  return path;
}
