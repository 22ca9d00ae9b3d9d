// `invite send --file`, and a plan sent from the terminal: run() sends the file through the invite service
// (src/invite/bulk-send.ts), asking and showing progress on this terminal (questions.ts), and returns what
// it came to; sendFile() shows it: the report (--json) and the summary, a dry run's requests or preview,
// a refused file's problems, and the exit status.
import type { Context } from '../../context.js';
import {
  type DryRunOutcome,
  type FileSendOptions,
  type FileSendResult,
  sendInviteFile,
} from '../../invite/bulk-send.js';
import { FileProblemsError } from '../../invite/file-check.js';
import { previewText } from '../../invite/preview.js';
import { type FileSendOutcome, outcomeError, summaryLines } from '../../invite/report.js';
import { printJson, printNdjsonLine } from '../../output/render.js';
import { fileSendHooks, sendersOf } from './questions.js';

export type { FileSendOptions } from '../../invite/bulk-send.js';

/** Sends the file (or, with dryRun, reads what it would send); a file with problems is a FileProblemsError. */
export async function run(options: FileSendOptions, ctx: Context): Promise<FileSendResult> {
  return sendInviteFile(options, ctx, fileSendHooks(ctx, options));
}

/** run(), then what it came to shown; a send that left rows unsent ends with its error (exit 5, 130, …). */
export async function sendFile(options: FileSendOptions, ctx: Context): Promise<void> {
  let result: FileSendResult;
  try {
    result = await run(options, ctx);
  } catch (error) {
    if (error instanceof FileProblemsError) showProblems(ctx, error, options);
    throw error;
  }
  if (result.kind === 'dry-run') return showDryRun(ctx, result, options);
  showFileSend(ctx, result, options);
}

/** Every problem of a refused file with its line (and in the --json report), before the error's message. */
function showProblems(ctx: Context, error: FileProblemsError, options: FileSendOptions): void {
  if (options.json) printJson(ctx, { file: error.file, problems: error.problems });
  for (const p of error.problems) ctx.log.info(`  line ${p.line}: ${p.reason}`);
}

/** The report as JSON on stdout with --json, the summary on stderr, then the exit status. */
function showFileSend(
  ctx: Context,
  { report, stoppedBy, schoolName }: FileSendOutcome,
  options: FileSendOptions,
): void {
  if (options.json) printJson(ctx, report);
  for (const line of summaryLines(report, options.given, schoolName)) ctx.log.info(line);
  const error = outcomeError(report, stoppedBy);
  if (error) throw error;
}

/**
 * What a run would send: on a terminal the preview a person reads (the confirmation's); in a pipe or with
 * --json the requests, one JSON object per line on stdout.
 */
async function showDryRun(ctx: Context, dry: DryRunOutcome, options: FileSendOptions): Promise<void> {
  // A stream of the requests it would send, and nothing sent: `| head` may end it.
  ctx.stopWhenOutputCloses?.();
  const { plan: work, url } = dry;
  if (ctx.io.stdoutIsTTY && !options.json && work.toSend.length > 0) {
    ctx.io.stdout.write(
      `Would e-mail these invitations (POST ${url}, sent by user ${sendersOf(work)}):\n\n` +
        (await previewText(work.toSend, dry.schoolName, { width: ctx.io.columns, color: ctx.color })),
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
    `Dry run: would send ${work.toSend.length} of ${dry.total} invitations` +
      `${work.skipped.length ? ` (${work.skipped.length} already sent)` : ''}` +
      `${work.elsewhere.size ? ` (${work.elsewhere.size} already sent by another run, not re-sent)` : ''}` +
      `${work.inDoubt.length ? ` (${work.inDoubt.length} in doubt, not re-sent)` : ''}; nothing was sent. Journal: ${dry.journal}`,
  );
}
