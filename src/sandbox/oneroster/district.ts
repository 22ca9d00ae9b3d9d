// The seeded district's structure, stored compactly (typed arrays, no per-student objects): who is in
// which school, grade, class. Everything per-record (names, e-mails, dates) is derived on demand in
// people.ts from (seed, index), so 200,000 students cost a few megabytes.
import { buildFamilies, type Families } from './families.js';
import { hash32, KIND, rngFor } from './prng.js';

export const GRADES = ['KG', '01', '02', '03', '04', '05', '06', '07', '08', '09', '10', '11', '12'] as const;

export const SUBJECTS = [
  { code: 'MATH', name: 'Mathematics', sced: '02' },
  { code: 'ELA', name: 'English Language Arts', sced: '01' },
  { code: 'SCI', name: 'Science', sced: '03' },
  { code: 'SOC', name: 'Social Studies', sced: '04' },
  { code: 'ART', name: 'Art', sced: '05' },
  { code: 'PE', name: 'Physical Education', sced: '08' },
] as const;
export const SUBJECT_COUNT = SUBJECTS.length;

/** Art and PE run for one semester (alternating by section); the rest for the whole year. */
export const SEMESTER_SUBJECTS = new Set([4, 5]);

export interface SchoolInfo {
  sourcedId: string;
  name: string;
  identifier: string;
  /** Grade indices (into GRADES) the school serves. */
  grades: readonly number[];
}

export const DISTRICT_ID = 'org-district';
export const DISTRICT_NAME = 'Riverside Unified School District';

/** Teaching schools of the demo district unless --schools says otherwise. */
export const DEFAULT_SCHOOLS = 5;
export const MAX_SCHOOLS = 100;

// School names: a tree per school, in order (never "Fir": the two Fir Grove campuses below share that name).
const TREES = [
  'Alder',
  'Birch',
  'Cedar',
  'Dogwood',
  'Elm',
  'Hawthorn',
  'Juniper',
  'Laurel',
  'Maple',
  'Oak',
  'Pine',
  'Redwood',
  'Spruce',
  'Sycamore',
  'Willow',
  'Aspen',
  'Hickory',
  'Magnolia',
  'Poplar',
  'Walnut',
  'Chestnut',
  'Cypress',
  'Hemlock',
  'Linden',
  'Sequoia',
];
const ELEMENTARY = [0, 1, 2, 3, 4, 5];
const MIDDLE = [6, 7, 8];
const HIGH = [9, 10, 11, 12];

/** How many elementary, middle and high schools n teaching schools are: 5 is the seeded 3/1/1; otherwise in
 *  proportion to the grades each level serves (6:3:4), so schools of every level have about as many students. */
function levels(n: number): [elementary: number, middle: number, high: number] {
  if (n === DEFAULT_SCHOOLS) return [3, 1, 1];
  const shares = [6, 3, 4].map((g) => (n * g) / GRADES.length);
  const counts = shares.map((x) => Math.max(1, Math.floor(x)));
  const order = [0, 1, 2].sort(
    (a, b) => shares[b]! - Math.floor(shares[b]!) - (shares[a]! - Math.floor(shares[a]!)),
  );
  for (let k = 0; counts[0]! + counts[1]! + counts[2]! < n; k++) counts[order[k % 3]!]!++;
  return counts as [number, number, number];
}

/**
 * The district's schools: n teaching schools (elementary, then middle, then high; one K-12 school when n is
 * 1, K-5 and 6-12 when n is 2), then two campuses of one K-8 program reported under one name, as SIS exports
 * often do: a school name that matches two schools (roster's --school-id resolution must refuse it). The
 * campuses have no students or staff. n = 5 is the seeded district that tests and the demo know by name.
 */
export function schoolLayout(n: number = DEFAULT_SCHOOLS): SchoolInfo[] {
  const plan: { grades: number[]; kind: string }[] = [];
  if (n === 1) plan.push({ grades: [...ELEMENTARY, ...MIDDLE, ...HIGH], kind: 'School' });
  else if (n === 2) {
    plan.push({ grades: ELEMENTARY, kind: 'Elementary School' });
    plan.push({ grades: [...MIDDLE, ...HIGH], kind: 'Secondary School' });
  } else {
    const [e, m, h] = levels(n);
    for (let k = 0; k < e; k++) plan.push({ grades: ELEMENTARY, kind: 'Elementary School' });
    for (let k = 0; k < m; k++) plan.push({ grades: MIDDLE, kind: 'Middle School' });
    for (let k = 0; k < h; k++) plan.push({ grades: HIGH, kind: 'High School' });
  }
  const schools: SchoolInfo[] = plan.map((p, s) => {
    const round = Math.floor(s / TREES.length);
    return {
      sourcedId: `org-sch-${s + 1}`,
      name: `${TREES[s % TREES.length]} ${p.kind}${round ? ` No. ${round + 1}` : ''}`,
      identifier: `3600010${pad(s + 1, 5)}`,
      grades: p.grades,
    };
  });
  for (let k = 1; k <= 2; k++) {
    schools.push({
      sourcedId: `org-sch-${n + k}`,
      name: 'Fir Grove School',
      identifier: `3600010${pad(n + k, 5)}`,
      grades: [],
    });
  }
  return schools;
}

export interface SessionInfo {
  sourcedId: string;
  title: string;
  type: 'schoolYear' | 'term' | 'gradingPeriod';
  startDate: string;
  endDate: string;
  /** Index of the parent session, if any. */
  parent?: number;
  children: readonly number[];
}

/** Sessions of a school year: the year, two terms, four grading periods (indices are stable: 0 year, 1-2
 *  terms, 3-6 periods). */
export const SESSION_COUNT = 7;

/** A day as YYYY-MM-DD (UTC, as `roster roster audit` takes today). */
export const isoDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/**
 * The school year that contains `today` (YYYY-MM-DD), as the sandbox serves it: July 1 to June 30, so every
 * day of the calendar is in one, with its terms and grading periods inside it (fall: August 25 to January
 * 16, spring: January 20 to June 12). Its ids and titles name its years (as-2026-27, "2026-2027 School
 * Year"), as a SIS names them.
 */
export function schoolYearSessions(today: string): SessionInfo[] {
  const year = Number(today.slice(0, 4));
  const first = Number(today.slice(5, 7)) >= 7 ? year : year - 1;
  const second = first + 1;
  const id = `as-${first}-${String(second % 100).padStart(2, '0')}`;
  const a = (md: string) => `${first}-${md}`;
  const b = (md: string) => `${second}-${md}`;
  const period = (n: number, startDate: string, endDate: string, parent: number): SessionInfo => ({
    sourcedId: `${id}-gp${n}`,
    title: `Quarter ${n}`,
    type: 'gradingPeriod',
    startDate,
    endDate,
    parent,
    children: [],
  });
  return [
    {
      sourcedId: id,
      title: `${first}-${second} School Year`,
      type: 'schoolYear',
      startDate: a('07-01'),
      endDate: b('06-30'),
      children: [1, 2],
    },
    {
      sourcedId: `${id}-t1`,
      title: `Fall ${first}`,
      type: 'term',
      startDate: a('08-25'),
      endDate: b('01-16'),
      parent: 0,
      children: [3, 4],
    },
    {
      sourcedId: `${id}-t2`,
      title: `Spring ${second}`,
      type: 'term',
      startDate: b('01-20'),
      endDate: b('06-12'),
      parent: 0,
      children: [5, 6],
    },
    period(1, a('08-25'), a('10-31'), 1),
    period(2, a('11-03'), b('01-16'), 1),
    period(3, b('01-20'), b('03-27'), 2),
    period(4, b('04-06'), b('06-12'), 2),
  ];
}

export interface CourseInfo {
  sourcedId: string;
  school: number;
  grade: number;
  subject: number;
  /** Index of this course's first class, and how many sections it has (0 when no students). */
  classStart: number;
  sections: number;
}

export interface ClassInfo {
  sourcedId: string;
  course: number;
  section: number;
  /** Teacher index (0-based among teachers). */
  teacher: number;
  /** Session indices of the class's terms. */
  terms: readonly number[];
}

export const ADMIN_COUNT = 3;
const CLASS_SIZE = 25;
const CLASSES_PER_TEACHER = 5;

export { KIND };

export interface District {
  seed: number;
  /** The family traps (`--family-traps`): families invite plan cannot reach, users tobedeleted. */
  traps: boolean;
  /** The school year containing the sandbox's today, its terms and grading periods (schoolYearSessions). */
  sessions: readonly SessionInfo[];
  /** 1.1 `schoolYear` of a session: the year the school year ends in. */
  schoolYear: string;
  /** Teaching schools first (only they have students, classes and teachers), then the Fir Grove campuses. */
  schools: readonly SchoolInfo[];
  teachingSchools: number;
  studentCount: number;
  teacherCount: number;
  studentSchool: Uint8Array;
  studentGrade: Uint8Array;
  /** Rank of the student within its (school, grade) group, ordered by student index. */
  studentRank: Uint32Array;
  /** Students of group g (= school * 13 + grade) are groupMembers[groupStart[g] .. groupStart[g + 1]). */
  groupStart: Uint32Array;
  groupMembers: Uint32Array;
  courses: CourseInfo[];
  /** courseIndex[(school * 13 + grade) * 6 + subject], or -1. */
  courseIndex: Int32Array;
  classes: ClassInfo[];
  classById: Map<string, number>;
  courseById: Map<string, number>;
  teacherSchool: Uint8Array;
  /** First class index of each teacher (a teacher teaches up to 5 consecutive classes of one school). */
  teacherClassStart: Uint32Array;
  teacherClassEnd: Uint32Array;
  /** First teacher index of each school (length schools.length + 1). */
  schoolTeacherStart: Uint32Array;
  schoolClassStart: Uint32Array;
  families: Families;
}

export const groupOf = (school: number, grade: number): number => school * GRADES.length + grade;

export const pad = (n: number, width: number): string => String(n).padStart(width, '0');
export const studentId = (i: number): string => `stu-${pad(i + 1, 6)}`;
export const teacherId = (t: number): string => `tch-${pad(t + 1, 5)}`;
export const adminId = (a: number): string => `adm-${pad(a + 1, 3)}`;

/** School indices serving each grade. */
function schoolsByGrade(schools: readonly SchoolInfo[]): number[][] {
  return GRADES.map((_, grade) => schools.flatMap((s, k) => (s.grades.includes(grade) ? [k] : [])));
}

/** Grade and school of student i: the first draws of its layout stream (stable whatever N is). */
function placeStudent(seed: number, i: number, byGrade: number[][]): [school: number, grade: number] {
  const rng = rngFor(seed, KIND.layout, i);
  const grade = rng.int(GRADES.length);
  const options = byGrade[grade]!;
  return [options[options.length === 1 ? 0 : rng.int(options.length)]!, grade];
}

export interface DistrictShape {
  /** Plant the family traps (and users tobedeleted); default none. */
  traps?: boolean;
  /** YYYY-MM-DD: the day whose school year is served (default today, UTC). */
  today?: string;
}

export function buildDistrict(
  seed: number,
  studentCount: number,
  schoolCount = DEFAULT_SCHOOLS,
  shape: DistrictShape = {},
): District {
  const traps = shape.traps ?? false;
  const sessions = schoolYearSessions(shape.today ?? isoDay(Date.now()));
  const schools = schoolLayout(schoolCount);
  const { groupCount, ...students } = placeStudents(seed, studentCount, schools);
  const teaching = buildTeaching(schools, groupCount);
  const { courses, classes, teacherSchool } = teaching;
  return {
    seed,
    schools,
    teachingSchools: schoolCount,
    studentCount,
    teacherCount: teacherSchool.length,
    ...students,
    courses,
    courseIndex: teaching.courseIndex,
    classes,
    classById: new Map(classes.map((c, i) => [c.sourcedId, i])),
    courseById: new Map(courses.map((c, i) => [c.sourcedId, i])),
    teacherSchool: Uint8Array.from(teacherSchool),
    teacherClassStart: Uint32Array.from(teaching.teacherClassStart),
    teacherClassEnd: Uint32Array.from(teaching.teacherClassEnd),
    schoolTeacherStart: teaching.schoolTeacherStart,
    schoolClassStart: teaching.schoolClassStart,
    families: buildFamilies(seed, studentCount, traps),
    traps,
    sessions,
    schoolYear: sessions[0]!.endDate.slice(0, 4),
  };
}

/** Each student's school, grade and rank in its (school, grade) group, and each group's members. */
function placeStudents(seed: number, studentCount: number, schools: readonly SchoolInfo[]) {
  const byGrade = schoolsByGrade(schools);
  const groups = schools.length * GRADES.length;
  const studentSchool = new Uint8Array(studentCount);
  const studentGrade = new Uint8Array(studentCount);
  const studentRank = new Uint32Array(studentCount);
  const groupCount = new Uint32Array(groups);
  for (let i = 0; i < studentCount; i++) {
    const [school, grade] = placeStudent(seed, i, byGrade);
    studentSchool[i] = school;
    studentGrade[i] = grade;
    const g = groupOf(school, grade);
    studentRank[i] = groupCount[g]!;
    groupCount[g]!++;
  }
  const groupStart = new Uint32Array(groups + 1);
  for (let g = 0; g < groups; g++) groupStart[g + 1] = groupStart[g]! + groupCount[g]!;
  const groupMembers = new Uint32Array(studentCount);
  for (let i = 0; i < studentCount; i++) {
    const g = groupOf(studentSchool[i]!, studentGrade[i]!);
    groupMembers[groupStart[g]! + studentRank[i]!] = i;
  }
  return { studentSchool, studentGrade, studentRank, groupCount, groupStart, groupMembers };
}

/** The courses, classes and teachers of the district, school by school, as they are being built. */
interface Teaching {
  courses: CourseInfo[];
  classes: ClassInfo[];
  courseIndex: Int32Array;
  schoolClassStart: Uint32Array;
  schoolTeacherStart: Uint32Array;
  teacherSchool: number[];
  teacherClassStart: number[];
  teacherClassEnd: number[];
}

function buildTeaching(schools: readonly SchoolInfo[], groupCount: Uint32Array): Teaching {
  const teaching: Teaching = {
    courses: [],
    classes: [],
    courseIndex: new Int32Array(schools.length * GRADES.length * SUBJECT_COUNT).fill(-1),
    schoolClassStart: new Uint32Array(schools.length + 1),
    schoolTeacherStart: new Uint32Array(schools.length + 1),
    teacherSchool: [],
    teacherClassStart: [],
    teacherClassEnd: [],
  };
  schools.forEach((school, s) => {
    teaching.schoolClassStart[s] = teaching.classes.length;
    teaching.schoolTeacherStart[s] = teaching.teacherSchool.length;
    for (const grade of school.grades) addCourses(teaching, s, grade, groupCount[groupOf(s, grade)]!);
    addTeachers(teaching, s, school);
  });
  teaching.schoolClassStart[schools.length] = teaching.classes.length;
  teaching.schoolTeacherStart[schools.length] = teaching.teacherSchool.length;
  return teaching;
}

/** A course per subject for a grade of school s, and a class per section of CLASS_SIZE students. */
function addCourses(teaching: Teaching, s: number, grade: number, students: number): void {
  const { courses, classes } = teaching;
  const g = groupOf(s, grade);
  const sections = Math.ceil(students / CLASS_SIZE);
  SUBJECTS.forEach((subject, k) => {
    const course = courses.length;
    teaching.courseIndex[g * SUBJECT_COUNT + k] = course;
    courses.push({
      sourcedId: `crs-${s + 1}-${GRADES[grade]}-${subject.code}`,
      school: s,
      grade,
      subject: k,
      classStart: classes.length,
      sections,
    });
    for (let section = 0; section < sections; section++) {
      const terms = SEMESTER_SUBJECTS.has(k) ? [section % 2 === 0 ? 1 : 2] : [1, 2];
      const first = teaching.schoolClassStart[s]!;
      classes.push({
        sourcedId: `cls-${s + 1}-${GRADES[grade]}-${subject.code}-${pad(section + 1, 2)}`,
        course,
        section,
        teacher: teaching.schoolTeacherStart[s]! + Math.floor((classes.length - first) / CLASSES_PER_TEACHER),
        terms,
      });
    }
  });
}

/** School s's teachers, each of CLASSES_PER_TEACHER consecutive classes. */
function addTeachers(teaching: Teaching, s: number, school: SchoolInfo): void {
  const { classes } = teaching;
  // Every school with grades has at least one teacher, even in a tiny district with no classes.
  const schoolClasses = classes.length - teaching.schoolClassStart[s]!;
  const teachers =
    school.grades.length === 0 ? 0 : Math.max(1, Math.ceil(schoolClasses / CLASSES_PER_TEACHER));
  for (let t = 0; t < teachers; t++) {
    teaching.teacherSchool.push(s);
    const start = teaching.schoolClassStart[s]! + t * CLASSES_PER_TEACHER;
    teaching.teacherClassStart.push(Math.min(start, classes.length));
    teaching.teacherClassEnd.push(Math.min(start + CLASSES_PER_TEACHER, classes.length));
  }
}

/** Class index of student i's class in subject k. */
export function studentClass(d: District, i: number, k: number): number {
  const g = groupOf(d.studentSchool[i]!, d.studentGrade[i]!);
  const course = d.courses[d.courseIndex[g * SUBJECT_COUNT + k]!]!;
  return course.classStart + ((d.studentRank[i]! + k) % course.sections);
}

/** Student indices of class c, ascending: ranks r of its group with (r + subject) mod sections = section. */
export function classStudents(d: District, c: number): number[] {
  const cls = d.classes[c]!;
  const course = d.courses[cls.course]!;
  const g = groupOf(course.school, course.grade);
  const start = d.groupStart[g]!;
  const size = d.groupStart[g + 1]! - start;
  const S = course.sections;
  const out: number[] = [];
  for (let r = (((cls.section - course.subject) % S) + S) % S; r < size; r += S)
    out.push(d.groupMembers[start + r]!);
  return out;
}

/** About one teacher in twenty also works at a second school (a secondary role in 1.2, a second org in 1.1). */
export function teacherSecondarySchool(d: District, t: number): number | undefined {
  return hash32(d.seed, 77, t) % 20 === 0 ? (d.teacherSchool[t]! + 1) % d.teachingSchools : undefined;
}
