// Renders one record of the seeded district in the JSON shape of OneRoster 1.1 or 1.2 (checked against the
// official OpenAPI schemas by the contract test). Records are built per request from indices, never stored.
import {
  ADMIN_COUNT,
  adminId,
  DISTRICT_ID,
  DISTRICT_NAME,
  type District,
  GRADES,
  SUBJECT_COUNT,
  SUBJECTS,
  studentClass,
  studentId,
  teacherId,
  teacherSecondarySchool,
} from './district.js';
import { danglingRank } from './families.js';
import {
  demographic,
  type Guardian,
  guardian,
  guardianId,
  type Person,
  person,
  RACE_FIELDS,
} from './people.js';
import { hash32 } from './prng.js';

export type Version = '1.1' | '1.2';
export type Kind = 'org' | 'academicSession' | 'course' | 'class' | 'user' | 'enrollment' | 'demographics';
export type Rec = Record<string, unknown>;

export interface RenderContext {
  d: District;
  version: Version;
  /** Absolute base of hrefs, e.g. `http://localhost:8080/v1/ims/oneroster/v1p1`. */
  base: string;
  /** 1.1 enabledUser: a mix of booleans and strings (default), or all one way. */
  enabledUser11: 'mixed' | 'boolean' | 'string';
  /** Write absent optional 1.1 user fields as null (off by default: the official schemas reject nulls). */
  nulls: boolean;
  /** Which side of a student-guardian link carries `agents` (the standard asks for both; servers vary). */
  agents: AgentsSide;
}

export type AgentsSide = 'both' | 'students' | 'guardians';
export const AGENTS_SIDES: readonly AgentsSide[] = ['both', 'students', 'guardians'];

const COLLECTION_OF: Record<Kind, string> = {
  org: 'orgs',
  academicSession: 'academicSessions',
  course: 'courses',
  class: 'classes',
  user: 'users',
  enrollment: 'enrollments',
  demographics: 'demographics',
};

function ref(ctx: RenderContext, kind: Kind, sourcedId: string): Rec {
  return {
    href: `${ctx.base}/${COLLECTION_OF[kind]}/${encodeURIComponent(sourcedId)}`,
    sourcedId,
    type: kind,
  };
}

/** Stable "last modified" for structural records (orgs, sessions, courses, classes). */
function structuralModified(kind: number, i: number): string {
  const h = hash32(kind, i);
  return new Date(Date.UTC(2025, 6, 1) + (h % (60 * 86400)) * 1000).toISOString();
}

// ---- index spaces: users are [students | teachers | admins | guardians]; orgs [district | schools];
// ---- enrollments [6 per student | 1 per class for its teacher]; demographics = students.

/** First user index of the guardians (after students, teachers and administrators). */
export function guardianBase(d: District): number {
  return d.studentCount + d.teacherCount + ADMIN_COUNT;
}
export function userCount(d: District): number {
  return guardianBase(d) + d.families.guardianCount;
}
export function enrollmentCount(d: District): number {
  return d.studentCount * SUBJECT_COUNT + d.classes.length;
}
export function countOf(d: District, kind: Kind): number {
  switch (kind) {
    case 'org':
      return 1 + d.schools.length;
    case 'academicSession':
      return d.sessions.length;
    case 'course':
      return d.courses.length;
    case 'class':
      return d.classes.length;
    case 'user':
      return userCount(d);
    case 'enrollment':
      return enrollmentCount(d);
    case 'demographics':
      return d.studentCount;
  }
}

export function userSourcedId(d: District, u: number): string {
  if (u < d.studentCount) return studentId(u);
  if (u < d.studentCount + d.teacherCount) return teacherId(u - d.studentCount);
  if (u < guardianBase(d)) return adminId(u - d.studentCount - d.teacherCount);
  return guardianId(u - guardianBase(d));
}

function enrollmentSourcedId(d: District, e: number): string {
  const studentEnrollments = d.studentCount * SUBJECT_COUNT;
  if (e < studentEnrollments) {
    return `enr-${studentId(Math.floor(e / SUBJECT_COUNT))}-${SUBJECTS[e % SUBJECT_COUNT]!.code}`;
  }
  return `enr-${d.classes[e - studentEnrollments]!.sourcedId}-tch`;
}

export function sourcedIdOf(d: District, kind: Kind, i: number): string {
  switch (kind) {
    case 'org':
      return i === 0 ? DISTRICT_ID : d.schools[i - 1]!.sourcedId;
    case 'academicSession':
      return d.sessions[i]!.sourcedId;
    case 'course':
      return d.courses[i]!.sourcedId;
    case 'class':
      return d.classes[i]!.sourcedId;
    case 'user':
      return userSourcedId(d, i);
    case 'enrollment':
      return enrollmentSourcedId(d, i);
    case 'demographics':
      return studentId(i);
  }
}

/** Index of a sourcedId in its kind's space, or -1. */
export function indexOf(d: District, kind: Kind, id: string): number {
  switch (kind) {
    case 'org': {
      if (id === DISTRICT_ID) return 0;
      const s = d.schools.findIndex((x) => x.sourcedId === id);
      return s < 0 ? -1 : s + 1;
    }
    case 'academicSession':
      return d.sessions.findIndex((s) => s.sourcedId === id);
    case 'course':
      return d.courseById.get(id) ?? -1;
    case 'class':
      return d.classById.get(id) ?? -1;
    case 'user':
      return userIndex(d, id);
    case 'enrollment':
      return enrollmentIndex(d, id);
    case 'demographics': {
      const u = userIndex(d, id);
      return u >= 0 && u < d.studentCount ? u : -1;
    }
  }
}

function numbered(id: string, prefix: string, width: number): number {
  if (id.length !== prefix.length + width || !id.startsWith(prefix)) return -1;
  const digits = id.slice(prefix.length);
  if (!/^\d+$/.test(digits)) return -1;
  return Number(digits) - 1;
}

function userIndex(d: District, id: string): number {
  const s = numbered(id, 'stu-', 6);
  if (s >= 0) return s < d.studentCount ? s : -1;
  const t = numbered(id, 'tch-', 5);
  if (t >= 0) return t < d.teacherCount ? d.studentCount + t : -1;
  const a = numbered(id, 'adm-', 3);
  if (a >= 0) return a < ADMIN_COUNT ? d.studentCount + d.teacherCount + a : -1;
  const g = numbered(id, 'gdn-', 6);
  if (g >= 0) return g < d.families.guardianCount ? guardianBase(d) + g : -1;
  return -1;
}

function enrollmentIndex(d: District, id: string): number {
  const teacher = /^enr-(cls-.+)-tch$/.exec(id);
  if (teacher) {
    const c = d.classById.get(teacher[1]!);
    return c === undefined ? -1 : d.studentCount * SUBJECT_COUNT + c;
  }
  const student = /^enr-(stu-\d{6})-([A-Z]+)$/.exec(id);
  if (!student) return -1;
  const s = userIndex(d, student[1]!);
  const k = SUBJECTS.findIndex((x) => x.code === student[2]);
  return s >= 0 && s < d.studentCount && k >= 0 ? s * SUBJECT_COUNT + k : -1;
}

// ---- rendering

export function render(ctx: RenderContext, kind: Kind, i: number): Rec {
  switch (kind) {
    case 'org':
      return renderOrg(ctx, i);
    case 'academicSession':
      return renderSession(ctx, i);
    case 'course':
      return renderCourse(ctx, i);
    case 'class':
      return renderClass(ctx, i);
    case 'user':
      return renderUser(ctx, i);
    case 'enrollment':
      return renderEnrollment(ctx, i);
    case 'demographics':
      return renderDemographics(ctx, i);
  }
}

function renderOrg(ctx: RenderContext, i: number): Rec {
  const base = {
    sourcedId: sourcedIdOf(ctx.d, 'org', i),
    status: 'active',
    dateLastModified: structuralModified(10, i),
  };
  if (i === 0) {
    return {
      ...base,
      name: DISTRICT_NAME,
      type: 'district',
      identifier: '3600010',
      children: ctx.d.schools.map((s) => ref(ctx, 'org', s.sourcedId)),
    };
  }
  const school = ctx.d.schools[i - 1]!;
  return {
    ...base,
    name: school.name,
    type: 'school',
    identifier: school.identifier,
    parent: ref(ctx, 'org', DISTRICT_ID),
  };
}

function renderSession(ctx: RenderContext, i: number): Rec {
  const s = ctx.d.sessions[i]!;
  const rec: Rec = {
    sourcedId: s.sourcedId,
    status: 'active',
    dateLastModified: structuralModified(11, i),
    title: s.title,
    startDate: s.startDate,
    endDate: s.endDate,
    type: s.type,
  };
  if (s.parent !== undefined) rec.parent = ref(ctx, 'academicSession', ctx.d.sessions[s.parent]!.sourcedId);
  rec.children = s.children.map((c) => ref(ctx, 'academicSession', ctx.d.sessions[c]!.sourcedId));
  rec.schoolYear = ctx.d.schoolYear;
  return rec;
}

function gradeLabel(grade: number): string {
  return grade === 0 ? 'Kindergarten' : `Grade ${grade}`;
}

function renderCourse(ctx: RenderContext, i: number): Rec {
  const c = ctx.d.courses[i]!;
  const subject = SUBJECTS[c.subject]!;
  return {
    sourcedId: c.sourcedId,
    status: 'active',
    dateLastModified: structuralModified(12, i),
    title: `${gradeLabel(c.grade)} ${subject.name}`,
    schoolYear: ref(ctx, 'academicSession', ctx.d.sessions[0]!.sourcedId),
    courseCode: `${subject.code}-${GRADES[c.grade]}`,
    grades: [GRADES[c.grade]!],
    subjects: [subject.name],
    org: ref(ctx, 'org', ctx.d.schools[c.school]!.sourcedId),
    subjectCodes: [`${subject.sced}0${c.grade % 10}`],
  };
}

function renderClass(ctx: RenderContext, i: number): Rec {
  const cls = ctx.d.classes[i]!;
  const c = ctx.d.courses[cls.course]!;
  const subject = SUBJECTS[c.subject]!;
  const section = String(cls.section + 1).padStart(2, '0');
  const period = String(1 + ((c.subject + cls.section) % 7));
  const homeroom = c.grade <= 5 && subject.code === 'ELA';
  return {
    sourcedId: cls.sourcedId,
    status: 'active',
    dateLastModified: structuralModified(13, i),
    title: `${gradeLabel(c.grade)} ${subject.name} - Section ${section}`,
    classCode: `${subject.code}-${GRADES[c.grade]}-${section}`,
    classType: homeroom ? 'homeroom' : 'scheduled',
    location: `Room ${100 * (1 + (c.grade % 3)) + ((cls.section * 7 + c.subject) % 40)}`,
    grades: [GRADES[c.grade]!],
    subjects: [subject.name],
    course: ref(ctx, 'course', c.sourcedId),
    school: ref(ctx, 'org', ctx.d.schools[c.school]!.sourcedId),
    terms: cls.terms.map((t) => ref(ctx, 'academicSession', ctx.d.sessions[t]!.sourcedId)),
    subjectCodes: [`${subject.sced}0${c.grade % 10}`],
    // 1.1 writes periods as one string, 1.2 as a list.
    periods: ctx.version === '1.1' ? period : [period],
  };
}

interface UserFacts {
  p: Person;
  role: 'student' | 'teacher' | 'administrator';
  /** School indices (0-based), first is primary; empty for district staff. */
  schools: number[];
  grades?: string[];
  identifier: string;
  idType: string;
}

function userFacts(d: District, u: number): UserFacts {
  if (u < d.studentCount) {
    return {
      p: person(d.seed, 'student', u),
      role: 'student',
      schools: [d.studentSchool[u]!],
      grades: [GRADES[d.studentGrade[u]!]!],
      identifier: String(100000 + u + 1),
      idType: 'studentNumber',
    };
  }
  const t = u - d.studentCount;
  if (t < d.teacherCount) {
    const school = d.teacherSchool[t]!;
    const schools = [school];
    const second = teacherSecondarySchool(d, t);
    if (second !== undefined) schools.push(second);
    return {
      p: person(d.seed, 'teacher', t),
      role: 'teacher',
      schools,
      identifier: `T${String(t + 1).padStart(5, '0')}`,
      idType: 'staffNumber',
    };
  }
  const a = u - d.studentCount - d.teacherCount;
  return {
    p: person(d.seed, 'admin', a),
    role: 'administrator',
    // The first two administrators are district staff; the third runs the first school.
    schools: a < 2 ? [] : [0],
    identifier: `A${String(a + 1).padStart(3, '0')}`,
    idType: 'staffNumber',
  };
}

function renderUser(ctx: RenderContext, u: number): Rec {
  if (u >= guardianBase(ctx.d)) return renderGuardian(ctx, u - guardianBase(ctx.d));
  const f = userFacts(ctx.d, u);
  const { p } = f;
  const sourcedId = userSourcedId(ctx.d, u);
  const orgIds = f.schools.length ? f.schools.map((s) => ctx.d.schools[s]!.sourcedId) : [DISTRICT_ID];
  const username = p.email ? p.email.slice(0, p.email.indexOf('@')) : sourcedId;
  const rec: Rec = {
    sourcedId,
    status: ctx.d.traps ? p.status : 'active',
    dateLastModified: p.dateLastModified,
  };
  if (p.metadata) rec.metadata = p.metadata;
  if (ctx.version === '1.1') addUserFields11(ctx, rec, f, username);
  else addUserFields12(ctx, rec, f, username, orgIds);
  addContacts(rec, p, ctx.nulls && ctx.version === '1.1');
  rec.agents = f.role === 'student' && ctx.agents !== 'guardians' ? studentAgents(ctx, u) : [];
  if (ctx.version === '1.1') rec.orgs = orgIds.map((org) => ref(ctx, 'org', org));
  if (f.grades) rec.grades = f.grades;
  if (p.password !== undefined) rec.password = p.password;
  return rec;
}

/** A user's names and ids as 1.1 writes them: enabledUser a boolean or a string, its one role. */
function addUserFields11(ctx: RenderContext, rec: Rec, f: UserFacts, username: string): void {
  const { p } = f;
  const asString = ctx.enabledUser11 === 'string' || (ctx.enabledUser11 === 'mixed' && p.enabledAsString);
  Object.assign(rec, {
    username,
    userIds: [{ type: f.idType, identifier: f.identifier }],
    enabledUser: asString ? String(p.enabled) : p.enabled,
    givenName: p.givenName,
    familyName: p.familyName,
  });
  if (p.middleName !== undefined) rec.middleName = p.middleName;
  else if (ctx.nulls) rec.middleName = null;
  rec.role = f.role;
  rec.identifier = f.identifier;
}

/** A user's names and ids as 1.2 writes them: its master identifier, a role at each of its orgs. */
function addUserFields12(
  ctx: RenderContext,
  rec: Rec,
  f: UserFacts,
  username: string,
  orgIds: string[],
): void {
  const { p } = f;
  Object.assign(rec, {
    userMasterIdentifier: `RUSD-${f.identifier}`,
    username,
    userIds: [{ type: f.idType, identifier: f.identifier }],
    enabledUser: String(p.enabled),
    givenName: p.givenName,
    familyName: p.familyName,
  });
  if (p.middleName !== undefined) rec.middleName = p.middleName;
  if (p.preferredFirstName !== undefined) rec.preferredFirstName = p.preferredFirstName;
  if (p.pronouns !== undefined) rec.pronouns = p.pronouns;
  const role12 =
    f.role !== 'administrator' ? f.role : f.schools.length ? 'siteAdministrator' : 'districtAdministrator';
  rec.roles = orgIds.map((org, k) => ({
    roleType: k === 0 ? 'primary' : 'secondary',
    role: role12,
    org: ref(ctx, 'org', org),
    beginDate: ctx.d.sessions[0]!.startDate,
  }));
  rec.primaryOrg = ref(ctx, 'org', orgIds[0]!);
  rec.identifier = f.identifier;
}

/** E-mail, sms and phone where the person has them; `nullSms`: an absent sms written as null. */
function addContacts(rec: Rec, p: { email?: string; sms?: string; phone?: string }, nullSms: boolean): void {
  if (p.email !== undefined) rec.email = p.email;
  if (p.sms !== undefined) rec.sms = p.sms;
  else if (nullSms) rec.sms = null;
  if (p.phone !== undefined) rec.phone = p.phone;
}

/** A student's guardians (relatives too), and the id of one the API does not return in a dangling family. */
function studentAgents(ctx: RenderContext, student: number): Rec[] {
  const fam = ctx.d.families;
  const f = fam.studentFamily[student]!;
  const out: Rec[] = [];
  for (let g = fam.familyGuardianStart[f]!; g < fam.familyGuardianStart[f + 1]!; g++)
    out.push(ref(ctx, 'user', guardianId(g)));
  const rank = danglingRank(fam, f);
  if (rank >= 0) out.push(ref(ctx, 'user', guardianId(fam.guardianCount + rank)));
  return out;
}

/** A parent, guardian or relative: a user of the children's schools (1.1 orgs, 1.2 roles), linked to them. */
function renderGuardian(ctx: RenderContext, g: number): Rec {
  const fam = ctx.d.families;
  const f = fam.guardianFamily[g]!;
  const p = guardian(ctx.d, g);
  const sourcedId = guardianId(g);
  const first = fam.familyStudentStart[f]!;
  const end = fam.familyStudentStart[f + 1]!;
  const orgIds = childrenSchools(ctx.d, first, end);
  const rec: Rec = {
    sourcedId,
    status: ctx.d.traps ? p.status : 'active',
    dateLastModified: p.dateLastModified,
  };
  const names: GuardianNames = {
    p,
    identifier: `P${String(g + 1).padStart(6, '0')}`,
    username: guardianUsername(p.email, sourcedId),
  };
  Object.assign(
    rec,
    ctx.version === '1.1' ? guardianFields11(ctx, g, names) : guardianFields12(ctx, names, orgIds),
  );
  addContacts(rec, p, false);
  const agents: Rec[] = [];
  if (ctx.agents !== 'students')
    for (let i = first; i < end; i++) agents.push(ref(ctx, 'user', studentId(i)));
  rec.agents = agents;
  if (ctx.version === '1.1')
    rec.orgs = (orgIds.length ? orgIds : [DISTRICT_ID]).map((org) => ref(ctx, 'org', org));
  return rec;
}

/** The schools of students first … end - 1 (a family's children), each once, in their order. */
function childrenSchools(d: District, first: number, end: number): string[] {
  const orgIds: string[] = [];
  for (let i = first; i < end; i++) {
    const org = d.schools[d.studentSchool[i]!]!.sourcedId;
    if (!orgIds.includes(org)) orgIds.push(org);
  }
  return orgIds;
}

/** The e-mail's local part when the address is a plain one, else the sourcedId. */
function guardianUsername(email: string | undefined, sourcedId: string): string {
  const trimmed = email?.trim();
  return trimmed && /^[^\s"<>@]+@/.test(trimmed) ? trimmed.slice(0, trimmed.indexOf('@')) : sourcedId;
}

interface GuardianNames {
  p: Guardian;
  identifier: string;
  username: string;
}

/** A guardian's names and ids as 1.1 writes them: enabledUser a boolean or a string. */
function guardianFields11(ctx: RenderContext, g: number, { p, identifier, username }: GuardianNames): Rec {
  const asString = ctx.enabledUser11 === 'string' || (ctx.enabledUser11 === 'mixed' && g % 3 === 0);
  return {
    username,
    userIds: [{ type: 'guardianId', identifier }],
    enabledUser: asString ? 'true' : true,
    givenName: p.givenName,
    familyName: p.familyName,
    role: p.role,
    identifier,
  };
}

/** A guardian's names and ids as 1.2 writes them: a role at each school of the children. */
function guardianFields12(
  ctx: RenderContext,
  { p, identifier, username }: GuardianNames,
  orgIds: string[],
): Rec {
  return {
    userMasterIdentifier: `RUSD-${identifier}`,
    username,
    userIds: [{ type: 'guardianId', identifier }],
    enabledUser: 'true',
    givenName: p.givenName,
    familyName: p.familyName,
    roles: orgIds.map((org, k) => ({
      roleType: k === 0 ? 'primary' : 'secondary',
      role: p.role,
      org: ref(ctx, 'org', org),
    })),
    primaryOrg: ref(ctx, 'org', orgIds[0] ?? DISTRICT_ID),
    identifier,
  };
}

function renderEnrollment(ctx: RenderContext, e: number): Rec {
  const d = ctx.d;
  const studentEnrollments = d.studentCount * SUBJECT_COUNT;
  const isStudent = e < studentEnrollments;
  const student = Math.floor(e / SUBJECT_COUNT);
  const c = isStudent ? studentClass(d, student, e % SUBJECT_COUNT) : e - studentEnrollments;
  const cls = d.classes[c]!;
  const course = d.courses[cls.course]!;
  const userId = isStudent ? studentId(student) : teacherId(cls.teacher);
  const first = ctx.d.sessions[cls.terms[0]!]!;
  const last = ctx.d.sessions[cls.terms[cls.terms.length - 1]!]!;
  const primary = !isStudent;
  return {
    sourcedId: enrollmentSourcedId(d, e),
    status: 'active',
    dateLastModified: structuralModified(14, e),
    user: ref(ctx, 'user', userId),
    class: ref(ctx, 'class', cls.sourcedId),
    school: ref(ctx, 'org', d.schools[course.school]!.sourcedId),
    role: isStudent ? 'student' : 'teacher',
    primary: ctx.version === '1.1' ? primary : String(primary),
    beginDate: first.startDate,
    endDate: last.endDate,
  };
}

function renderDemographics(ctx: RenderContext, i: number): Rec {
  const p = person(ctx.d.seed, 'student', i);
  const dem = demographic(ctx.d.seed, i, ctx.d.studentGrade[i]!, p.sex);
  // 1.1 booleans are JSON booleans and sex is male|female only; 1.2 uses "true"/"false" strings. Both use the
  // standard's spelling americanIndianOrAlaskaNative (the 1.1 OpenAPI file's "Alsaka" is a known typo).
  const bool = (b: boolean): boolean | string => (ctx.version === '1.1' ? b : String(b));
  const rec: Rec = {
    sourcedId: studentId(i),
    status: 'active',
    dateLastModified: dem.dateLastModified,
    birthDate: dem.birthDate,
  };
  if (ctx.version === '1.2' || dem.sex === 'male' || dem.sex === 'female') rec.sex = dem.sex;
  for (const f of RACE_FIELDS) rec[f] = bool(dem.races[f] ?? false);
  rec.demographicRaceTwoOrMoreRaces = bool(RACE_FIELDS.filter((f) => dem.races[f]).length > 1);
  if (dem.hispanic !== undefined) rec.hispanicOrLatinoEthnicity = bool(dem.hispanic);
  if (dem.country !== undefined) rec.countryOfBirthCode = dem.country;
  if (dem.state !== undefined) rec.stateOfBirthAbbreviation = dem.state;
  if (dem.city !== undefined) rec.cityOfBirth = dem.city;
  if (dem.residence !== undefined) rec.publicSchoolResidenceStatus = dem.residence;
  return rec;
}
