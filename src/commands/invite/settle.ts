// `roster invite settle --file F`: the rows a run of that file left in doubt (or failed after an answer from
// the server) asked of the server's own invitation list, on demand: those it lists as created since their
// request are noted sent and never sent again (invite/settle-file.ts, which every `invite send --file` run
// also asks first). Without --file: the invitations roster's record of sent invitations holds in doubt (a
// single send cut off, any run's doubt; invite/settle-record.ts). Prints what it settled: a table on a
// terminal, --json for scripts; exit 5 while any stays in doubt.
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { RosterError, UsageError } from '../../errors.js';
import { rowsAsJournaled } from '../../invite/journaled-rows.js';
import { type SettledRow, settleFileRows } from '../../invite/settle-file.js';
import { type SettledInvitation, settleRecord } from '../../invite/settle-record.js';
import { printJson, printTable } from '../../output/render.js';
import { examples } from '../common.js';

interface SettleFlags {
  file?: string;
  json?: boolean;
}

async function run(flags: SettleFlags, ctx: Context): Promise<void> {
  if (flags.file === undefined) return settleTheRecord(flags, ctx);
  if (flags.file.trim() === '')
    throw new UsageError('Which run? Give --file FILE, the invitation CSV that `invite send --file` sent.');
  const session = await ctx.session();
  const { run: runOf, rows, view } = await rowsAsJournaled(ctx, session, flags.file);
  // No journal: this file was never sent here, and nothing is in doubt (none is created by asking).
  const settled = view.header === undefined ? [] : await settleFileRows(ctx, session, runOf, rows);
  await show(ctx, flags, view.path, settled);
}

async function show(ctx: Context, flags: SettleFlags, journal: string, rows: SettledRow[]): Promise<void> {
  const count = (now: SettledRow['now']) => rows.filter((r) => r.now === now).length;
  const counts = { sent: count('sent'), inDoubt: count('in-doubt'), failed: count('failed') };
  if (flags.json) printJson(ctx, { file: flags.file, journal, counts, rows });
  else if (rows.length > 0) await printTable(ctx, COLUMNS, rows);
  ctx.log.info(
    rows.length === 0
      ? `Nothing to settle: no row of ${flags.file} is in doubt (journal: ${journal}).`
      : `Settled as sent: ${counts.sent}; still in doubt: ${counts.inDoubt}; failed, sent again by the next run: ${counts.failed}.`,
  );
  stillInDoubt(counts.inDoubt, '--file … --resend-in-doubt');
}

/** `roster invite settle` without --file: the record's invitations in doubt, whichever run left them. */
async function settleTheRecord(flags: SettleFlags, ctx: Context): Promise<void> {
  const session = await ctx.session();
  const { settings } = session;
  const { record, rows } = await settleRecord(ctx, session, settings.clientId ?? '', settings.timeoutMs);
  const counts = {
    sent: rows.filter((r) => r.now === 'sent').length,
    inDoubt: rows.filter((r) => r.now === 'in-doubt').length,
  };
  if (flags.json) printJson(ctx, { record, counts, rows });
  else if (rows.length > 0) await printTable(ctx, RECORD_COLUMNS, rows);
  ctx.log.info(
    rows.length === 0
      ? `Nothing to settle: roster's record of sent invitations holds none in doubt (${record}).`
      : `Settled as sent: ${counts.sent}; still in doubt: ${counts.inDoubt}.`,
  );
  stillInDoubt(counts.inDoubt, '--email … --school-id … --resend-in-doubt');
}

/** Exit 5 while any stays in doubt, saying how to look and how to send it again. */
function stillInDoubt(count: number, resend: string): void {
  if (count === 0) return;
  throw new RosterError(
    'partial',
    `${count} invitation${count === 1 ? ' is' : 's are'} still in doubt`,
    `Check them with \`roster invite list --email …\`, or send them again with \`roster invite send ${resend}\`.`,
  );
}

const COLUMNS = [
  { header: 'LINE', value: (r: SettledRow) => r.line },
  { header: 'EMAIL', value: (r: SettledRow) => r.email },
  { header: 'SCHOOL', value: (r: SettledRow) => r.schoolId },
  { header: 'WAS', value: (r: SettledRow) => r.was },
  { header: 'NOW', value: (r: SettledRow) => r.now },
  { header: 'WHY', value: (r: SettledRow) => r.why, shrink: 'end' as const },
];

const RECORD_COLUMNS = [
  { header: 'EMAIL', value: (r: SettledInvitation) => r.email },
  { header: 'SCHOOL', value: (r: SettledInvitation) => r.schoolId },
  { header: 'LEFT BY', value: (r: SettledInvitation) => r.run, shrink: 'end' as const },
  { header: 'NOW', value: (r: SettledInvitation) => r.now },
  { header: 'WHY', value: (r: SettledInvitation) => r.why, shrink: 'end' as const },
];

export function register(invite: Command, ctx: Context): void {
  const command = invite
    .command('settle')
    .summary("settle invitations in doubt by the server's own list")
    .description(
      "Ask the server's invitation list (GET /enrollment/invitations?email=...) about every row a run of " +
        '--file left in doubt, or failed after the server answered (a 429, a 5xx). A row listed for its ' +
        'school (and school year) and created since its request is settled as sent: noted in the journal ' +
        "and roster's record, never sent again. Others stay as they were. `invite send --file` asks the " +
        "same before it resumes a file. Without --file: every invitation roster's record of sent " +
        'invitations holds in doubt (a single send cut off, any run killed mid-request), whichever run ' +
        'left it. Exit 5 while one stays in doubt.',
    )
    .option('--file <file>', 'the invitation CSV a run of `invite send --file` sent (default: the record)')
    .option('--json', 'print the rows asked about, and what each is now, as JSON')
    .action(async (flags: SettleFlags) => run(flags, ctx));
  examples(command, [
    'roster invite settle',
    'roster invite settle --file invites.csv',
    'roster invite settle --file invites.csv --json > settled.json',
  ]);
}
