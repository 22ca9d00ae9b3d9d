// What a send asks and shows on a terminal while it runs: the unlisted schools and the rows about to be
// e-mailed, each a question whose default is no, and the progress of a file's send. The invite service
// (src/invite/bulk-send.ts) calls them through its SendHooks; it never prompts or prints itself.
import type { Context } from '../../context.js';
import type { RunCounts } from '../../invite/bulk-runner.js';
import type { AboutToSend, SendHooks } from '../../invite/bulk-send.js';
import { previewText } from '../../invite/preview.js';
import type { RowPlan } from '../../invite/store/index.js';
import { type UnlistedSends, unlistedNotice } from '../../invite/unlisted.js';
import { startProgress } from '../../output/progress.js';
import { consent } from '../../prompter.js';

/**
 * On a terminal (unless --yes): the unlisted ids named, and a question whose default is no. A script is not
 * asked: its --allow-unlisted-school or allowUnlistedSchool column is the deliberate act.
 */
export async function confirmUnlisted(ctx: Context, ids: UnlistedSends): Promise<void> {
  const { lines, question } = unlistedNotice(ids);
  ctx.io.stderr.write([...lines, ''].join('\n'));
  await consent(ctx, question, 'nothing was sent');
}

/** A file's send on this terminal: asked before (unless --yes or no terminal), its progress on stderr. */
export function fileSendHooks(ctx: Context, options: { yes: boolean; given: string }): SendHooks {
  return {
    async beforeSend(send) {
      if (!ctx.interactive || options.yes) return;
      if (send.unlisted.size > 0) await confirmUnlisted(ctx, send.unlisted);
      await confirmRows(ctx, send, options.given);
    },
    async startProgress(total) {
      const progress = await startProgress(
        ctx,
        progressText({ sent: 0, failed: 0, inDoubt: 0, remaining: total }),
      );
      return { update: (counts) => progress.update(progressText(counts)), stop: () => progress.stop() };
    },
  };
}

function progressText({ sent, failed, inDoubt, remaining }: RunCounts): string {
  return `Sending invitations: ${sent} sent, ${failed} failed${inDoubt ? `, ${inDoubt} in doubt` : ''}, ${remaining} remaining`;
}

async function confirmRows(ctx: Context, { plan, schoolName }: AboutToSend, fileName: string): Promise<void> {
  const n = plan.toSend.length;
  ctx.io.stderr.write(
    `About to e-mail ${n} enrollment invitation${n === 1 ? '' : 's'} from ${fileName} (they cannot be taken back), ` +
      `sent by user ${sendersOf(plan)}:\n\n` +
      (await previewText(plan.toSend, schoolName, { width: ctx.io.columns, color: ctx.color })) +
      planNotes(plan)
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

/** The senders of the rows to send, five at most named. */
export function sendersOf(plan: RowPlan): string {
  const values = [...new Set(plan.toSend.map((r) => r.body.sentByUserId))];
  return values.length <= 5
    ? values.join(', ')
    : `${values.slice(0, 5).join(', ')} and ${values.length - 5} more`;
}
