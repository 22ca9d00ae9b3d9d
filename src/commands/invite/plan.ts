// `roster invite plan`: the invitations a campaign needs, from the families the roster already knows. The
// school's students are read first, then the district's users streamed past the planner (src/campaign/),
// which keeps only the guardians linked to them; for --all-schools one read of the district's users serves
// both. The plan is reviewed (a table and a summary on a terminal,
// a CSV, --json) and sent by `invite send --file`, the bulk sender with its journal: never by anything else.
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { alreadySent, invitationIdentity } from '../../campaign/already-sent.js';
import { gradeKey, gradeProblems, parseGrades, sortGrades, typedGrades } from '../../campaign/grades.js';
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
import { isStudent, type Person, personOf } from '../../campaign/people.js';
import { type CampaignPlan, CampaignPlanner, type PlanScope } from '../../campaign/planner.js';
import { type ListRead, streamList } from '../../campaign/read.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { outputFileFolder, privateFolder, shell, writePrivateFile } from '../../files.js';
import { favourMemory, PLAN_HEAP } from '../../heap.js';
import { MAX_ID_LENGTH } from '../../invite/invitation.js';
import { encodePathSegment, type ReadQuery } from '../../oneroster/query.js';
import { onerosterService } from '../../oneroster/service.js';
import { printJson } from '../../output/render.js';
import type { Session } from '../../session.js';
import { hiddenCharacter, printable } from '../../values.js';
import { examples, repeatable } from '../common.js';
import { fileSendOptions } from './options.js';

export interface PlanFlags {
  school?: string[];
  allSchools?: boolean;
  grade?: string[];
  roles?: string;
  count?: string;
  schoolYearId?: string;
  out?: string;
  json?: boolean;
  uncoveredCsv?: string;
  includeInvited?: boolean;
  sentByUserId?: string;
  refreshSchools?: boolean;
  maxChildren?: string;
}

/** The roles OneRoster gives to the people linked to a student as `agents`. */
const AGENT_ROLES = ['parent', 'guardian', 'relative'];
const DEFAULT_ROLES = 'parent,guardian';
const PAGE_SIZE = 1000;
const CONCURRENCY = 4;

/** What the flags ask for, checked before any request. */
export interface PlanRequest {
  schools: string[] | 'all';
  grades?: Set<string>;
  /** --grade codes as typed, for messages. */
  gradeCodes?: string[];
  roles: Set<string>;
  count: PlanScope['count'];
  schoolYearId?: string;
  maxChildren: number;
  out?: string;
  uncoveredCsv?: string;
}

export function parsePlanFlags(flags: PlanFlags): PlanRequest {
  const schools = (flags.school ?? []).map((s) => s.trim());
  if (flags.allSchools && schools.length > 0)
    throw new UsageError('Give --school or --all-schools, not both.');
  if (!flags.allSchools && schools.length === 0)
    throw new UsageError(
      'Which school? Give --school (a sourcedId, name or identifier; repeatable) or --all-schools.',
    );
  if (schools.some((s) => s === '')) throw new UsageError('--school is empty.');
  const roles = new Set(
    (flags.roles ?? DEFAULT_ROLES)
      .split(',')
      .map((r) => r.trim().toLowerCase())
      .filter(Boolean),
  );
  const unknown = [...roles].filter((r) => !AGENT_ROLES.includes(r));
  if (roles.size === 0 || unknown.length > 0)
    throw new UsageError(
      `Invalid --roles "${printable(flags.roles ?? '', 40)}": give some of ${AGENT_ROLES.join(', ')}, separated by commas.`,
    );
  const count = flags.count ?? 'in-scope';
  if (count !== 'in-scope' && count !== 'school')
    throw new UsageError(`Invalid --count "${printable(count, 20)}": expected in-scope or school.`);
  const year = flags.schoolYearId?.trim();
  if (year !== undefined) {
    const hidden = hiddenCharacter(flags.schoolYearId ?? '');
    if (year === '' || hidden || year.length > MAX_ID_LENGTH)
      throw new UsageError(
        `Invalid --school-year-id "${printable(year, 40)}"${hidden ? `: it contains ${hidden}` : ''}.`,
      );
  }
  const maxText = (flags.maxChildren ?? String(DEFAULT_MAX_CHILDREN_PER_EMAIL)).trim();
  const maxChildren = Number(maxText);
  if (!/^\d+$/.test(maxText) || !Number.isSafeInteger(maxChildren) || maxChildren < 1)
    throw new UsageError(
      `Invalid --max-children "${printable(flags.maxChildren ?? '', 20)}": expected a whole number of 1 or more.`,
    );
  for (const [flag, value] of [
    ['--out', flags.out],
    ['--uncovered-csv', flags.uncoveredCsv],
  ] as const) {
    if (value !== undefined && (value.trim() === '' || value === '-'))
      throw new UsageError(`${flag} needs a file path.`);
  }
  if (flags.out !== undefined && flags.out === flags.uncoveredCsv)
    throw new UsageError('--out and --uncovered-csv must be two files.');
  return {
    schools: flags.allSchools ? 'all' : [...new Set(schools)],
    grades: parseGrades(flags.grade),
    ...(flags.grade && flags.grade.length > 0 && { gradeCodes: typedGrades(flags.grade) }),
    roles,
    count,
    maxChildren,
    ...(year !== undefined && { schoolYearId: year }),
    ...(flags.out !== undefined && { out: resolve(flags.out) }),
    ...(flags.uncoveredCsv !== undefined && { uncoveredCsv: resolve(flags.uncoveredCsv) }),
  };
}

/** Fields the plan reads of each user, per version: less to send and to parse on a district's worth. */
const FIELDS = {
  '1.1': ['sourcedId', 'status', 'givenName', 'familyName', 'email', 'role', 'orgs', 'grades', 'agents'],
  '1.2': ['sourcedId', 'status', 'givenName', 'familyName', 'email', 'roles', 'grades', 'agents'],
};

export async function makePlan(
  ctx: Context,
  session: Session,
  request: PlanRequest,
  includeInvited: boolean,
  refreshSchools: boolean,
): Promise<{ plan: CampaignPlan; source: string }> {
  const { SchoolDirectory } = await import('../../schools/directory.js');
  const schools = await new SchoolDirectory(ctx, session, refreshSchools).selection(request.schools);
  const service = onerosterService(session);
  const fields = FIELDS[service.version];
  const today = new Date(ctx.now()).toISOString().slice(0, 10);
  const planner = new CampaignPlanner({ ...request, schools });
  const sent = await alreadySent(ctx, session, session.settings.clientId ?? '');
  await favourMemory((line) => ctx.log.debug(line), PLAN_HEAP);

  // The grades the students read are in (key → a spelling): what --grade is checked against.
  const grades = new Map<string, string>();
  // Each spelling once: a district's 50,000 students spell a dozen grades.
  const spellings = new Set<string>();
  const noteGrades = (person: Person) => {
    for (const grade of person.grades) {
      if (spellings.has(grade)) continue;
      spellings.add(grade);
      const key = gradeKey(grade);
      if (!grades.has(key)) grades.set(key, grade.trim());
    }
  };
  const usersRead: ListRead = {
    path: 'users',
    what: "the district's users",
    query: { limit: PAGE_SIZE, fields },
    concurrency: CONCURRENCY,
  };
  if (request.schools === 'all') {
    // One read of the district's users serves both sides (the students are users too): the cost of the
    // plan is that of the read (issue #23). Each student is kept as it comes, everyone linked once it ends.
    await streamList(ctx, service, usersRead, (record) => {
      const person = personOf(record, today);
      if (!person) return;
      if (person.active && isStudent(person)) noteGrades(person);
      planner.addUser(person);
    });
    checkGrades(ctx, request, grades, undefined);
    planner.linkUsers();
  } else {
    const studentQuery: ReadQuery = { limit: PAGE_SIZE, filter: "status='active'", fields };
    for (const [id, name] of schools)
      await streamList(
        ctx,
        service,
        {
          path: `schools/${encodePathSegment(id)}/students`,
          what: `the students of ${printable(name, 80)}`,
          query: studentQuery,
          concurrency: CONCURRENCY,
        },
        (record) => {
          const person = personOf(record, today);
          if (!person) return;
          noteGrades(person);
          planner.addStudent(person);
        },
      );
    // Before the district's users are read: a grade no one could be in is a typo, not an empty campaign.
    checkGrades(ctx, request, grades, [...schools.values()]);
    ctx.log.debug(`campaign: ${planner.studentCount} students kept; reading the district's users`);
    await streamList(ctx, service, usersRead, (record) => {
      const person = personOf(record, today);
      if (person) planner.offer(person);
    });
  }
  return {
    plan: planner.plan(invitationIdentity, (identity) => sent.by(identity), includeInvited),
    source: sent.source,
  };
}

/**
 * --grade against the grades of the students read: a code neither of the vocabulary (KG, 01 … 12, PK, …, and
 * the aliases K, 00, Kindergarten, 1 for 01) nor used by those students is a usage error listing their
 * grades; a known grade nobody is in is a warning naming it.
 */
function checkGrades(
  ctx: Context,
  request: PlanRequest,
  seen: ReadonlyMap<string, string>,
  schoolNames: string[] | undefined,
): void {
  if (!request.gradeCodes) return;
  const { unknown, empty } = gradeProblems(request.gradeCodes, seen);
  const whose =
    schoolNames === undefined
      ? "the district's active students"
      : `the active students of ${schoolNames.map((n) => printable(n, 80)).join(', ')}`;
  const quoted = (codes: string[]) => codes.map((c) => `"${printable(c, 40)}"`).join(', ');
  if (unknown.length > 0) {
    // At most 30 named: a district's free-text grades could fill a screen.
    const sorted = sortGrades(seen.values());
    const have = sorted.slice(0, 30).map((g) => printable(g, 40));
    if (sorted.length > 30) have.push(`and ${sorted.length - 30} more`);
    throw new UsageError(
      `--grade ${quoted(unknown)}: not a grade code; ${whose} are in ${have.length > 0 ? `grades ${have.join(', ')}` : 'no grade'}.`,
      'Give grade codes such as KG, 01 … 12 (kindergarten is KG, also K, 00 or Kindergarten); nothing was sent.',
    );
  }
  for (const code of empty)
    ctx.log.warn(`no one of ${whose} is in grade ${printable(code, 40)}; the plan has none of that grade.`);
}

async function run(flags: PlanFlags, ctx: Context): Promise<void> {
  const request = parsePlanFlags(flags);
  // The folders of the files asked for, before any request: one rule for every file roster writes.
  for (const file of [request.out, request.uncoveredCsv]) {
    if (file) await outputFileFolder(file, (line) => ctx.log.warn(line));
  }
  const session = await ctx.session();
  const { settings } = session;
  const { plan, source } = await makePlan(
    ctx,
    session,
    request,
    Boolean(flags.includeInvited),
    Boolean(flags.refreshSchools),
  );
  const forExcel = { forExcel: true };
  if (request.out) await writePrivateFile(request.out, planCsvPieces(plan, request.schoolYearId), forExcel);
  if (request.uncoveredCsv) await writePrivateFile(request.uncoveredCsv, uncoveredCsv(plan), forExcel);
  if (flags.json) printJson(ctx, planJson(plan, { alreadyInvited: source }));
  else if (!request.out && !ctx.io.stdoutIsTTY) ctx.io.stdout.write(planCsv(plan, request.schoolYearId));

  const ask = ctx.interactive && !flags.json && plan.invitations.length > 0;
  if (ctx.io.stderrIsTTY && plan.invitations.length > 0 && !flags.json)
    ctx.io.stderr.write(await previewTable(plan, { width: ctx.io.columns, color: ctx.color }));
  for (const line of summaryLines(plan, Boolean(flags.includeInvited))) ctx.log.info(line);
  const crowded = crowdedWarning(plan, request.maxChildren);
  if (crowded) ctx.log.warn(crowded);
  ctx.log.info(`Already invited: checked against ${source}.`);
  if (request.out) ctx.log.info(`Plan written to ${request.out}.`);
  if (request.uncoveredCsv) ctx.log.info(`Uncovered students written to ${request.uncoveredCsv}.`);
  if (!ask) return;

  const sender = flags.sentByUserId ?? settings.profile.sentByUserId;
  const n = plan.invitations.length;
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

/** A plan sent from the terminal without --out is kept in roster's state folder, beside the journals. */
async function savePlan(ctx: Context, plan: CampaignPlan, schoolYearId: string | undefined): Promise<string> {
  const folder = `${ctx.paths.stateDir}/plans`;
  await privateFolder(folder, ctx.paths.stateDir);
  const stamp = new Date(ctx.now()).toISOString().replace(/[-:]/g, '').replace(/\..*/, 'Z');
  // A random suffix: two plans sent in one second must not share a file, hence a journal (the second would
  // be taken for a resume of the first and send nothing).
  const file = `${folder}/plan-${stamp}-${randomBytes(3).toString('hex')}.csv`;
  await writePrivateFile(file, planCsvPieces(plan, schoolYearId), { forExcel: true });
  ctx.log.info(`Plan saved to ${file}.`);
  return file;
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
    .option('--school <school>', 'sourcedId, name or identifier of a school (repeatable)', repeatable)
    .option('--all-schools', 'every school of the district')
    .option(
      '--grade <grades>',
      "only students in these grades, e.g. KG,01 (repeatable; K, 00 and Kindergarten are KG; a code neither known nor the school's is refused)",
      repeatable,
    )
    .option('--roles <roles>', `who is invited: some of ${AGENT_ROLES.join(', ')} (default ${DEFAULT_ROLES})`)
    .option(
      '--count <how>',
      'in-scope or school: what studentCount counts (default in-scope: the children in the plan; school: all their children at that school)',
    )
    .option('--school-year-id <id>', 'school year of the invitations (a column of the plan)')
    .option('--out <file>', 'write the plan as a CSV for roster invite send --file')
    .option('--json', 'print the plan, the uncovered students and the skipped invitations as JSON')
    .option('--uncovered-csv <file>', 'write the students left out, with their reasons')
    .option('--include-invited', 'list invitations already sent too, marked, for a deliberate re-send')
    .option('--sent-by-user-id <id>', "when sending from the terminal: the sender (default: the profile's)")
    .option('--refresh-schools', "read the district's schools again instead of using the day-old cache")
    .option(
      '--max-children <n>',
      `an e-mail with more children than this at one school is left out and warned about (default ${DEFAULT_MAX_CHILDREN_PER_EMAIL})`,
    )
    .action(async (flags: PlanFlags) => run(flags, ctx));
  examples(command, [
    'roster invite plan --school "Alder Elementary School"',
    'roster invite plan --school org-sch-1 --grade KG --out roundup.csv --uncovered-csv fix-in-sis.csv',
    'roster invite send --file roundup.csv --sent-by-user-id adm-001',
    'roster invite plan --all-schools --school-year-id as-2026-27 --out reenrol.csv --json > reenrol.json',
  ]);
}
