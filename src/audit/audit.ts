// The go-live audit over compact indexes: each collection's records are handed to `add` as they stream in
// (orgs, academic sessions, courses, classes, users, then enrollments, in that order, so every reference is
// checked against collections already read), kept only as the few fields the checks need, and `finish`
// runs the checks that need the whole district. A student's guardian coverage and the e-mails with too many
// children are the campaign planner's own answers (one logic with `invite plan`).
import { isRecord } from '../api/errors.js';
import { isKnownGrade } from '../campaign/grades.js';
import { orgsAs, type Person, personOf } from '../campaign/people.js';
import { CampaignPlanner, emailProblem } from '../campaign/planner.js';
import { AUDIT_COLLECTIONS, type CheckId, type Collection, type Severity, severityOf } from './checks.js';

export type { Collection };
/** The order the collections are read in: each refers only to those before it (and to itself). */
export const READ_ORDER: readonly Collection[] = AUDIT_COLLECTIONS;

/**
 * The collections without which a check cannot run (a server that does not serve one: the check is not run).
 * The reference checks run over what was read; a reference into a collection not served is not checked.
 */
export const REQUIRES: Record<CheckId, readonly Collection[]> = {
  'duplicate-sourcedid': [],
  'missing-reference': [],
  'active-refers-to-deleted': [],
  'org-cycle': ['orgs'],
  'session-dates': ['academicSessions'],
  'no-current-school-year': ['academicSessions'],
  'student-without-enrollment': ['classes', 'users', 'enrollments'],
  'class-without-teacher': ['classes', 'users', 'enrollments'],
  'invalid-email': ['users'],
  'shared-email': ['users'],
  'invalid-grade': ['users'],
  'student-without-guardian-email': ['orgs', 'users'],
  'agent-not-guardian': ['users'],
  'one-sided-link': ['users'],
  'guardian-many-students': ['orgs', 'users'],
  'no-school': ['orgs'],
  'teacher-as-student': ['classes', 'users', 'enrollments'],
  'all-roles-ended': ['users'],
  'invalid-date-modified': [],
  'ended-enrollment-active': ['academicSessions', 'enrollments'],
  'unknown-role': ['users'],
  'self-agent': ['users'],
};

/** Each version's role vocabulary (OneRoster 1.1 §4.13.5, 1.2 RoleEnum), compared in any case. */
const ROLES: Record<'1.1' | '1.2', ReadonlySet<string>> = {
  '1.1': new Set([
    'administrator',
    'aide',
    'guardian',
    'parent',
    'proctor',
    'relative',
    'student',
    'teacher',
  ]),
  '1.2': new Set(
    [
      'aide',
      'counselor',
      'districtAdministrator',
      'guardian',
      'parent',
      'principal',
      'proctor',
      'relative',
      'siteAdministrator',
      'student',
      'systemAdministrator',
      'teacher',
    ].map((r) => r.toLowerCase()),
  ),
};

/** A date (YYYY-MM-DD) or date-time of ISO 8601 as OneRoster writes it, with a real calendar day. */
const ISO_8601 = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
const isIsoDate = (value: string): boolean =>
  ISO_8601.test(value) && !Number.isNaN(Date.parse(value.slice(0, 10)));

/** A collection the server does not serve: the checks it took out of the audit. */
export interface NotChecked {
  collection: Collection;
  /** What the server answered, e.g. "HTTP 404". */
  answer: string;
  /** The checks not run (those that need it, among the ones asked for). */
  checks: CheckId[];
  /** Named by --require: an error, not a note. */
  required: boolean;
}

export interface AuditRecord {
  collection: Collection;
  sourcedId: string;
  detail: string;
  /** The schools the record belongs to (for --school); none: district-wide, in every report. */
  schools: string[];
  /** A person's given and family name, and the names of their schools: who the office looks up. */
  person?: { name: string; school: string };
}

export interface Finding {
  check: CheckId;
  severity: Severity;
  count: number;
  records: AuditRecord[];
}

export interface SchoolFigures {
  sourcedId: string;
  name: string;
  students: number;
  /** Active students with a guardian e-mail invite plan would reach. */
  withGuardianEmail: number;
  classes: number;
  classesWithTeacher: number;
}

export interface AuditResult {
  findings: Finding[];
  /** Collections the server does not serve, each once, with the checks not run for it. */
  notChecked: NotChecked[];
  schools: SchoolFigures[];
  /** Records read per collection. */
  read: Record<Collection, number>;
}

export interface AuditOptions {
  checks: ReadonlySet<CheckId>;
  /** YYYY-MM-DD: the day roles end before and a school year must cover. */
  date: string;
  maxChildren: number;
  /** The OneRoster version read: its role vocabulary (default 1.1). */
  version?: '1.1' | '1.2';
  /** Collections whose absence is an error (--require). */
  require?: readonly Collection[];
}

/** The sentence every report gives a collection not served: what was not checked, and why. */
export function notCheckedText(n: NotChecked): string {
  const checks = n.checks.length > 0 ? `; not run: ${n.checks.join(', ')}` : '';
  const required = n.required ? ' (--require names it: an error)' : '';
  return `not checked: the server does not serve ${n.collection} (${n.answer})${required}${checks}; references to it are not checked`;
}

interface Org {
  name: string;
  type: string;
  parent: string;
  active: boolean;
}
interface Session {
  type: string;
  start: string;
  end: string;
  parent: string;
  active: boolean;
}
interface Course {
  active: boolean;
  org: string;
}
interface Class {
  active: boolean;
  school: string;
  teacher: boolean;
}
interface User extends Person {
  /** The orgs of its roles now, once each. */
  orgs: string[];
  /** Its first role now as the server spells it, when that is not all lower case (siteAdministrator). */
  roleSpelling?: string;
}

/** The one empty list users share (never written to). */
const NONE: string[] = [];
/** The roles a student's agent is expected to hold. */
const AGENT_ROLES = new Set(['parent', 'guardian', 'relative']);
const CAMPAIGN_ROLES = new Set(['parent', 'guardian']);
/** The most orgs a cycle's detail names (then "…" and its length). */
const CYCLE_SHOWN = 10;
/** The most users of other families a shared-email detail names (then their number). */
const OTHERS_SHOWN = 5;

/**
 * A copy of a string that holds nothing else alive. V8 may return a string parsed from a page as a slice of
 * that page's whole body: one kept id or e-mail would then keep the page (a megabyte or more) alive, and
 * the indexes would hold every page read. Joining and slicing flattens it into a string of its own.
 */
const own = (value: string): string => (value.length < 13 ? value : ` ${value}`.slice(1));
const text = (value: unknown): string => (typeof value === 'string' ? own(value.trim()) : '');
const refId = (value: unknown): string => (isRecord(value) ? text(value.sourcedId) : '');
const refIds = (value: unknown): string[] => (Array.isArray(value) ? value.map(refId).filter(Boolean) : []);
const isActive = (record: Record<string, unknown>) => text(record.status).toLowerCase() !== 'tobedeleted';
const day = (value: unknown) => text(value).slice(0, 10);

const NOUN: Record<Collection, string> = {
  orgs: 'org',
  academicSessions: 'academic session',
  courses: 'course',
  classes: 'class',
  users: 'user',
  enrollments: 'enrollment',
};

export class Audit {
  private readonly orgs = new Map<string, Org>();
  private readonly sessions = new Map<string, Session>();
  private readonly courses = new Map<string, Course>();
  private readonly classes = new Map<string, Class>();
  private readonly users = new Map<string, User>();
  /** Students in an active class (the user map's own id strings: no copy per enrollment). */
  private readonly enrolled = new Set<string>();
  private readonly found = new Map<CheckId, AuditRecord[]>();
  /** The checks that run: those asked for, less those a collection not served took out. */
  private readonly checks: Set<CheckId>;
  private readonly unserved = new Map<Collection, string>();
  private readonly duplicates = new Map<string, number>();
  /** The day an enrollment must not have ended before to count as current (found at the first enrollment). */
  private enrollmentCutoff?: string;
  private namedByCache?: Map<string, string[]>;
  readonly read: Record<Collection, number> = {
    orgs: 0,
    academicSessions: 0,
    courses: 0,
    classes: 0,
    users: 0,
    enrollments: 0,
  };

  constructor(private readonly options: AuditOptions) {
    this.checks = new Set(options.checks);
  }

  /** The server does not serve this collection (its answer, e.g. "HTTP 404"): the checks needing it do not run. */
  notServed(collection: Collection, answer: string): NotChecked {
    this.unserved.set(collection, answer);
    for (const check of [...this.checks]) if (REQUIRES[check].includes(collection)) this.checks.delete(check);
    return this.notCheckedOf(collection, answer);
  }

  private notCheckedOf(collection: Collection, answer: string): NotChecked {
    return {
      collection,
      answer,
      checks: [...this.options.checks].filter((c) => REQUIRES[c].includes(collection)),
      required: this.options.require?.includes(collection) ?? false,
    };
  }

  private report(check: CheckId, found: AuditRecord): void {
    if (!this.checks.has(check)) return;
    const record = { ...found, sourcedId: own(found.sourcedId), detail: own(found.detail) };
    const list = this.found.get(check);
    if (list) list.push(record);
    else this.found.set(check, [record]);
  }

  /** The pager served this sourcedId again in the collection (the first record is the one audited). */
  repeated(collection: Collection, sourcedId: string): void {
    const key = `${collection}\n${sourcedId}`;
    this.duplicates.set(key, (this.duplicates.get(key) ?? 0) + 1);
  }

  /**
   * A reference from an active or tobedeleted record: missing-reference when the target is not in its
   * collection, active-refers-to-deleted when an active record names a tobedeleted one.
   */
  private reference(
    from: { collection: Collection; sourcedId: string; active: boolean; schools: string[] },
    field: string,
    target: Collection,
    id: string,
    index: ReadonlyMap<string, { active: boolean }>,
  ): void {
    // A reference into a collection the server does not serve cannot be checked.
    if (id === '' || this.unserved.has(target)) return;
    const found = index.get(id);
    const base = { collection: from.collection, sourcedId: from.sourcedId, schools: from.schools };
    if (!found)
      this.report('missing-reference', { ...base, detail: `${field} ${id}: no such ${NOUN[target]}` });
    else if (from.active && !found.active)
      this.report('active-refers-to-deleted', { ...base, detail: `${field} ${id} is tobedeleted` });
  }

  add(collection: Collection, record: unknown): void {
    if (!isRecord(record)) return;
    const sourcedId = text(record.sourcedId);
    if (sourcedId === '') return;
    this.read[collection]++;
    const active = isActive(record);
    this.dateModified(collection, sourcedId, record.dateLastModified);
    switch (collection) {
      case 'orgs':
        this.orgs.set(sourcedId, {
          name: text(record.name),
          type: text(record.type),
          parent: refId(record.parent),
          active,
        });
        return;
      case 'academicSessions':
        this.sessions.set(sourcedId, {
          type: text(record.type),
          start: day(record.startDate),
          end: day(record.endDate),
          parent: refId(record.parent),
          active,
        });
        return;
      case 'courses': {
        const org = refId(record.org);
        const from = { collection, sourcedId, active, schools: this.schoolsOf(org) };
        this.reference(from, 'org', 'orgs', org, this.orgs);
        this.reference(from, 'schoolYear', 'academicSessions', refId(record.schoolYear), this.sessions);
        this.courses.set(sourcedId, { active, org });
        return;
      }
      case 'classes': {
        const school = refId(record.school);
        const from = { collection, sourcedId, active, schools: school ? [school] : [] };
        this.reference(from, 'course', 'courses', refId(record.course), this.courses);
        this.reference(from, 'school', 'orgs', school, this.orgs);
        for (const term of refIds(record.terms))
          this.reference(from, 'terms', 'academicSessions', term, this.sessions);
        this.classes.set(sourcedId, { active, school, teacher: false });
        return;
      }
      case 'users':
        this.addUser(sourcedId, active, record);
        return;
      case 'enrollments':
        this.enrollment(sourcedId, active, record);
        return;
    }
  }

  /** A user as the checks need it, and its orgs checked as references. */
  private addUser(sourcedId: string, active: boolean, record: Record<string, unknown>): void {
    const person = personOf(record, this.options.date);
    if (!person) return;
    const spelled = this.roles(sourcedId, record, person.roles[0]?.role);
    const orgs = [...new Set(person.roles.flatMap((r) => (r.org ? [r.org] : [])))];
    // Tens of thousands of users are kept: no name (the report names records by sourcedId), and one
    // shared empty list for every list that is empty.
    const owned = (list: string[]) => (list.length ? list.map(own) : NONE);
    const user: User = {
      sourcedId,
      // Kept for the records to fix, which name the person (about 6 MB for 130,000 users).
      name: own(person.name),
      email: own(person.email),
      active: person.active,
      roles: person.roles.map((r) => ({ role: own(r.role), ...(r.org && { org: own(r.org) }) })),
      endedRoles: owned(person.endedRoles),
      grades: owned(person.grades),
      agents: owned(person.agents),
      orgs: owned(orgs),
      ...(spelled !== undefined && { roleSpelling: spelled }),
    };
    const from = { collection: 'users' as const, sourcedId, active, schools: orgs };
    for (const org of orgs) this.reference(from, 'orgs', 'orgs', org, this.orgs);
    this.users.set(sourcedId, user);
  }

  /** A dateLastModified that is not ISO 8601: `changes --since` compares it as a date and never finds it. */
  private dateModified(collection: Collection, sourcedId: string, value: unknown): void {
    if (value === undefined || value === null || (typeof value === 'string' && isIsoDate(value.trim())))
      return;
    const shown = typeof value === 'string' ? `"${value.slice(0, 40)}"` : typeof value;
    this.report('invalid-date-modified', {
      collection,
      sourcedId,
      detail: `dateLastModified ${shown} is not ISO 8601: changes --since never finds this record`,
      schools: [],
    });
  }

  /**
   * The user's roles as the server spells them: unknown-role for those outside the version's vocabulary;
   * returns the first role held now as spelled, when it is not all lower case (a finding's text keeps it).
   */
  private roles(
    sourcedId: string,
    record: Record<string, unknown>,
    firstNow: string | undefined,
  ): string | undefined {
    const spelled = [
      ...(Array.isArray(record.roles) ? record.roles.map((r) => (isRecord(r) ? text(r.role) : '')) : []),
      text(record.role),
    ].filter(Boolean);
    const vocabulary = ROLES[this.options.version ?? '1.1'];
    const unknown = [...new Set(spelled.filter((r) => !vocabulary.has(r.toLowerCase())))];
    if (unknown.length > 0)
      this.report('unknown-role', {
        collection: 'users',
        sourcedId,
        detail: `${unknown.map((r) => `"${r}"`).join(', ')} not in OneRoster ${this.options.version ?? '1.1'}'s roles`,
        schools: [],
      });
    const first = spelled.find((r) => r.toLowerCase() === firstNow);
    return first !== undefined && first !== firstNow ? first : undefined;
  }

  private enrollment(sourcedId: string, active: boolean, record: Record<string, unknown>): void {
    const userId = refId(record.user);
    const classId = refId(record.class);
    const school = refId(record.school);
    const from = { collection: 'enrollments' as const, sourcedId, active, schools: school ? [school] : [] };
    this.reference(from, 'user', 'users', userId, this.users);
    this.reference(from, 'class', 'classes', classId, this.classes);
    this.reference(from, 'school', 'orgs', school, this.orgs);
    if (active && this.endedBefore(day(record.endDate))) {
      // Left over from an earlier school year: reported, and not counted as current.
      this.report('ended-enrollment-active', {
        ...from,
        detail: `ended ${day(record.endDate)}, before the school year that began ${this.enrollmentCutoff}, but still active`,
      });
      return;
    }
    const user = this.users.get(userId);
    const cls = this.classes.get(classId);
    if (!active || !user?.active || !cls?.active) return;
    const role = text(record.role).toLowerCase();
    if (role === 'teacher') cls.teacher = true;
    else if (role === 'student') {
      const holds = (r: string) => user.roles.some((held) => held.role === r);
      if (holds('teacher') && !holds('student'))
        this.report('teacher-as-student', {
          ...from,
          detail: `user ${userId}, a teacher, is enrolled as a student in class ${classId}`,
        });
      this.enrolled.add(user.sourcedId);
    }
  }

  /**
   * Whether an enrollment's end lies before the start of the school year --date falls in (the latest
   * active school year begun by then; --date itself when there is none): an enrollment of an earlier
   * year. One of this year's terms (a fall semester in spring) is this year's own record, not reported.
   */
  private endedBefore(end: string): boolean {
    if (end === '') return false;
    if (this.enrollmentCutoff === undefined) {
      const { date } = this.options;
      const starts = [...this.sessions.values()]
        .filter((s) => s.type === 'schoolYear' && s.active && s.start !== '' && s.start <= date)
        .map((s) => s.start)
        .sort();
      this.enrollmentCutoff = starts.at(-1) ?? date;
    }
    return end < this.enrollmentCutoff;
  }

  /** The org itself when it is a school (for --school), else none. */
  private schoolsOf(org: string): string[] {
    return org && this.orgs.get(org)?.type === 'school' ? [org] : [];
  }

  finish(): AuditResult {
    this.duplicateIds();
    this.parents();
    this.sessionDates();
    this.currentSchoolYear();
    this.people();
    this.noSchool();
    this.emailsShared();
    const plan = this.campaign();
    const findings: Finding[] = [...this.checks].map((check) => {
      const records = (this.found.get(check) ?? []).map((record) => this.withPerson(record));
      return { check, severity: severityOf(check), count: records.length, records };
    });
    const notChecked = [...this.unserved].map(([c, answer]) => this.notCheckedOf(c, answer));
    return { findings, notChecked, schools: this.figures(plan), read: this.read };
  }

  /** A user's record with the person it is about: their name and their schools' names. */
  private withPerson(record: AuditRecord): AuditRecord {
    const user = record.collection === 'users' ? this.users.get(record.sourcedId) : undefined;
    if (!user) return record;
    const schools = [...new Set([...record.schools, ...user.orgs])]
      .filter((id) => this.orgs.get(id)?.type === 'school')
      .map((id) => this.orgs.get(id)?.name || id);
    return { ...record, person: { name: user.name, school: schools.join(', ') } };
  }

  private duplicateIds(): void {
    for (const [key, more] of this.duplicates) {
      // Split at the first line break only: a sourcedId may hold one.
      const at = key.indexOf('\n');
      const collection = key.slice(0, at) as Collection;
      const sourcedId = key.slice(at + 1);
      this.report('duplicate-sourcedid', {
        collection,
        sourcedId,
        detail: `${more + 1} records with this sourcedId (the first was audited)`,
        schools: [],
      });
    }
  }

  /** Orgs and sessions name their parent; an org may not be its own ancestor. */
  private parents(): void {
    for (const [sourcedId, org] of this.orgs) {
      const from = {
        collection: 'orgs' as const,
        sourcedId,
        active: org.active,
        schools: this.schoolsOf(sourcedId),
      };
      this.reference(from, 'parent', 'orgs', org.parent, this.orgs);
    }
    this.orgCycles();
    for (const [sourcedId, session] of this.sessions) {
      const from = {
        collection: 'academicSessions' as const,
        sourcedId,
        active: session.active,
        schools: [],
      };
      this.reference(from, 'parent', 'academicSessions', session.parent, this.sessions);
    }
  }

  /**
   * Each org of a cycle in the parent links, found in one walk over the orgs: every org is visited once (a
   * chain of any depth is a loop, not a recursion), and a cycle is named by its first orgs and its length,
   * so a cycle through every org of the district does not write the district once per org.
   */
  private orgCycles(): void {
    const walkOf = new Map<string, number>(); // the walk that first reached the org
    let walk = 0;
    for (const start of this.orgs.keys()) {
      if (walkOf.has(start)) continue;
      walk++;
      const path: string[] = [];
      let at = start;
      for (let org = this.orgs.get(at); org && !walkOf.has(at); org = this.orgs.get(at)) {
        walkOf.set(at, walk);
        path.push(at);
        at = org.parent;
      }
      if (walkOf.get(at) !== walk) continue; // the walk ended, or joined an earlier one: no new cycle
      const cycle = path.slice(path.indexOf(at));
      for (const [i, sourcedId] of cycle.entries()) {
        const next = (k: number) => cycle[(i + k) % cycle.length] as string;
        const shown = Math.min(cycle.length, CYCLE_SHOWN);
        const chain = Array.from({ length: shown - 1 }, (_, k) => next(k + 1));
        if (cycle.length > shown) chain.push('…');
        this.report('org-cycle', {
          collection: 'orgs',
          sourcedId,
          detail: `its parent chain comes back to it: ${[...chain, sourcedId].join(' → ')}${cycle.length > shown ? ` (${cycle.length} orgs in the cycle)` : ''}`,
          schools: this.schoolsOf(sourcedId),
        });
      }
    }
  }

  private sessionDates(): void {
    for (const [sourcedId, s] of this.sessions) {
      const base = { collection: 'academicSessions' as const, sourcedId, schools: [] };
      if (s.start && s.end && s.end < s.start)
        this.report('session-dates', { ...base, detail: `ends ${s.end}, before it starts ${s.start}` });
      const parent = this.sessions.get(s.parent);
      if (!parent || !s.start || !s.end || !parent.start || !parent.end) continue;
      if (s.start < parent.start || s.end > parent.end)
        this.report('session-dates', {
          ...base,
          detail: `${s.start} – ${s.end} is outside its parent ${s.parent} (${parent.start} – ${parent.end})`,
        });
    }
  }

  private currentSchoolYear(): void {
    const { date } = this.options;
    const years = [...this.sessions].filter(([, s]) => s.type === 'schoolYear' && s.active);
    if (years.some(([, s]) => s.start <= date && date <= s.end)) return;
    const latest = years.sort(([, a], [, b]) => (a.end < b.end ? 1 : -1))[0];
    this.report('no-current-school-year', {
      collection: 'academicSessions',
      sourcedId: latest?.[0] ?? '',
      detail: latest
        ? `no active school year covers ${date}; the latest ends ${latest[1].end}`
        : `no active school year at all (${date})`,
      schools: [],
    });
  }

  /** No active org of type school: invite plan has no school to plan for, so it reaches nobody. */
  private noSchool(): void {
    for (const org of this.orgs.values()) if (org.active && org.type.toLowerCase() === 'school') return;
    this.report('no-school', {
      collection: 'orgs',
      sourcedId: '',
      detail: `no active org of type school among the ${this.orgs.size} orgs read: no invitation plan can reach anyone`,
      schools: [],
    });
  }

  /** User id → the users whose own agents name it (the other side of the links), built once. */
  private namedBy(): Map<string, string[]> {
    if (this.namedByCache) return this.namedByCache;
    const links = new Map<string, string[]>();
    this.namedByCache = links;
    for (const user of this.users.values())
      for (const id of user.agents) {
        const list = links.get(id);
        if (list) list.push(user.sourcedId);
        else links.set(id, [user.sourcedId]);
      }
    return links;
  }

  private people(): void {
    const namedBy = this.namedBy();
    const names = agentNamer();
    for (const user of this.users.values()) {
      const from = {
        collection: 'users' as const,
        sourcedId: user.sourcedId,
        active: user.active,
        schools: user.orgs,
      };
      this.agentLinks(user, from, names);
      if (!user.active) continue;
      this.personChecks(user, from);
      if (user.roles.some((r) => r.role === 'student')) this.studentChecks(user, from, namedBy);
    }
    for (const [sourcedId, cls] of this.classes)
      if (cls.active && !cls.teacher)
        this.report('class-without-teacher', {
          collection: 'classes',
          sourcedId,
          detail: 'no active teacher enrollment',
          schools: cls.school ? [cls.school] : [],
        });
  }

  /** Each user an agent names: one that exists, and whose record names this user back. */
  private agentLinks(user: User, from: UserFrom, names: (other: User, id: string) => boolean): void {
    for (const agent of user.agents) {
      this.reference(from, 'agents', 'users', agent, this.users);
      const other = this.users.get(agent);
      if (other && !names(other, user.sourcedId))
        this.report('one-sided-link', {
          ...from,
          detail: `agents names ${agent}, whose record does not name ${user.sourcedId}`,
        });
    }
  }

  /** An active user's own record: not its own agent, a role now, an e-mail invite send takes. */
  private personChecks(user: User, from: UserFrom): void {
    if (user.agents.includes(user.sourcedId))
      this.report('self-agent', { ...from, detail: 'its agents name the user itself' });
    if (user.roles.length === 0 && user.endedRoles.length > 0)
      this.report('all-roles-ended', {
        ...from,
        detail: `every role has ended (${user.endedRoles.join(', ')}): in no student or guardian check`,
      });
    const problem = user.email === '' ? undefined : emailProblem(user.email);
    if (problem !== undefined)
      this.report('invalid-email', { ...from, detail: `"${user.email}": ${problem}` });
  }

  /** An active student: known grades, in a class, and linked (either side) only to guardians. */
  private studentChecks(user: User, from: UserFrom, namedBy: Map<string, string[]>): void {
    const schools = orgsAs(user, 'student');
    for (const grade of user.grades)
      if (!isKnownGrade(grade))
        this.report('invalid-grade', { ...from, schools, detail: `grade "${grade}"` });
    if (!this.enrolled.has(user.sourcedId))
      this.report('student-without-enrollment', { ...from, schools, detail: 'in no active class' });
    const linked = new Set([...user.agents, ...(namedBy.get(user.sourcedId) ?? [])]);
    linked.delete(user.sourcedId); // itself as its agent: self-agent says so
    for (const id of linked) {
      const agent = this.users.get(id);
      if (!agent?.active || agent.roles.some((r) => AGENT_ROLES.has(r.role))) continue;
      const role = agent.roleSpelling ?? agent.roles[0]?.role;
      this.report('agent-not-guardian', {
        ...from,
        schools,
        detail: role
          ? `agent ${id} is a ${role}`
          : `agent ${id} holds no role now${agent.endedRoles.length ? ` (${agent.endedRoles.join(', ')} ended)` : ''}`,
      });
    }
  }

  /**
   * One e-mail (trimmed, any case) on active users of different families: two users are one family when
   * one links the other, or both link a common student (through agents, on either side). Linear in the
   * users and their links, however many share one e-mail: families are joined link by link (union-find),
   * and a detail names a few users of the other families and their number, not every one.
   */
  private emailsShared(): void {
    if (!this.checks.has('shared-email')) return;
    const byEmail = this.sharedEmails();
    const namedBy = this.namedBy();
    for (const [email, ids] of byEmail) {
      const family = this.familiesAmong(ids, namedBy);
      const members = familyMembers(ids, family);
      if (members.size < 2) continue;
      for (const [i, id] of ids.entries()) {
        this.report('shared-email', {
          collection: 'users',
          sourcedId: id,
          detail: sharedEmailDetail(email, ids.length, members, family.of(i)),
          schools: this.users.get(id)?.orgs ?? [],
        });
      }
    }
  }

  /** The e-mails (lower case) on two active users or more (few): no list is built for the many held by one. */
  private sharedEmails(): Map<string, string[]> {
    const first = new Map<string, string>();
    const byEmail = new Map<string, string[]>();
    for (const user of this.users.values()) {
      if (!user.active || user.email === '') continue;
      const key = user.email.toLowerCase();
      const one = first.get(key);
      if (one === undefined) first.set(key, user.sourcedId);
      else {
        const list = byEmail.get(key);
        if (list) list.push(user.sourcedId);
        else byEmail.set(key, [one, user.sourcedId]);
      }
    }
    return byEmail;
  }

  /** The users sharing one e-mail, joined into families: by a link between them or a student both link. */
  private familiesAmong(ids: string[], namedBy: Map<string, string[]>): Families {
    const at = new Map(ids.map((id, i) => [id, i]));
    const family = new Families(ids.length);
    const linkedBy = new Map<string, number>(); // a linked user → the first of these that links it
    for (const [i, id] of ids.entries())
      for (const list of [this.users.get(id)?.agents ?? NONE, namedBy.get(id) ?? NONE])
        for (const linked of list) {
          const j = at.get(linked);
          if (j !== undefined) family.join(i, j);
          const k = linkedBy.get(linked);
          if (k === undefined) linkedBy.set(linked, i);
          else family.join(i, k);
        }
    return family;
  }

  /** The campaign planner over every active school: its uncovered students and its over-full e-mails. */
  private campaign(): ReturnType<CampaignPlanner['plan']> {
    const schools = new Map<string, string>();
    for (const [id, org] of this.orgs)
      if (org.type === 'school' && org.active) schools.set(id, org.name || id);
    // No e-mail is left out for its number of children here: the audit reports those as
    // guardian-many-students below, and their children as reached (the plan would call them uncovered).
    const planner = new CampaignPlanner({
      schools,
      roles: CAMPAIGN_ROLES,
      count: 'in-scope',
      maxChildren: Number.POSITIVE_INFINITY,
    });
    for (const user of this.users.values()) planner.addStudent(user);
    for (const user of this.users.values()) planner.offer(user);
    const plan = planner.plan(
      (email, schoolId) => `${email.toLowerCase()}\n${schoolId}`,
      () => undefined,
      false,
    );
    for (const student of plan.uncovered) {
      const user = this.users.get(student.sourcedId);
      this.report('student-without-guardian-email', {
        collection: 'users',
        sourcedId: student.sourcedId,
        detail: student.reason,
        schools: user ? orgsAs(user, 'student') : [],
      });
    }
    for (const invitation of plan.invitations) {
      if (invitation.studentCount <= this.options.maxChildren) continue;
      this.report('guardian-many-students', {
        collection: 'users',
        sourcedId: invitation.guardians[0]?.sourcedId ?? '',
        detail: `${invitation.email}: ${invitation.studentCount} children at ${invitation.schoolId} (more than ${this.options.maxChildren}); guardians ${invitation.guardians.map((g) => g.sourcedId).join(', ')}`,
        schools: [invitation.schoolId],
      });
    }
    return plan;
  }

  private figures(plan: ReturnType<CampaignPlanner['plan']>): SchoolFigures[] {
    const figures = new Map<string, SchoolFigures>();
    for (const summary of plan.schools)
      figures.set(summary.schoolId, {
        sourcedId: summary.schoolId,
        name: summary.name,
        students: 0,
        withGuardianEmail: 0,
        classes: 0,
        classesWithTeacher: 0,
      });
    const uncovered = new Set(plan.uncovered.map((s) => s.sourcedId));
    for (const user of this.users.values()) {
      if (!user.active) continue;
      for (const school of new Set(orgsAs(user, 'student'))) {
        const f = figures.get(school);
        if (!f) continue;
        f.students++;
        if (!uncovered.has(user.sourcedId)) f.withGuardianEmail++;
      }
    }
    for (const cls of this.classes.values()) {
      const f = cls.active ? figures.get(cls.school) : undefined;
      if (!f) continue;
      f.classes++;
      if (cls.teacher) f.classesWithTeacher++;
    }
    return [...figures.values()];
  }
}

/** Disjoint sets of 0…n-1 (union-find with path halving): no recursion, nearly constant time each. */
type UserFrom = { collection: 'users'; sourcedId: string; active: boolean; schools: string[] };

/**
 * Whether a user's agents name an id: a guardian may name a hundred thousand students, each naming it
 * back, so a long list is looked up in a set built once, not scanned once per student.
 */
function agentNamer(): (other: User, id: string) => boolean {
  const agentSets = new Map<string, Set<string>>();
  return (other, id) => {
    if (other.agents.length <= 16) return other.agents.includes(id);
    let set = agentSets.get(other.sourcedId);
    if (!set) {
      set = new Set(other.agents);
      agentSets.set(other.sourcedId, set);
    }
    return set.has(id);
  };
}

type FamilyMembers = Map<number, { size: number; first: string[] }>;

/** Each family's size and first few members, families in the order they first appear. */
function familyMembers(ids: string[], family: Families): FamilyMembers {
  const members: FamilyMembers = new Map();
  for (const [i, id] of ids.entries()) {
    const root = family.of(i);
    const entry = members.get(root);
    if (!entry) members.set(root, { size: 1, first: [id] });
    else {
      entry.size++;
      if (entry.first.length < OTHERS_SHOWN) entry.first.push(id);
    }
  }
  return members;
}

/** Names a few users of the other families and their number, not every one. */
function sharedEmailDetail(email: string, users: number, members: FamilyMembers, own: number): string {
  const others = users - (members.get(own)?.size ?? 0);
  const shown: string[] = [];
  for (const [root, { first }] of members) {
    if (shown.length >= OTHERS_SHOWN) break;
    if (root !== own) shown.push(...first.slice(0, OTHERS_SHOWN - shown.length));
  }
  return others <= shown.length
    ? `${email} is also on ${shown.join(', ')} (another family)`
    : `${email} is also on ${others} users of ${members.size - 1} other families: ${shown.join(', ')}, …`;
}

class Families {
  private readonly parent: Int32Array;
  constructor(n: number) {
    this.parent = Int32Array.from({ length: n }, (_, i) => i);
  }
  of(i: number): number {
    const { parent } = this;
    let at = i;
    while (parent[at] !== at) {
      parent[at] = parent[parent[at] as number] as number;
      at = parent[at] as number;
    }
    return at;
  }
  join(a: number, b: number): void {
    const ra = this.of(a);
    const rb = this.of(b);
    if (ra !== rb) this.parent[Math.max(ra, rb)] = Math.min(ra, rb);
  }
}
