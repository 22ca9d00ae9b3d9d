// A campaign's plan made (`roster invite plan`): the school's students are read first, then the district's
// users streamed past the planner, which keeps only the guardians linked to them; for --all-schools one read
// of the district's users serves both. The command (src/commands/invite/plan.ts) parses the flags into a
// PlanRequest and shows the plan; sending it is `invite send --file`'s, never this module's.
import { randomBytes } from 'node:crypto';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { privateFolder, writePrivateFile } from '../files.js';
import { keepHeapSmall, PLAN_HEAP } from '../heap.js';
import { encodePathSegment, type ReadQuery } from '../oneroster/query.js';
import { onerosterService } from '../oneroster/service.js';
import type { Session } from '../session.js';
import { printable } from '../values.js';
import { alreadySent, invitationIdentity } from './already-sent.js';
import { gradeKey, gradeProblems, sortGrades } from './grades.js';
import { planCsvPieces } from './output.js';
import { isStudent, type Person, personOf } from './people.js';
import { type CampaignPlan, CampaignPlanner, type PlanScope } from './planner.js';
import { type ListRead, streamList } from './read.js';

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
  const { SchoolDirectory } = await import('../schools/directory.js');
  const schools = await new SchoolDirectory(ctx, session, refreshSchools).selection(request.schools);
  const service = onerosterService(session);
  const fields = FIELDS[service.version];
  const today = new Date(ctx.now()).toISOString().slice(0, 10);
  const planner = new CampaignPlanner({ ...request, schools });
  const sent = await alreadySent(ctx, session, session.settings.clientId ?? '');
  await keepHeapSmall((line) => ctx.log.debug(line), PLAN_HEAP);

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

/** A plan sent from the terminal without --out is kept in roster's state folder, beside the journals. */
export async function savePlan(
  ctx: Context,
  plan: CampaignPlan,
  schoolYearId: string | undefined,
): Promise<string> {
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
