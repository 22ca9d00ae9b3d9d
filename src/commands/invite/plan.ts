// `roster invite plan`: the invitations a campaign needs, from the families the roster already knows
// (src/campaign/plan.ts makes the plan). The plan is reviewed (a table and a summary on a terminal, a CSV,
// --json) and sent by `invite send --file`, the bulk sender with its journal: never by anything else.
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { parseGrades, typedGrades } from '../../campaign/grades.js';
import { DEFAULT_MAX_CHILDREN_PER_EMAIL } from '../../campaign/limits.js';
import {
  crowdedWarning,
  planCsv,
  planCsvPieces,
  planJson,
  previewTable,
  summaryLines,
  uncoveredCsv,
} from '../../campaign/output.js';
import { makePlan, type PlanRequest, savePlan } from '../../campaign/plan.js';
import type { CampaignPlan } from '../../campaign/planner.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { outputFileFolder, shell, writePrivateFile } from '../../files.js';
import { MAX_ID_LENGTH } from '../../invite/invitation.js';
import { printJson } from '../../output/render.js';
import { hiddenCharacter, printable } from '../../values.js';
import { choice, examples, repeatable } from '../common.js';
import { fileSendOptions } from './options.js';

/** Flags as commander hands them over, each value parsed by its argParser. */
export interface PlanFlags {
  school?: string[];
  allSchools?: boolean;
  grade?: string[];
  roles?: Set<string>;
  count?: PlanRequest['count'];
  schoolYearId?: string;
  out?: string;
  json?: boolean;
  uncoveredCsv?: string;
  includeInvited?: boolean;
  sentByUserId?: string;
  refreshSchools?: boolean;
  maxChildren?: number;
}

/** The roles OneRoster gives to the people linked to a student as `agents`. */
const AGENT_ROLES = ['parent', 'guardian', 'relative'];
const DEFAULT_ROLES = 'parent,guardian';

/** --roles: some of AGENT_ROLES, separated by commas. */
function parseRoles(value: string): Set<string> {
  const roles = new Set(
    value
      .split(',')
      .map((r) => r.trim().toLowerCase())
      .filter(Boolean),
  );
  if (roles.size === 0 || [...roles].some((r) => !AGENT_ROLES.includes(r)))
    throw new UsageError(
      `Invalid --roles "${printable(value, 40)}": give some of ${AGENT_ROLES.join(', ')}, separated by commas.`,
    );
  return roles;
}

/** --school: repeatable, each value trimmed and never empty. */
const schoolFlag = (value: string, previous?: string[]): string[] => {
  if (value.trim() === '') throw new UsageError('--school is empty.');
  return repeatable(value.trim(), previous);
};

/** --school-year-id: an id, trimmed. */
function parseSchoolYear(value: string): string {
  const year = value.trim();
  const hidden = hiddenCharacter(value);
  if (year === '' || hidden || year.length > MAX_ID_LENGTH)
    throw new UsageError(
      `Invalid --school-year-id "${printable(year, 40)}"${hidden ? `: it contains ${hidden}` : ''}.`,
    );
  return year;
}

/** --max-children: a whole number of 1 or more. */
function parseMaxChildren(value: string): number {
  const text = value.trim();
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n) || n < 1)
    throw new UsageError(
      `Invalid --max-children "${printable(value, 20)}": expected a whole number of 1 or more.`,
    );
  return n;
}

/** --out and --uncovered-csv: a file's path (stdout is where the plan goes without --out). */
const filePath = (flag: string) => (value: string) => {
  if (value.trim() === '' || value === '-') throw new UsageError(`${flag} needs a file path.`);
  return value;
};

/** What the flags ask for, checked before any request: what their argParsers cannot check alone. */
export function parsePlanFlags(flags: PlanFlags): PlanRequest {
  const schools = flags.school ?? [];
  if (flags.allSchools && schools.length > 0)
    throw new UsageError('Give --school or --all-schools, not both.');
  if (!flags.allSchools && schools.length === 0)
    throw new UsageError(
      'Which school? Give --school (a sourcedId, name or identifier; repeatable) or --all-schools.',
    );
  if (flags.out !== undefined && flags.out === flags.uncoveredCsv)
    throw new UsageError('--out and --uncovered-csv must be two files.');
  return {
    schools: flags.allSchools ? 'all' : [...new Set(schools)],
    grades: parseGrades(flags.grade),
    ...(flags.grade && flags.grade.length > 0 && { gradeCodes: typedGrades(flags.grade) }),
    roles: flags.roles ?? parseRoles(DEFAULT_ROLES),
    count: flags.count ?? 'in-scope',
    maxChildren: flags.maxChildren ?? DEFAULT_MAX_CHILDREN_PER_EMAIL,
    ...(flags.schoolYearId !== undefined && { schoolYearId: flags.schoolYearId }),
    ...(flags.out !== undefined && { out: resolve(flags.out) }),
    ...(flags.uncoveredCsv !== undefined && { uncoveredCsv: resolve(flags.uncoveredCsv) }),
  };
}

export interface PlanResult {
  request: PlanRequest;
  plan: CampaignPlan;
  /** Where already-sent invitations were looked up, in words. */
  source: string;
}

/** The plan made, and written to the files asked for (--out, --uncovered-csv). */
export async function run(flags: PlanFlags, ctx: Context): Promise<PlanResult> {
  const request = parsePlanFlags(flags);
  // The folders of the files asked for, before any request: one rule for every file roster writes.
  for (const file of [request.out, request.uncoveredCsv]) {
    if (file) await outputFileFolder(file, (line) => ctx.log.warn(line));
  }
  const session = await ctx.session();
  const includeInvited = Boolean(flags.includeInvited);
  const { plan, source } = await makePlan(
    ctx,
    session,
    request,
    includeInvited,
    Boolean(flags.refreshSchools),
  );
  const forExcel = { forExcel: true };
  if (request.out) await writePrivateFile(request.out, planCsvPieces(plan, request.schoolYearId), forExcel);
  if (request.uncoveredCsv) await writePrivateFile(request.uncoveredCsv, uncoveredCsv(plan), forExcel);
  return { request, plan, source };
}

/** The plan shown: --json or a CSV on stdout (without --out, in a pipe), the preview and summary on stderr. */
async function show(ctx: Context, flags: PlanFlags, { request, plan, source }: PlanResult): Promise<void> {
  if (flags.json) printJson(ctx, planJson(plan, { alreadyInvited: source }));
  else if (!request.out && !ctx.io.stdoutIsTTY) ctx.io.stdout.write(planCsv(plan, request.schoolYearId));
  if (ctx.io.stderrIsTTY && plan.invitations.length > 0 && !flags.json)
    ctx.io.stderr.write(await previewTable(plan, { width: ctx.io.columns, color: ctx.color }));
  for (const line of summaryLines(plan, Boolean(flags.includeInvited))) ctx.log.info(line);
  const crowded = crowdedWarning(plan, request.maxChildren);
  if (crowded) ctx.log.warn(crowded);
  ctx.log.info(`Already invited: checked against ${source}.`);
  if (request.out) ctx.log.info(`Plan written to ${request.out}.`);
  if (request.uncoveredCsv) ctx.log.info(`Uncovered students written to ${request.uncoveredCsv}.`);
}

/**
 * On a terminal, with a sender: asked whether to send the plan now, through `invite send --file` (its
 * journal makes the send resumable); without a sender, how to send it.
 */
async function offerToSend(ctx: Context, flags: PlanFlags, { request, plan }: PlanResult): Promise<void> {
  const n = plan.invitations.length;
  if (!ctx.interactive || flags.json || n === 0) return;
  const settings = await ctx.settings();
  const sender = flags.sentByUserId ?? settings.profile.sentByUserId;
  if (!sender?.trim()) {
    ctx.log.info(
      `To send them: save the plan with --out FILE, then run \`roster invite send --file FILE --sent-by-user-id ID\` (or pass --sent-by-user-id here).`,
    );
    return;
  }
  const yes = await (await ctx.prompter('nothing was sent')).confirm(
    `Send these ${n} invitation${n === 1 ? '' : 's'} now?`,
    false,
  );
  if (!yes) {
    ctx.log.info('Nothing was sent.');
    return;
  }
  // The plan on disk before anything is sent: the journal of `invite send --file` belongs to that file, so
  // an interrupted send is resumed with that command.
  const file = request.out ?? (await savePlan(ctx, plan, request.schoolYearId));
  // --include-invited listed already-sent invitations for a deliberate re-send: they go out again.
  const resendSent = Boolean(flags.includeInvited);
  ctx.log.info(
    `Resume or check this send with: roster invite send --file ${shell(file)} --sent-by-user-id ${shell(sender)}${resendSent ? ' --resend-sent' : ''}`,
  );
  const { sendFile } = await import('./file-send.js');
  await sendFile(fileSendOptions({ file, sentByUserId: sender, yes: true, resendSent }, settings), ctx);
}

export function register(invite: Command, ctx: Context): void {
  const command = invite
    .command('plan')
    .summary("plan a campaign: one invitation per family e-mail, from the roster's guardians")
    .description(
      'Plan the invitations of a campaign (re-enrolment, kindergarten round-up): the active students of ' +
        'the school(s), of the given grades, and the parents and guardians linked to them through agents ' +
        '(on either side). One invitation per e-mail, school and school year, counting the distinct children ' +
        'of everyone sharing that e-mail. Students without a reachable guardian e-mail, e-mails invite send ' +
        'would refuse and invitations already sent are left out, each with its reason.\n\n' +
        'The plan is written as a CSV that `roster invite send --file` sends as it is (--out), as JSON ' +
        '(--json), or as a CSV on stdout; on a terminal a preview is shown and you are asked whether to send ' +
        'it now, through `invite send --file` (its journal makes the send resumable).',
    )
    .option('--school <school>', 'sourcedId, name or identifier of a school (repeatable)', schoolFlag)
    .option('--all-schools', 'every school of the district')
    .option(
      '--grade <grades>',
      "only students in these grades, e.g. KG,01 (repeatable; K, 00 and Kindergarten are KG; a code neither known nor the school's is refused)",
      repeatable,
    )
    .option(
      '--roles <roles>',
      `who is invited: some of ${AGENT_ROLES.join(', ')} (default ${DEFAULT_ROLES})`,
      parseRoles,
    )
    .option(
      '--count <how>',
      'in-scope or school: what studentCount counts (default in-scope: the children in the plan; school: all their children at that school)',
      choice('--count', ['in-scope', 'school'] as const, 20),
    )
    .option('--school-year-id <id>', 'school year of the invitations (a column of the plan)', parseSchoolYear)
    .option('--out <file>', 'write the plan as a CSV for roster invite send --file', filePath('--out'))
    .option('--json', 'print the plan, the uncovered students and the skipped invitations as JSON')
    .option(
      '--uncovered-csv <file>',
      'write the students left out, with their reasons',
      filePath('--uncovered-csv'),
    )
    .option('--include-invited', 'list invitations already sent too, marked, for a deliberate re-send')
    .option('--sent-by-user-id <id>', "when sending from the terminal: the sender (default: the profile's)")
    .option('--refresh-schools', "read the district's schools again instead of using the day-old cache")
    .option(
      '--max-children <n>',
      `an e-mail with more children than this at one school is left out and warned about (default ${DEFAULT_MAX_CHILDREN_PER_EMAIL})`,
      parseMaxChildren,
    )
    .action(async (flags: PlanFlags) => {
      const result = await run(flags, ctx);
      await show(ctx, flags, result);
      await offerToSend(ctx, flags, result);
    });
  examples(command, [
    'roster invite plan --school "Alder Elementary School"',
    'roster invite plan --school org-sch-1 --grade KG --out roundup.csv --uncovered-csv fix-in-sis.csv',
    'roster invite send --file roundup.csv --sent-by-user-id adm-001',
    'roster invite plan --all-schools --school-year-id as-2026-27 --out reenrol.csv --json > reenrol.json',
  ]);
}
