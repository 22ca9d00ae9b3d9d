// The invite service behind `invite send --file` and `invite plan`: a CSV's invitations sent with bounded
// concurrency under the store's journal (src/invite/store/), so that re-running the same command skips rows
// already sent, retries failed rows, and lists in-doubt rows without re-sending them. The journal follows
// the file's path and destination, not its content, and rows are matched by e-mail and school: fixing failed
// rows, adding or reordering rows in the same file and re-running never re-sends a row already sent (even
// one whose other fields were edited since), and never re-sends one in doubt by accident.
import { rm } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { INVITATIONS_PATH } from '../api/enrollment.js';
import type { Context } from '../context.js';
import { writePrivateFile } from '../files.js';
import { keepHeapSmall } from '../heap.js';
import { startProgress } from '../output/progress.js';
import { printNdjsonLine } from '../output/render.js';
import { consent } from '../prompter.js';
import type { Session } from '../session.js';
import type { Settings } from '../settings.js';
import { RowResults, type RunOutcome, sendRows } from './bulk-runner.js';
import { checkFile, type FileSendOptions, readInput } from './file-check.js';
import { type InfoColumn, inviteCsv, type PlannedRow } from './invite-file.js';
import { previewText, type SchoolName } from './preview.js';
import {
  type BulkReport,
  type FileSendOutcome,
  finalRow,
  linesBySchool,
  namedInSummary,
  showFileSend,
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
import { confirmUnlisted, type UnlistedSends } from './unlisted.js';

export type { FileSendOptions } from './file-check.js';

/** What `invite send --file` and a plan's send do: send the file, then show what it came to. */
export async function sendFileAndShow(options: FileSendOptions, ctx: Context): Promise<void> {
  const outcome = await sendInviteFile(options, ctx);
  if (outcome) showFileSend(ctx, outcome, options);
}

/**
 * Sends the file's invitations and returns the outcome; with dryRun it streams the requests it would send
 * instead, and returns nothing.
 */
async function sendInviteFile(options: FileSendOptions, ctx: Context): Promise<FileSendOutcome | undefined> {
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
  if (options.dryRun) {
    await dryRun(ctx, session, { rows, schoolName }, run, flags, options);
    return undefined;
  }

  const store = await FileRun.open(run, rows, flags, new Date(ctx.now()));
  try {
    // Rows an earlier run left in doubt, or failed after the server answered: the server's list first.
    tellSettled(ctx, await settleOpenRows(ctx, session, store, rows));
    const contentChanged = noteChanged(ctx, store.view, sha256, options.given);
    await confirmSend(ctx, session, store.view.plan, options, schoolName);
    const sent = await sendPlan(ctx, session, settings, store, options);
    const report = await reportOf(file, rows, info ?? [], store.view, sent, contentChanged, options);
    return { report, stoppedBy: sent.outcome.stoppedBy, schoolName };
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

/**
 * Before any row is marked: credentials (a token now, not after a "yes"), then on a terminal without --yes
 * the unlisted schools and the plan, each confirmed.
 */
async function confirmSend(
  ctx: Context,
  session: Session,
  plan: RowPlan,
  options: FileSendOptions,
  schoolName: SchoolName,
) {
  if (plan.toSend.length === 0) return;
  await session.accessToken('invitations');
  if (!ctx.interactive || options.yes) return;
  const toUnlisted = unlistedOf(plan.toSend);
  if (toUnlisted.size > 0) await confirmUnlisted(ctx, toUnlisted);
  await confirm(ctx, plan, options.given, schoolName);
}

/** The planned rows sent, with progress on stderr; Ctrl-C stops taking rows (those in flight finish). */
async function sendPlan(
  ctx: Context,
  session: Session,
  settings: Settings,
  store: FileRun,
  options: FileSendOptions,
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
  const progress = await startProgress(ctx, progressText(0, 0, 0, n));
  try {
    const outcome = await sendRows({
      rows: plan.toSend,
      journal: store.rowJournal,
      // Claimed before each request: another run may be sending the same people right now.
      guard: store.guard({
        timeoutMs: settings.timeoutMs,
        now,
        warn: (message) => ctx.log.warn(message),
        info: (message) => ctx.log.info(message),
      }),
      concurrency: options.concurrency,
      signal,
      resending: plan.resending,
      // The server's list asked before a retry, and before a row is reported in doubt.
      send: (row) => sendSettled(session, row.body, settler, () => ctx.now()),
      keepMessages: options.json,
      now,
      onProgress: (c) => progress.update(progressText(c.sent, c.failed, c.inDoubt, c.remaining)),
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
    failedCsv: await writeFailed(failed, info, options.failedCsv, view.path),
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

function progressText(sent: number, failed: number, inDoubt: number, remaining: number): string {
  return `Sending invitations: ${sent} sent, ${failed} failed${inDoubt ? `, ${inDoubt} in doubt` : ''}, ${remaining} remaining`;
}

async function confirm(ctx: Context, work: RowPlan, fileName: string, schoolName: SchoolName): Promise<void> {
  const n = work.toSend.length;
  ctx.io.stderr.write(
    `About to e-mail ${n} enrollment invitation${n === 1 ? '' : 's'} from ${fileName} (they cannot be taken back), ` +
      `sent by user ${listed([...new Set(work.toSend.map((r) => r.body.sentByUserId))])}:\n\n` +
      (await previewText(work.toSend, schoolName, { width: ctx.io.columns, color: ctx.color })) +
      planNotes(work)
        .map((line) => `${line}\n`)
        .join(''),
  );
  await consent(ctx, `Send ${n} invitation${n === 1 ? '' : 's'}?`, 'nothing was sent');
}

/** What the plan leaves out, and what it sends again, in a line each. */
function planNotes(work: RowPlan): string[] {
  return [
    ...(work.skipped.length
      ? [`${work.skipped.length} already sent by an earlier run will be skipped.`]
      : []),
    ...(work.elsewhere.size
      ? [
          `${work.elsewhere.size} already sent by another roster run will be skipped (--resend-sent sends them again).`,
        ]
      : []),
    ...(work.resending.size
      ? [`${work.resending.size} in doubt will be sent AGAIN (--resend-in-doubt).`]
      : []),
    ...(work.inDoubt.length ? [`${work.inDoubt.length} in doubt will not be sent.`] : []),
  ];
}

const listed = (values: string[]) =>
  values.length <= 5 ? values.join(', ') : `${values.slice(0, 5).join(', ')} and ${values.length - 5} more`;

/**
 * What a run would send, the journal read, not written: on a terminal the preview a person reads (the
 * confirmation's); in a pipe or with --json the requests, one JSON object per line on stdout.
 */
async function dryRun(
  ctx: Context,
  session: Session,
  { rows, schoolName }: { rows: PlannedRow[]; schoolName: SchoolName },
  run: RunOf,
  flags: ResendFlags,
  options: FileSendOptions,
): Promise<void> {
  // A stream of the requests it would send, and nothing sent: `| head` may end it.
  ctx.stopWhenOutputCloses?.();
  const view = await peekRun(run, rows, flags);
  const { plan: work, path } = view;
  noteChanged(ctx, view, run.sha256, options.given);
  const url = session.api.url(INVITATIONS_PATH);
  if (ctx.io.stdoutIsTTY && !options.json && work.toSend.length > 0) {
    const senders = listed([...new Set(work.toSend.map((r) => r.body.sentByUserId))]);
    ctx.io.stdout.write(
      `Would e-mail these invitations (POST ${url}, sent by user ${senders}):\n\n` +
        (await previewText(work.toSend, schoolName, { width: ctx.io.columns, color: ctx.color })),
    );
  } else
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
    { forExcel: true },
  );
  return path;
}
