// The campaign's plan from the people read: the school's students first (few), then the district's users
// streamed past `offer`, which keeps only those linked to one of those students, through `agents` on either
// side (the standard asks for both, servers often fill one). A read of the whole district's users serves
// both at once (addUser, then linkUsers). Then one invitation per (e-mail, school, school
// year): the e-mail trimmed and compared case-insensitively, its children the union over everyone sharing
// it. Everything left out is listed with its reason.
import { emailProblem } from '../invite/invitation.js';
import { inGrades } from './grades.js';
import { holds, type Person } from './people.js';

export interface PlanScope {
  /** The schools of the campaign: sourcedId → name. */
  schools: ReadonlyMap<string, string>;
  /** Grade keys asked for (grades.ts); undefined for every grade. */
  grades?: Set<string>;
  /** Roles that receive invitations (default parent, guardian). */
  roles: ReadonlySet<string>;
  /** `in-scope`: the children in scope; `school`: every child of theirs at that school. */
  count: 'in-scope' | 'school';
  schoolYearId?: string;
  /**
   * More children than this for one e-mail at one school is taken for a data error (limits.ts): that
   * invitation is left out, and its children are uncovered unless another e-mail reaches them.
   */
  maxChildren: number;
}

export interface Named {
  sourcedId: string;
  name: string;
}

/** Where an earlier invitation of the same identity was found. */
export type InvitedBy = 'roster' | 'server';

/** One invitation of the plan (not yet sent): an e-mail at a school, and the children it counts. */
export interface PlannedInvitation {
  email: string;
  schoolId: string;
  schoolYearId?: string;
  studentCount: number;
  guardians: Named[];
  /** The children counted in studentCount. */
  students: Named[];
  /** Set with --include-invited on an invitation sent before. */
  invitedBefore?: InvitedBy;
}

export interface Uncovered extends Named {
  reason: string;
}

export interface Skipped {
  email: string;
  schoolId: string;
  reason: string;
}

export interface SchoolSummary {
  schoolId: string;
  name: string;
  /** Students in scope at the school: reached by the invitations, by ones already sent, or uncovered. */
  inScope: number;
  invitations: number;
  /** In-scope students reached by those invitations. */
  students: number;
  uncovered: number;
  alreadyInvited: number;
  refused: number;
  /** E-mails left out for more children at the school than --max-children. */
  tooManyChildren: number;
}

/** An e-mail linked to more children at one school than the plan's limit: left out, and warned about. */
export interface Crowded {
  email: string;
  schoolId: string;
  /** Its children at that school. */
  children: number;
}

export interface CampaignPlan {
  invitations: PlannedInvitation[];
  uncovered: Uncovered[];
  skipped: Skipped[];
  crowded: Crowded[];
  schools: SchoolSummary[];
}

/** Why a student in scope is left out: one phrase per linked person, in this order (docs/invitations.md). */
export const REASONS = {
  noLink: 'no guardian linked',
  dangling: 'linked guardian not returned by the API',
  toBeDeleted: 'guardian to be deleted',
  roleEnded: 'guardian role ended',
  noEmail: 'guardian without e-mail',
  refusedEmail: 'guardian e-mail invite send would refuse',
  tooManyChildren: 'guardian e-mail with too many children (--max-children)',
} as const;
const ORDER: string[] = Object.values(REASONS);
export const notAsked = (role: string) => `linked ${role || 'user'} (not in --roles)`;
export const tooManyChildren = (children: number, max: number) =>
  `${children} children at this school, more than --max-children ${max}`;
export const alreadyInvited = (by: InvitedBy) =>
  by === 'roster' ? "already invited (roster's record)" : "already invited (the server's invitation list)";

interface Student extends Named {
  /** Schools of the campaign where the student is enrolled now. */
  schools: string[];
  /** In a grade asked for (else kept only for --count school). */
  inScope: boolean;
  agents: string[];
  /** The student as invitations list it, made once: a district's 50,000 children are in 80,000 of them. */
  named: Named | undefined;
  /** Reached by an invitation, or one sent before (step 2): marks rather than sets of a district's ids. */
  covered: boolean;
  /** The school of the last invitation that reached it (step 2 counts each student once per school). */
  reachedAt: string | undefined;
}

interface Agent extends Named {
  email: string;
  active: boolean;
  /** Holds one of the campaign's roles now. */
  guardian: boolean;
  /** Held one of them, ended (1.2 endDate). */
  ended: boolean;
  /** Its role when not a campaign one, for the reason. */
  role: string;
  /** Linked students kept (a few: arrays cost less than sets, and a district has tens of thousands). */
  students: string[];
}

/**
 * A user read before every student is known: an agent to be, its `students` still the ids its own record
 * links (its agents). Once linked it is the agent itself, `students` the students linked: one object per
 * user rather than two, of a district's 130,000.
 */
type Candidate = Agent;

/** The identity of an invitation (as roster's record of sent invitations keys it). */
export type Identity = (email: string, schoolId: string, schoolYearId?: string) => string;

/** Why `invite send` would refuse this address (invitation.ts's own check), or undefined when it would take it. */
export { emailProblem };

/** How the plan decides whether an invitation was sent before. */
interface PlanHistory {
  identity: Identity;
  invitedBy: (identity: string) => InvitedBy | undefined;
  /** --include-invited: invitations sent before stay in the plan, marked. */
  includeInvited: boolean;
}

export class CampaignPlanner {
  private readonly students = new Map<string, Student>();
  /** Agent id → the students whose own records name it. */
  private readonly named = new Map<string, string[]>();
  private readonly agents = new Map<string, Agent>();
  /** The users addUser kept, linked once the read is over (linkUsers). */
  private readonly candidates: Candidate[] = [];

  constructor(private readonly scope: PlanScope) {}

  get studentCount(): number {
    return this.students.size;
  }

  /** A student of the school(s) read: kept when active and enrolled now at one of the campaign's schools. */
  addStudent(person: Person): void {
    if (!person.active) return;
    const schools = this.campaignSchools(person);
    if (schools === undefined) return;
    const inScope = inGrades(person.grades, this.scope.grades);
    if (!inScope && this.scope.count !== 'school') return;
    const known = this.students.get(person.sourcedId);
    // Lists kept are of their exact size (newOf's grew by push, personOf's are): a district keeps 50,000
    // students.
    const agents = known ? newOf(known.agents, person.agents).slice() : distinct(person.agents);
    if (known) {
      known.schools = known.schools.concat(newOf(known.schools, schools));
      known.agents = known.agents.concat(agents);
    } else
      this.students.set(person.sourcedId, {
        sourcedId: person.sourcedId,
        name: person.name,
        schools: distinct(schools),
        inScope,
        agents,
        named: undefined,
        covered: false,
        reachedAt: undefined,
      });
    for (const agent of agents) {
      const students = this.named.get(agent);
      // Short lists copied one longer (exact sizes: one grown by push keeps room for 16 more, and a district
      // names 80,000 agents); long ones grown in place, as a copy each time would be quadratic.
      if (!students) this.named.set(agent, [person.sourcedId]);
      else if (students.length < SHORT) this.named.set(agent, students.concat(person.sourcedId));
      else students.push(person.sourcedId);
    }
  }

  /**
   * The campaign's schools where the person is a student now (as orgsAs, without its lists: every user of a
   * district passes here), or undefined.
   */
  private campaignSchools(person: Person): string[] | undefined {
    let schools: string[] | undefined;
    for (const { role, org } of person.roles) {
      if (role !== 'student' || !org || !this.scope.schools.has(org)) continue;
      if (schools) schools.push(org);
      else schools = [org];
    }
    return schools;
  }

  /** A user of the district: kept (compactly) only when linked to a student kept, on either side. */
  offer(person: Person): void {
    this.link(this.candidateOf(person));
  }

  /**
   * A user of a read of the whole district (--all-schools), which serves both sides at once: kept as a
   * student now (addStudent), and offered once every student is known (linkUsers), as a linked person may
   * come before the students that name it.
   */
  addUser(person: Person): void {
    this.addStudent(person);
    this.candidates.push(this.candidateOf(person));
  }

  /** Offers each user addUser kept, once the read is over. */
  linkUsers(): void {
    for (let c = this.candidates.pop(); c !== undefined; c = this.candidates.pop()) this.link(c);
  }

  /**
   * What of a user `link` needs: its agents, and what it would be kept as. personOf's lists are of their
   * exact size, and nothing changes them: its agents are kept as they are.
   */
  private candidateOf(person: Person): Candidate {
    const guardian = holds(person, this.scope.roles);
    return {
      sourcedId: person.sourcedId,
      name: person.name,
      email: person.email,
      active: person.active,
      guardian,
      ended: !guardian && person.endedRoles.some((r) => this.scope.roles.has(r)),
      role: person.roles[0]?.role ?? '',
      students: person.agents,
    };
  }

  /** Keeps the candidate as an agent when a student kept names it, or it names one. */
  private link(candidate: Candidate): void {
    const named = this.named.get(candidate.sourcedId) ?? NONE;
    const own = candidate.students;
    // Most name their students on both sides: then the list is the one of the students' side. (Short
    // lists only: includes() on long ones would be quadratic, newOf is not.)
    const bothSides =
      named.length + own.length <= SHORT && own.every((id) => named.includes(id) || !this.students.has(id));
    const linked = bothSides
      ? named.slice()
      : named.concat(
          newOf(
            named,
            own.filter((id) => this.students.has(id)),
          ),
        );
    if (linked.length === 0) return;
    const known = this.agents.get(candidate.sourcedId);
    if (known) {
      known.students = known.students.concat(newOf(known.students, linked));
      return;
    }
    candidate.students = linked;
    this.agents.set(candidate.sourcedId, candidate);
  }

  /**
   * The plan, in three steps: the guardians' e-mails grouped per identity (e-mail, school, school year);
   * each group an invitation or a reason it is left out; then every student in scope no invitation reaches,
   * with why.
   */
  plan(identity: Identity, invitedBy: PlanHistory['invitedBy'], includeInvited: boolean): CampaignPlan {
    const history: PlanHistory = { identity, invitedBy, includeInvited };
    // Every link a student's record names is in its agent's students by now: freed before the plan's peak.
    this.named.clear();
    // Step 2 marks the students: a plan made again starts afresh.
    for (const student of this.students.values()) {
      student.covered = false;
      student.reachedAt = undefined;
    }
    const tally = new SchoolTally(this.scope.schools);
    const { bySchool, refusing } = this.guardiansBySchool();
    const refused = new Map<string, Refused>();
    const decided: Decided = { invitations: [], skipped: [], crowded: [] };
    // School by school, in the campaign's order: one school's groups are held at a time (a district's
    // 80,000 at once were the plan's peak), each dropped as it becomes an invitation.
    for (const [schoolId, agents] of bySchool) {
      const groups = this.groupsAt(schoolId, agents, identity, refusing, refused);
      this.invitationsOf(groups, history, tally, decided);
    }
    // Refused e-mails in the order the guardians' ids and their schools meet them.
    const refusals = [...refused.values()].sort((a, b) => a.rank - b.rank || a.position - b.position);
    for (const r of refusals) tally.of(r.skipped.schoolId).refused++;
    const uncovered = this.uncoveredStudents(decided.crowded, identity, tally);
    return {
      invitations: decided.invitations,
      uncovered,
      skipped: [...refusals.map((r) => r.skipped), ...decided.skipped],
      crowded: decided.crowded,
      schools: tally.summaries(),
    };
  }

  /**
   * Step 1: the active guardians with an e-mail, in the order of their ids, by the campaign's school of
   * their children (in the campaign's order); and those whose e-mail `invite send` would refuse, with why
   * and their rank in that order.
   */
  private guardiansBySchool(): { bySchool: Map<string, Agent[]>; refusing: Map<Agent, Refusing> } {
    const bySchool = new Map<string, Agent[]>([...this.scope.schools.keys()].map((id) => [id, []]));
    const refusing = new Map<Agent, Refusing>();
    const agents = [...this.agents.values()].sort((a, b) => compare(a.sourcedId, b.sourcedId));
    for (let rank = 0; rank < agents.length; rank++) {
      const agent = agents[rank] as Agent;
      if (!agent.active || !agent.guardian || agent.email === '') continue;
      const problem = emailProblem(agent.email);
      if (problem !== undefined) refusing.set(agent, { rank, problem });
      for (const schoolId of this.schoolsOf(agent)) {
        const list = bySchool.get(schoolId);
        if (!list) throw new Error(`planner: ${schoolId} is not a school of the campaign`);
        list.push(agent);
      }
    }
    return { bySchool, refusing };
  }

  /**
   * Step 1, at one school: its guardians' children in scope, grouped by identity, in reverse order (the last
   * group first: step 2 pops them); refused e-mails set apart, each where it is first met.
   */
  private groupsAt(
    schoolId: string,
    agents: readonly Agent[],
    identity: Identity,
    refusing: ReadonlyMap<Agent, Refusing>,
    refused: Map<string, Refused>,
  ): Group[] {
    const { schoolYearId } = this.scope;
    // Every student kept is in scope, but with --count school and --grade (addStudent): a group's children
    // in scope are then its children at the school, one list.
    const allInScope = this.scope.count !== 'school' || this.scope.grades === undefined;
    const groups = new Map<string, Group>();
    for (const agent of agents) {
      const children = this.childrenAt(agent, schoolId);
      const inScope = allInScope ? children : children.filter((id) => this.students.get(id)?.inScope);
      if (inScope.length === 0) continue;
      const key = identity(agent.email, schoolId, schoolYearId);
      const refusal = refusing.get(agent);
      if (refusal !== undefined) {
        this.keepFirstRefusal(refused, key, refusal, agent, schoolId);
        continue;
      }
      const group = groups.get(key);
      if (group) joinGroup(group, agent, children, inScope);
      else groups.set(key, newGroup(key, agent, schoolId, children, allInScope ? undefined : inScope));
    }
    return lastFirst(groups);
  }

  /**
   * A refused e-mail at a school is reported once, where it is first met: by the lowest rank of its agents,
   * then the lowest position of the school among that agent's schools.
   */
  private keepFirstRefusal(
    refused: Map<string, Refused>,
    key: string,
    refusal: Refusing,
    agent: Agent,
    schoolId: string,
  ): void {
    const position = this.schoolsOf(agent).indexOf(schoolId);
    const first = refused.get(key);
    if (!first || refusal.rank < first.rank || (refusal.rank === first.rank && position < first.position))
      refused.set(key, {
        rank: refusal.rank,
        position,
        skipped: { email: agent.email, schoolId, reason: `e-mail refused: ${refusal.problem}` },
      });
  }

  /**
   * Step 2: each group an invitation, or left out: more children than --max-children (crowded), or sent
   * before (without --include-invited), added to `decided`. The students in scope some invitation reaches
   * are marked covered.
   */
  private invitationsOf(
    lastFirst: Group[],
    { invitedBy, includeInvited }: PlanHistory,
    tally: SchoolTally,
    { invitations, skipped, crowded }: Decided,
  ): void {
    const { scope } = this;
    for (let group = lastFirst.pop(); group !== undefined; group = lastFirst.pop()) {
      const { email, schoolId } = group;
      // A staff address on every student, or a teacher entered as a guardian: not a family.
      if (group.atSchool.length > scope.maxChildren) {
        const children = group.atSchool.length;
        crowded.push({ email, schoolId, children });
        skipped.push({ email, schoolId, reason: tooManyChildren(children, scope.maxChildren) });
        tally.of(schoolId).tooManyChildren++;
        continue;
      }
      const by = invitedBy(group.key);
      const summary = tally.of(schoolId);
      if (by !== undefined) summary.alreadyInvited++;
      const invited = by === undefined || includeInvited;
      // Its students in scope are covered, by this invitation or one sent before. The groups come school by
      // school (plan): a student is counted at a school the first time an invitation there reaches it.
      for (const id of group.inScope) {
        const student = this.student(id);
        student.covered = true;
        if (!invited || student.reachedAt === schoolId) continue;
        student.reachedAt = schoolId;
        summary.students++;
      }
      if (!invited) {
        skipped.push({ email, schoolId, reason: alreadyInvited(by) });
        continue;
      }
      // Sorted in place: the group is dropped once it is an invitation.
      const counted = (scope.count === 'school' ? group.atSchool : group.inScope).sort(compare);
      const guardians = group.guardians.map(named);
      const students = counted.map((id) => this.namedStudent(id));
      // Literals, not spreads of optional parts: a spread object takes twice the bytes, and a district's plan
      // holds 80,000 of these. (The keys in the order --json prints them.)
      const invitation: PlannedInvitation =
        scope.schoolYearId === undefined
          ? { email, schoolId, studentCount: counted.length, guardians, students }
          : {
              email,
              schoolId,
              schoolYearId: scope.schoolYearId,
              studentCount: counted.length,
              guardians,
              students,
            };
      if (by !== undefined) invitation.invitedBefore = by;
      invitations.push(invitation);
      summary.invitations++;
    }
  }

  /** Step 3: every student in scope that no invitation reaches, with the reasons of its linked people. */
  private uncoveredStudents(
    crowded: readonly Crowded[],
    identity: Identity,
    tally: SchoolTally,
  ): Uncovered[] {
    const { schoolYearId } = this.scope;
    const left: Student[] = [];
    for (const student of this.students.values()) {
      if (!student.inScope) continue;
      for (const schoolId of student.schools) tally.of(schoolId).inScope++;
      if (!student.covered) left.push(student);
    }
    // Only the students left out are sorted, and looked up on the guardians' side: a few of the district's.
    left.sort((a, b) => compare(a.sourcedId, b.sourcedId));
    const byStudent = this.guardianSideLinks(new Set(left.map((s) => s.sourcedId)));
    const crowdedKeys = new Set(crowded.map((c) => identity(c.email, c.schoolId, schoolYearId)));
    const isCrowded = (agent: Agent, student: Student) =>
      student.schools.some((schoolId) => crowdedKeys.has(identity(agent.email, schoolId, schoolYearId)));
    const uncovered: Uncovered[] = [];
    for (const student of left) {
      const reason = this.reasonFor(student, byStudent, isCrowded);
      uncovered.push({ sourcedId: student.sourcedId, name: student.name, reason });
      for (const schoolId of student.schools) tally.of(schoolId).uncovered++;
    }
    return uncovered;
  }

  /** A student kept by addStudent (every id a group or agent holds is one). */
  private student(id: string): Student {
    const student = this.students.get(id);
    if (!student) throw new Error(`planner: student ${id} was never added`);
    return student;
  }

  /** The student as invitations list it (one object however many list it). */
  private namedStudent(id: string): Named {
    const student = this.student(id);
    student.named ??= named(student);
    return student.named;
  }

  /** The campaign's schools an agent's children attend, in the order first met. */
  private schoolsOf(agent: Agent): string[] {
    const ids = agent.students;
    // Most agents' children are all at one school.
    const only = this.onlySchool(ids[0]);
    if (only !== undefined && ids.every((id, i) => i === 0 || this.onlySchool(id) === only)) return [only];
    const schools: string[] = [];
    for (const id of ids)
      for (const school of this.students.get(id)?.schools ?? [])
        if (!schools.includes(school)) schools.push(school);
    return schools;
  }

  /** An agent's children at a school, in its order: its own list when they are all there (most families). */
  private childrenAt(agent: Agent, schoolId: string): string[] {
    const ids = agent.students;
    if (ids.every((id) => this.onlySchool(id) === schoolId)) return ids;
    return ids.filter((id) => this.students.get(id)?.schools.includes(schoolId));
  }

  /** The one school of the campaign a student attends, if one. */
  private onlySchool(id: string | undefined): string | undefined {
    const schools = id === undefined ? undefined : this.students.get(id)?.schools;
    return schools?.length === 1 ? schools[0] : undefined;
  }

  /** Student id → agents whose records name it, for the students `ids`. */
  private guardianSideLinks(ids: ReadonlySet<string>): Map<string, string[]> {
    const links = new Map<string, string[]>();
    for (const agent of this.agents.values())
      for (const id of agent.students) {
        if (!ids.has(id)) continue;
        const agents = links.get(id);
        if (agents) agents.push(agent.sourcedId);
        else links.set(id, [agent.sourcedId]);
      }
    return links;
  }

  private reasonFor(
    student: Student,
    byStudent: Map<string, string[]>,
    isCrowded: (agent: Agent, student: Student) => boolean,
  ): string {
    const linked = new Set([...student.agents, ...(byStudent.get(student.sourcedId) ?? [])]);
    if (linked.size === 0) return REASONS.noLink;
    const reasons = new Set<string>();
    for (const id of linked) {
      const agent = this.agents.get(id);
      if (!agent) reasons.add(REASONS.dangling);
      else if (!agent.guardian) reasons.add(agent.ended ? REASONS.roleEnded : notAsked(agent.role));
      else if (!agent.active) reasons.add(REASONS.toBeDeleted);
      else if (agent.email === '') reasons.add(REASONS.noEmail);
      else if (emailProblem(agent.email) !== undefined) reasons.add(REASONS.refusedEmail);
      else if (isCrowded(agent, student)) reasons.add(REASONS.tooManyChildren);
    }
    return [...reasons].sort(byReason).join('; ');
  }
}

interface Group {
  key: string;
  email: string;
  schoolId: string;
  guardians: Agent[];
  inScope: string[];
  atSchool: string[];
  /** The ids in inScope and atSchool, kept once the group has MANY_GUARDIANS (most have one or two). */
  seen?: { inScope: Set<string>; atSchool: Set<string> };
}
/** An agent whose e-mail `invite send` would refuse: why, and its rank in the order of the agents' ids. */
interface Refusing {
  rank: number;
  problem: string;
}

/** A refused e-mail at a school, where it is first met: its agent's rank, and the school's among its own. */
interface Refused {
  rank: number;
  position: number;
  skipped: Skipped;
}

/** What step 2 decided, school after school. */
interface Decided {
  invitations: PlannedInvitation[];
  skipped: Skipped[];
  crowded: Crowded[];
}

/** Guardians on one e-mail and school past which a group keeps sets of its children. */
const MANY_GUARDIANS = 8;

/**
 * A group's first guardian. `inScope` undefined: every child at the school is in scope, and the group keeps
 * one list for both. A literal (a spread object costs twice the bytes) with lists of their exact size (one
 * grown by push keeps room for 16 more). (An agent's children are distinct: agent.students is.)
 */
function newGroup(
  key: string,
  agent: Agent,
  schoolId: string,
  children: readonly string[],
  inScope: readonly string[] | undefined,
): Group {
  const atSchool = children.slice();
  return {
    key,
    email: agent.email,
    schoolId,
    guardians: [agent],
    inScope: inScope === undefined ? atSchool : inScope.slice(),
    atSchool,
  };
}

/** Another guardian with the group's e-mail: its children join the group's, each once. */
function joinGroup(
  group: Group,
  agent: Agent,
  children: readonly string[],
  inScope: readonly string[],
): void {
  group.guardians.push(agent);
  // One e-mail on many guardians (a planted address, a shared office one): sets beside the lists from
  // then on, so each guardian adds its children in their number, not the group's.
  if (group.guardians.length === MANY_GUARDIANS) {
    const atSchool = new Set(group.atSchool);
    group.seen = {
      atSchool,
      inScope: group.inScope === group.atSchool ? atSchool : new Set(group.inScope),
    };
  }
  addNew(group.atSchool, children, group.seen?.atSchool);
  if (group.inScope !== group.atSchool) addNew(group.inScope, inScope, group.seen?.inScope);
}

/**
 * The groups in the order of their keys, the last first. The keys sorted as strings (sort's own order,
 * compare's, with no comparator to call: twice as fast).
 */
function lastFirst(groups: ReadonlyMap<string, Group>): Group[] {
  const keys = [...groups.keys()].sort();
  const groupsLastFirst: Group[] = [];
  for (let k = keys.length - 1; k >= 0; k--) groupsLastFirst.push(groups.get(keys[k] as string) as Group);
  return groupsLastFirst;
}

const named = ({ sourcedId, name }: Named): Named => ({ sourcedId, name });
const NONE: readonly string[] = [];
/** Lists this short are searched with includes(): a Set per call would cost more than it saves. */
const SHORT = 16;
/** Appends to `list` the ids of `ids` it lacks (newOf), and returns those appended. */
function addNew(list: string[], ids: readonly string[], seen?: Set<string>): string[] {
  const added = newOf(list, ids, seen);
  for (const id of added) list.push(id);
  return added;
}
/**
 * The ids of `ids` that `list` lacks (each once), in order. Linear: a record may name hundreds of thousands
 * of agents (a 16 MB page), where includes() per id would take minutes. `seen`, when given, holds the ids of
 * `list` already (kept by a caller that adds to one list many times).
 */
function newOf(list: readonly string[], ids: readonly string[], seen?: Set<string>): string[] {
  const added: string[] = [];
  if (!seen && list.length + ids.length <= SHORT) {
    for (const id of ids) if (!list.includes(id) && !added.includes(id)) added.push(id);
    return added;
  }
  const known = seen ?? new Set(list);
  for (const id of ids) {
    if (known.has(id)) continue;
    known.add(id);
    added.push(id);
  }
  return added;
}
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** `ids` without repeats: the list itself when it has none (most), else a copy of its exact size. */
function distinct(ids: string[]): string[] {
  const once = newOf([], ids);
  return once.length === ids.length ? ids : once.slice();
}

/** The fixed reasons in their order, then the "linked <role>" ones alphabetically. */
function byReason(a: string, b: string): number {
  const rank = (r: string) => (ORDER.includes(r) ? ORDER.indexOf(r) : ORDER.length);
  return rank(a) - rank(b) || compare(a, b);
}

/** Each campaign school's summary, in the campaign's order, counted as the plan is made. */
class SchoolTally {
  private readonly bySchool: Map<string, SchoolSummary>;

  constructor(schools: ReadonlyMap<string, string>) {
    this.bySchool = new Map(
      [...schools].map(([schoolId, name]) => [
        schoolId,
        {
          schoolId,
          name,
          inScope: 0,
          invitations: 0,
          students: 0,
          uncovered: 0,
          alreadyInvited: 0,
          refused: 0,
          tooManyChildren: 0,
        },
      ]),
    );
  }

  /** The summary of a campaign school (every school the planner keeps a student at is one). */
  of(schoolId: string): SchoolSummary {
    const summary = this.bySchool.get(schoolId);
    if (!summary) throw new Error(`planner: ${schoolId} is not a school of the campaign`);
    return summary;
  }

  summaries(): SchoolSummary[] {
    return [...this.bySchool.values()];
  }
}
