// `roster invite forget`: takes invitations out of roster's record of sent invitations, so a plan lists them
// and a file sends them again (a new campaign season, a family that asked for the e-mail again). The record
// is edited under its lock, by appending (src/invite/store/): runs holding it open see the change and go on;
// invitations another run is sending right now are never forgotten. Deleting the file instead would make
// every run that holds it lose track of what the others sent.
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { RosterError, UsageError } from '../../errors.js';
import { readInput } from '../../invite/file-check.js';
import { rowsOfSentFile } from '../../invite/invite-file.js';
import type { Destination } from '../../invite/store/index.js';
import {
  type ForgetOutcome,
  type InvitationParts,
  invitationIdentity,
  SentRecord,
  storePath,
} from '../../invite/store/index.js';
import { printJson } from '../../output/render.js';
import { displayText } from '../../output/safe-text.js';
import { consent } from '../../prompter.js';
import { SchoolDirectory } from '../../schools/directory.js';
import type { Session } from '../../session.js';
import { printable } from '../../values.js';
import { examples } from '../common.js';

export interface ForgetFlags {
  file?: string;
  email?: string;
  school?: string;
  all?: boolean;
  yes?: boolean;
  dryRun?: boolean;
  json?: boolean;
}

/** Which invitations the flags ask for. */
type Request =
  | { kind: 'file'; file: string }
  | { kind: 'match'; email?: string; school?: string }
  | { kind: 'all' };
/** ...with a file's rows read: their exact identities. */
type Selection = Exclude<Request, { kind: 'file' }> | { kind: 'file'; file: string; identities: Set<string> };

/** Lines of the list shown on a terminal; a pipe gets them all. */
const SHOWN = 50;

export function parseForgetFlags(flags: ForgetFlags, interactive: boolean): Request {
  const email = flags.email?.trim();
  const school = flags.school?.trim();
  const given = [flags.file !== undefined, email !== undefined || school !== undefined, Boolean(flags.all)];
  if (given.filter(Boolean).length !== 1)
    throw new UsageError(
      'Which invitations? Give --file FILE, or --email and/or --school, or --all (one of these).',
    );
  if (email === '' || school === '') throw new UsageError(`--${email === '' ? 'email' : 'school'} is empty.`);
  // Forgetting lets e-mails go out again: a script says so with --yes.
  if (!flags.dryRun && !flags.yes && !interactive)
    throw new UsageError(
      'roster invite forget asks before it forgets, and there is no terminal to ask on.',
      'Pass --yes to forget without asking, or --dry-run to list what would be forgotten.',
    );
  if (flags.all) return { kind: 'all' };
  if (flags.file !== undefined) return { kind: 'file', file: flags.file };
  return {
    kind: 'match',
    ...(email !== undefined && { email: email.toLowerCase() }),
    ...(school !== undefined && { school }),
  };
}

/**
 * The identities of an invitation file's rows, read as `invite send --file` read them: a school named by
 * name is the sourcedId the district's list gives it (its cache first), as the send recorded it.
 */
async function fileIdentities(ctx: Context, session: Session, file: string): Promise<Set<string>> {
  const content = await readInput(file, file);
  const lookup = await new SchoolDirectory(ctx, session).lookup();
  const rows = await rowsOfSentFile(content, file, lookup, 'nothing was forgotten');
  return new Set(rows.map((r) => invitationIdentity(r.body.email, r.body.schoolId, r.body.schoolYearId)));
}

const identityOf = (p: InvitationParts) => invitationIdentity(p.email, p.schoolId, p.schoolYearId);

function picker(selection: Selection): (p: InvitationParts) => boolean {
  switch (selection.kind) {
    case 'all':
      return () => true;
    case 'file':
      return (p) => selection.identities.has(identityOf(p));
    case 'match':
      return (p) =>
        (selection.email === undefined || p.email === selection.email) &&
        (selection.school === undefined || p.schoolId === selection.school);
  }
}

/** What a forget came to: the JSON report's fields, and which way it went. */
export interface ForgetResult extends ForgetOutcome {
  kind: 'no-record' | 'nothing' | 'dry-run' | 'forgot';
  /** roster's record of sent invitations for the destination. */
  record: string;
  destination: Destination;
  dryRun: boolean;
  /** How many were listed to be forgotten (dry-run, forgot). */
  listed: number;
  /** Forgot: how many of those listed another run had forgotten meanwhile. */
  gone?: number;
  /** --school matched nothing: the line naming the school ids the record holds. */
  schoolIds?: string;
}

/** Asked once the invitations to forget are known, before any is: the list shown, and the question. */
export interface ForgetHooks {
  beforeForget(preview: ForgetOutcome): Promise<void>;
}

/**
 * Forgets the invitations the flags ask for in roster's record for the run's destination (with dryRun, only
 * finds them); invitations another run is sending stay, said on stderr.
 */
export async function run(flags: ForgetFlags, ctx: Context, hooks: ForgetHooks): Promise<ForgetResult> {
  const request = parseForgetFlags(flags, ctx.interactive);
  const session = await ctx.session();
  const selection: Selection =
    request.kind === 'file'
      ? { ...request, identities: await fileIdentities(ctx, session, request.file) }
      : request;
  const destination: Destination = { baseUrl: session.baseUrl, clientId: session.settings.clientId ?? '' };
  const path = storePath(ctx.paths.stateDir, destination);
  const base = { record: path, destination, dryRun: Boolean(flags.dryRun), listed: 0 };
  const record = await SentRecord.openIfAny(ctx.paths.stateDir, destination);
  if (!record) return { ...base, kind: 'no-record', forgotten: [], inFlight: [] };
  try {
    return await forgetIn(record, selection, ctx, hooks, base);
  } finally {
    await record.close();
  }
}

type ResultBase = Pick<ForgetResult, 'record' | 'destination' | 'dryRun' | 'listed'>;

async function forgetIn(
  record: SentRecord,
  selection: Selection,
  ctx: Context,
  hooks: ForgetHooks,
  base: ResultBase,
): Promise<ForgetResult> {
  const preview = await record.forget(picker(selection), false);
  sayInFlight(ctx, preview);
  if (selection.kind === 'file') sayNotRecorded(ctx, selection, preview);
  const n = preview.forgotten.length;
  if (n === 0) {
    const school = selection.kind === 'match' ? selection.school : undefined;
    const schoolIds = school === undefined ? undefined : await schoolIdsHint(record, school);
    return { ...base, kind: 'nothing', ...preview, ...(schoolIds && { schoolIds }) };
  }
  await hooks.beforeForget(preview);
  if (base.dryRun) return { ...base, kind: 'dry-run', ...preview, listed: n };
  // Exactly what was shown, less any that another run started sending since.
  const shown = new Set(preview.forgotten.map(identityOf));
  const done = await record.forget((p) => shown.has(identityOf(p)), true);
  // Those in flight at the first look, and any of the rest that another run started sending since.
  sayInFlight(ctx, done);
  const inFlight = [...preview.inFlight, ...done.inFlight];
  const gone = n - done.forgotten.length - done.inFlight.length;
  return { ...base, kind: 'forgot', forgotten: done.forgotten, inFlight, listed: n, gone };
}

/** What a forget came to: --json's report on stdout, a line on stderr, and exit 5 for those in flight. */
function show(ctx: Context, flags: ForgetFlags, result: ForgetResult): void {
  if (flags.json) printJson(ctx, report(result));
  ctx.log.info(summaryLine(result));
  if (result.schoolIds) ctx.log.info(result.schoolIds);
  if (result.kind === 'forgot' || (result.kind === 'nothing' && !result.dryRun)) stopIfInFlight(result);
}

function summaryLine(result: ForgetResult): string {
  const { destination, record, listed } = result;
  const where = `roster's record of invitations sent to ${destination.baseUrl} as ${printable(destination.clientId, 80)}`;
  const done = result.forgotten.length;
  const gone = result.gone ?? 0;
  switch (result.kind) {
    case 'no-record':
      return `Nothing to forget: ${where} is empty (${record}).`;
    case 'nothing':
      return `Nothing to forget in ${where}.`;
    case 'dry-run':
      return `Dry run: ${listed} invitation${listed === 1 ? '' : 's'} of ${where} would be forgotten; nothing was.`;
    case 'forgot':
      return `Forgot ${done} invitation${done === 1 ? '' : 's'} of ${where} (${record})${gone > 0 ? `; ${gone} had been forgotten meanwhile` : ''}.`;
  }
}

/** On a terminal: the list of what will be forgotten, then the question (unless --dry-run or --yes). */
function forgetQuestion(ctx: Context, flags: ForgetFlags): ForgetHooks {
  return {
    async beforeForget(preview) {
      if (!flags.json) list(ctx, preview);
      if (flags.dryRun || flags.yes) return;
      const n = preview.forgotten.length;
      await consent(
        ctx,
        `Forget ${n === 1 ? 'this invitation' : `these ${n} invitations`}? roster will then plan and send ${n === 1 ? 'it' : 'them'} again when asked.`,
        'nothing was forgotten',
      );
    },
  };
}

/**
 * --school takes a sourcedId, as the record keeps it; a school's name or a mistyped id matches nothing,
 * which alone would read as if nothing had been sent there. The line naming the ids the record does hold.
 */
async function schoolIdsHint(record: SentRecord, school: string): Promise<string | undefined> {
  const all = await record.forget(() => true, false);
  const ids = [...new Set([...all.forgotten, ...all.inFlight].map((p) => p.schoolId))];
  // The school is there: what matched nothing was the e-mail.
  if (ids.length === 0 || ids.includes(school)) return undefined;
  const shown = ids.slice(0, 5).map((id) => displayText(id));
  return `--school takes a school's sourcedId, as the record keeps it; it holds invitations for ${shown.join(', ')}${ids.length > 5 ? ` and ${ids.length - 5} more` : ''}.`;
}

/** Exit 5 when some invitations asked for were being sent, and so stay recorded. */
function stopIfInFlight(outcome: ForgetOutcome): void {
  const n = outcome.inFlight.length;
  if (n === 0) return;
  throw new RosterError(
    'partial',
    `${n} invitation${n === 1 ? ' was' : 's were'} being sent by another roster run and ${n === 1 ? 'was' : 'were'} not forgotten`,
    'Run the same command again once that run is done.',
  );
}

function sayInFlight(ctx: Context, outcome: ForgetOutcome): void {
  for (const f of outcome.inFlight)
    ctx.log.warn(
      `${displayText(f.email)} at ${displayText(f.schoolId)} is being sent right now by another roster run (pid ${f.pid}${f.file ? `, ${displayText(f.file)}` : ''}): it cannot be forgotten; that run records it when it is answered.`,
    );
}

function sayNotRecorded(
  ctx: Context,
  selection: Extract<Selection, { kind: 'file' }>,
  outcome: ForgetOutcome,
): void {
  const found = new Set([...outcome.forgotten, ...outcome.inFlight].map(identityOf));
  const missing = [...selection.identities].filter((id) => !found.has(id)).length;
  if (missing > 0)
    ctx.log.info(
      `${missing} row${missing === 1 ? '' : 's'} of ${selection.file} ${missing === 1 ? 'is' : 'are'} not in roster's record (never confirmed sent by roster, or already forgotten).`,
    );
}

/** The invitations to forget: tab-separated in a pipe, every one; on a terminal the first SHOWN. */
function list(ctx: Context, outcome: ForgetOutcome): void {
  const lines = outcome.forgotten.map((f) =>
    [f.email, f.schoolId, f.schoolYearId ?? '', f.sentAt].map((v) => displayText(v)).join('\t'),
  );
  const shown = ctx.io.stdoutIsTTY ? lines.slice(0, SHOWN) : lines;
  ctx.io.stdout.write(`${shown.join('\n')}\n`);
  if (shown.length < lines.length)
    ctx.io.stdout.write(`… and ${lines.length - shown.length} more (--dry-run --json lists them all)\n`);
}

/** The --json report. */
function report({ record, destination, dryRun, forgotten, inFlight }: ForgetResult) {
  return { record, destination, dryRun, forgotten, inFlight };
}

export function register(invite: Command, ctx: Context): void {
  const command = invite
    .command('forget')
    .summary("take invitations out of roster's record of sent invitations, so they can be sent again")
    .description(
      "Take invitations out of roster's record of sent invitations for the current destination (base URL " +
        'and client id): campaign plans list them again and `invite send --file` sends them again. By the ' +
        'rows of an invitation CSV (--file), by e-mail and/or school, or all of them. Safe while other ' +
        'roster runs send: the record is edited under its lock, and invitations being sent right now are ' +
        'never forgotten. Shows what it will forget and asks (--yes skips the question).',
    )
    .option('--file <file>', 'the invitations of this CSV (email, schoolId, schoolYearId), e.g. a plan')
    .option('--email <email>', 'every invitation to this e-mail address (any letter case)')
    .option('--school <id>', 'every invitation for this school (its sourcedId)')
    .option('--all', 'every invitation of the destination (a new campaign season)')
    .option('--dry-run', 'list what would be forgotten; forget nothing')
    .option('-y, --yes', 'forget without asking (needed without a terminal)')
    .option('--json', 'print the record, the invitations forgotten and those in flight as JSON')
    .action(async (flags: ForgetFlags) =>
      show(ctx, flags, await run(flags, ctx, forgetQuestion(ctx, flags))),
    );
  examples(command, [
    'roster invite forget --email parent@example.org --dry-run',
    'roster invite forget --file reenrol-2025.csv',
    'roster invite forget --all --yes --json > forgotten.json',
  ]);
}
