// Resolves a OneRoster path to what it reads: a collection (a list of record indices of one kind) or a
// single record. Lists of whole collections are ranges (no O(N) work per page); nested lists are computed
// once and cached by the caller.
import {
  classStudents,
  type District,
  groupOf,
  SESSION_COUNT,
  SUBJECT_COUNT,
  studentClass,
  teacherSecondarySchool,
} from './district.js';
import { OneRosterError } from './errors.js';
import { countOf, indexOf, type Kind } from './records.js';

/** Record indices in serving order. */
export interface IndexList {
  readonly length: number;
  at(i: number): number;
}

export class Range implements IndexList {
  constructor(
    readonly start: number,
    readonly end: number,
  ) {}
  get length(): number {
    return Math.max(0, this.end - this.start);
  }
  at(i: number): number {
    return this.start + i;
  }
}

export class Indices implements IndexList {
  constructor(readonly items: Int32Array | Uint32Array | number[]) {}
  get length(): number {
    return this.items.length;
  }
  at(i: number): number {
    return this.items[i]!;
  }
}

export const WRAPPER: Record<Kind, { many: string; one: string }> = {
  org: { many: 'orgs', one: 'org' },
  academicSession: { many: 'academicSessions', one: 'academicSession' },
  course: { many: 'courses', one: 'course' },
  class: { many: 'classes', one: 'class' },
  user: { many: 'users', one: 'user' },
  enrollment: { many: 'enrollments', one: 'enrollment' },
  demographics: { many: 'demographics', one: 'demographics' },
};

interface CollectionDef {
  kind: Kind;
  /** Noun used in 404 descriptions. */
  noun: string;
  /** The key of a single read named after the path (the `wrappers` quirk): student, term, … */
  one: string;
  all(d: District): Range;
}

const TEACHERS = (d: District): Range => new Range(d.studentCount, d.studentCount + d.teacherCount);

export const COLLECTIONS: Record<string, CollectionDef> = {
  academicSessions: {
    kind: 'academicSession',
    noun: 'academic session',
    one: 'academicSession',
    all: () => new Range(0, SESSION_COUNT),
  },
  terms: { kind: 'academicSession', noun: 'term', one: 'term', all: () => new Range(1, 3) },
  gradingPeriods: {
    kind: 'academicSession',
    noun: 'grading period',
    one: 'gradingPeriod',
    all: () => new Range(3, SESSION_COUNT),
  },
  classes: { kind: 'class', noun: 'class', one: 'class', all: (d) => new Range(0, d.classes.length) },
  courses: { kind: 'course', noun: 'course', one: 'course', all: (d) => new Range(0, d.courses.length) },
  demographics: {
    kind: 'demographics',
    noun: 'demographics record',
    one: 'demographic',
    all: (d) => new Range(0, d.studentCount),
  },
  enrollments: {
    kind: 'enrollment',
    noun: 'enrollment',
    one: 'enrollment',
    all: (d) => new Range(0, countOf(d, 'enrollment')),
  },
  orgs: { kind: 'org', noun: 'org', one: 'org', all: (d) => new Range(0, 1 + d.schools.length) },
  schools: { kind: 'org', noun: 'school', one: 'school', all: (d) => new Range(1, 1 + d.schools.length) },
  students: { kind: 'user', noun: 'student', one: 'student', all: (d) => new Range(0, d.studentCount) },
  teachers: { kind: 'user', noun: 'teacher', one: 'teacher', all: TEACHERS },
  users: { kind: 'user', noun: 'user', one: 'user', all: (d) => new Range(0, countOf(d, 'user')) },
};

export type Target =
  | { type: 'single'; kind: Kind; index: number }
  | { type: 'list'; kind: Kind; key: string; list: () => IndexList };

/** Index of `id` within collection `name` (typed: a teacher is not found under /students), or 404. */
function member(d: District, name: string, id: string): number {
  const def = COLLECTIONS[name]!;
  const index = indexOf(d, def.kind, id);
  const range = def.all(d);
  if (index < range.start || index >= range.end) {
    throw new OneRosterError(`${cap(def.noun)} '${id}' not found`, 'unknownobject', 404);
  }
  return index;
}

const cap = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

const sorted = (xs: number[]): Indices => new Indices(Int32Array.from(xs).sort());

type Nested = (d: District, parent: number) => IndexList;

/** Nested reads: parent collection -> child name -> (child kind, list). */
const NESTED: Record<string, Record<string, { kind: Kind; list: Nested }>> = {
  schools: {
    students: { kind: 'user', list: (d, org) => schoolStudents(d, org - 1) },
    teachers: { kind: 'user', list: (d, org) => schoolTeachers(d, org - 1) },
    classes: {
      kind: 'class',
      list: (d, org) => new Range(d.schoolClassStart[org - 1]!, d.schoolClassStart[org]!),
    },
    courses: {
      kind: 'course',
      list: (d, org) => sorted(d.courses.flatMap((c, i) => (c.school === org - 1 ? [i] : []))),
    },
    enrollments: { kind: 'enrollment', list: (d, org) => schoolEnrollments(d, org - 1) },
    // Terms are district-wide: every school runs on the same calendar.
    terms: { kind: 'academicSession', list: () => new Range(1, 3) },
  },
  classes: {
    students: { kind: 'user', list: (d, c) => new Indices(classStudents(d, c)) },
    teachers: { kind: 'user', list: (d, c) => new Indices([d.studentCount + d.classes[c]!.teacher]) },
  },
  students: {
    classes: { kind: 'class', list: (d, s) => sorted(studentClasses(d, s)) },
  },
  teachers: {
    classes: { kind: 'class', list: (d, u) => teacherClasses(d, u) },
  },
  users: {
    classes: {
      kind: 'class',
      list: (d, u) => (u < d.studentCount ? sorted(studentClasses(d, u)) : teacherClasses(d, u)),
    },
  },
  terms: {
    classes: {
      kind: 'class',
      list: (d, t) => sorted(d.classes.flatMap((c, i) => (c.terms.includes(t) ? [i] : []))),
    },
    gradingPeriods: { kind: 'academicSession', list: (d, t) => new Indices([...d.sessions[t]!.children]) },
  },
  courses: {
    classes: {
      kind: 'class',
      list: (d, c) => new Range(d.courses[c]!.classStart, d.courses[c]!.classStart + d.courses[c]!.sections),
    },
  },
};

function studentClasses(d: District, s: number): number[] {
  return Array.from({ length: SUBJECT_COUNT }, (_, k) => studentClass(d, s, k));
}

function teacherClasses(d: District, u: number): IndexList {
  const t = u - d.studentCount;
  if (t < 0 || t >= d.teacherCount) return new Range(0, 0);
  return new Range(d.teacherClassStart[t]!, d.teacherClassEnd[t]!);
}

function schoolStudents(d: District, school: number): IndexList {
  const out: number[] = [];
  for (const grade of d.schools[school]!.grades) {
    const g = groupOf(school, grade);
    for (let r = d.groupStart[g]!; r < d.groupStart[g + 1]!; r++) out.push(d.groupMembers[r]!);
  }
  return sorted(out);
}

/** Teachers whose primary school is this one, plus those with a secondary role here. */
function schoolTeachers(d: District, school: number): IndexList {
  const out: number[] = [];
  for (let t = 0; t < d.teacherCount; t++) {
    if (d.teacherSchool[t] === school || teacherSecondarySchool(d, t) === school)
      out.push(d.studentCount + t);
  }
  return new Indices(out);
}

function schoolEnrollments(d: District, school: number): IndexList {
  const out: number[] = [];
  for (let i = 0; i < d.studentCount; i++) {
    if (d.studentSchool[i] !== school) continue;
    for (let k = 0; k < SUBJECT_COUNT; k++) out.push(i * SUBJECT_COUNT + k);
  }
  const base = d.studentCount * SUBJECT_COUNT;
  for (let c = d.schoolClassStart[school]!; c < d.schoolClassStart[school + 1]!; c++) out.push(base + c);
  return new Indices(Int32Array.from(out));
}

/**
 * Maps decoded path segments (below the version prefix) to a target, or throws a 404 OneRosterError.
 * Returns undefined for paths that are not OneRoster rostering reads at all.
 */
export function resolve(d: District, segments: string[]): Target | undefined {
  const [name, id, child, childId, grandChild] = segments;
  if (name === undefined || !Object.hasOwn(COLLECTIONS, name)) return undefined;
  const def = COLLECTIONS[name]!;
  if (id === undefined) return { type: 'list', kind: def.kind, key: name, list: () => def.all(d) };
  if (child === undefined) return { type: 'single', kind: def.kind, index: member(d, name, id) };
  // /schools/{id}/classes/{classId}/students|teachers|enrollments
  if (name === 'schools' && child === 'classes' && childId !== undefined && grandChild !== undefined) {
    if (segments.length > 5) return undefined;
    const school = member(d, 'schools', id);
    const c = member(d, 'classes', childId);
    if (d.courses[d.classes[c]!.course]!.school !== school - 1) {
      throw new OneRosterError(`Class '${childId}' not found in school '${id}'`, 'unknownobject', 404);
    }
    const key = `schools/${id}/classes/${childId}/${grandChild}`;
    if (grandChild === 'students' || grandChild === 'teachers') {
      const nested = NESTED.classes![grandChild]!;
      return { type: 'list', kind: nested.kind, key, list: () => nested.list(d, c) };
    }
    if (grandChild === 'enrollments') {
      return { type: 'list', kind: 'enrollment', key, list: () => classEnrollments(d, c) };
    }
    return undefined;
  }
  if (segments.length > 3) return undefined;
  const nested = NESTED[name]?.[child];
  if (!nested) return undefined;
  const parent = member(d, name, id);
  return {
    type: 'list',
    kind: nested.kind,
    key: `${name}/${id}/${child}`,
    list: () => nested.list(d, parent),
  };
}

function classEnrollments(d: District, c: number): IndexList {
  const cls = d.classes[c]!;
  const subject = d.courses[cls.course]!.subject;
  const out = classStudents(d, c).map((s) => s * SUBJECT_COUNT + subject);
  out.push(d.studentCount * SUBJECT_COUNT + c);
  return new Indices(out);
}
