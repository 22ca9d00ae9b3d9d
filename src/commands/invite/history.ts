// `roster invite history [--email E] [--file F]`: what roster sent, when, by which run, and what is in doubt,
// from its own state (invite/history.ts), without asking the server: the question admins ask after a send.
// A table on a terminal (the newest --limit events), tab-separated in a pipe, --json for scripts.
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { type FileHistoryRow, fileHistory, invitationHistory } from '../../invite/history.js';
import type { HistoryEvent } from '../../invite/store/index.js';
import { printJson, printTable } from '../../output/render.js';
import { parseCount } from '../../values.js';
import { examples } from '../common.js';

export interface HistoryOptions {
  email?: string;
  file?: string;
  /** The newest this many; 0 for every one. */
  limit: number;
}

export type HistoryResult =
  | { kind: 'record'; record: string; total: number; events: HistoryEvent[] }
  | { kind: 'file'; file: string; journal: string | undefined; total: number; rows: FileHistoryRow[] };

export async function run(options: HistoryOptions, ctx: Context): Promise<HistoryResult> {
  const session = await ctx.session();
  const destination = { baseUrl: session.baseUrl, clientId: session.settings.clientId ?? '' };
  const newest = <T>(items: T[]) => (options.limit === 0 ? items : items.slice(-options.limit));
  if (options.file !== undefined) {
    const { journal, rows } = await fileHistory(ctx, session, options.file, options.email);
    return { kind: 'file', file: options.file, journal, total: rows.length, rows: newest(rows) };
  }
  const { record, events } = await invitationHistory(ctx, destination, options.email);
  return { kind: 'record', record, total: events.length, events: newest(events) };
}

interface HistoryFlags {
  email?: string;
  file?: string;
  limit?: string;
  json?: boolean;
}

function optionsOf(flags: HistoryFlags): HistoryOptions {
  if (flags.email !== undefined && flags.email.trim() === '') throw new UsageError('--email is empty.');
  if (flags.file !== undefined && flags.file.trim() === '') throw new UsageError('--file is empty.');
  return {
    ...(flags.email !== undefined && { email: flags.email }),
    ...(flags.file !== undefined && { file: flags.file }),
    limit: parseCount('--limit', flags.limit, 0, 10_000_000) ?? DEFAULT_LIMIT,
  };
}

const DEFAULT_LIMIT = 100;

async function show(ctx: Context, flags: HistoryFlags, result: HistoryResult): Promise<void> {
  const shown = result.kind === 'file' ? result.rows.length : result.events.length;
  if (flags.json) printJson(ctx, result);
  else if (result.kind === 'file') await printTable(ctx, FILE_COLUMNS, result.rows);
  else await printTable(ctx, RECORD_COLUMNS, result.events);
  if (shown < result.total)
    ctx.log.info(`Showing the newest ${shown} of ${result.total}; --limit 0 shows every one.`);
  if (result.kind === 'file' && result.journal === undefined)
    ctx.log.info(`${result.file} was never sent to this server: no journal.`);
  if (result.total === 0 && result.kind === 'record')
    ctx.log.info(`Nothing recorded${flags.email ? ` for ${flags.email.trim()}` : ''} (${result.record}).`);
}

const RECORD_COLUMNS = [
  { header: 'WHEN', value: (e: HistoryEvent) => e.at },
  { header: 'EVENT', value: (e: HistoryEvent) => e.event },
  { header: 'EMAIL', value: (e: HistoryEvent) => e.email },
  { header: 'SCHOOL', value: (e: HistoryEvent) => e.schoolId },
  { header: 'YEAR', value: (e: HistoryEvent) => e.schoolYearId ?? '' },
  { header: 'BY', value: (e: HistoryEvent) => e.by ?? '', shrink: 'end' as const },
];

const FILE_COLUMNS = [
  { header: 'LINE', value: (r: FileHistoryRow) => r.line },
  { header: 'STATE', value: (r: FileHistoryRow) => r.state },
  { header: 'WHEN', value: (r: FileHistoryRow) => r.at ?? '' },
  { header: 'EMAIL', value: (r: FileHistoryRow) => r.email },
  { header: 'SCHOOL', value: (r: FileHistoryRow) => r.schoolId },
  { header: 'REASON', value: (r: FileHistoryRow) => r.reason ?? '', shrink: 'end' as const },
];

export function register(invite: Command, ctx: Context): void {
  const command = invite
    .command('history')
    .summary('what roster sent, when, by which run, and what is in doubt')
    .description(
      "What roster's own state says was sent to this profile's server, without asking the server: every " +
        'invitation confirmed (when, and by which run: its file, or `invite send --email`), forgotten ' +
        '(`invite forget`), in doubt, stopped (a run killed mid-request) or being sent now, oldest first. ' +
        "With --file: that file's rows as its journal tells them (sent, failed, in doubt, sent by another " +
        'run, not sent). `roster invite settle` asks the server about those in doubt.',
    )
    .option('--email <address>', "one family's invitations (any letter case)")
    .option('--file <file>', 'the rows of an invitation CSV that `invite send --file` sent')
    .option('--limit <n>', `the newest N (default ${DEFAULT_LIMIT}; 0 for every one)`)
    .option('--json', 'print them as JSON')
    .action(async (flags: HistoryFlags) => show(ctx, flags, await run(optionsOf(flags), ctx)));
  examples(command, [
    'roster invite history',
    'roster invite history --email parent@example.org',
    'roster invite history --file invites.csv',
    'roster invite history --limit 0 --json > history.json',
  ]);
}
