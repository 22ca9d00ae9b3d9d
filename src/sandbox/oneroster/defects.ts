// `roster sandbox --defects`: the seeded district with one of each kind of data error the go-live audit
// (`roster roster audit`) reports, planted on known records, as real SIS exports carry them. An overlay on
// the rendered records (field overrides) and on the lists (a record served twice); without --defects
// nothing here runs. docs/sandbox.md, "Audit findings and planted defects", lists each one.
import { studentId, teacherId } from './district.js';
import type { IndexList } from './lists.js';
import { guardianBase, type Kind, type Rec, type RenderContext, render } from './records.js';

const SUBJECTS_PER_STUDENT = 6;

/** Students (indices) that carry a defect: past the fixed families (stu-1 … stu-20), the same at any seed. */
export const DEFECT_STUDENTS = {
  /** One enrollment names a class that does not exist. */
  missingClass: 30,
  /** Every enrollment tobedeleted: in no active class. */
  unenrolled: 32,
  /** Its grade is not of the vocabulary ("Grade 3"). */
  badGrade: 34,
  /** A teacher (tch-00004) among its agents. */
  teacherAgent: 36,
  /** Its first guardian's role ended (1.2 endDate in the past; 1.1: role aide). */
  endedGuardian: 37,
  /** Its first guardian's agents do not name it back. */
  oneSided: 38,
  /** An only child whose guardians have no e-mail: invite plan cannot reach it. */
  noGuardianEmail: 41,
  /** Its first enrollment names a teacher (tch-00005) as the student enrolled. */
  teacherEnrolled: 44,
  /** Its dateLastModified is "1/05/2023", not ISO 8601. */
  badDateModified: 46,
  /** Its agents name itself. */
  selfAgent: 48,
  /** Its first enrollment ended before the (not rolled over) school year began, still active. */
  endedEnrollment: 50,
} as const;

/** The teacher whose role is not of the version's vocabulary: principal in 1.1, principle in 1.2. */
export const UNKNOWN_ROLE_TEACHER = 5;

/** The guardian given 13 students of one school as agents (guardian-many-students, one-sided links). */
export const MANY_CHILDREN = 13;

const ref = (ctx: RenderContext, collection: string, type: string, sourcedId: string): Rec => ({
  href: `${ctx.base}/${collection}/${encodeURIComponent(sourcedId)}`,
  sourcedId,
  type,
});

/** The same day a year earlier (YYYY-MM-DD; the sandbox's session dates are never February 29). */
const yearBack = (day: string): string => `${Number(day.slice(0, 4)) - 1}${day.slice(4)}`;

/** The users index of the first guardian of student s's family. */
function firstGuardian(d: RenderContext['d'], s: number): number {
  const fam = d.families;
  return guardianBase(d) + fam.familyGuardianStart[fam.studentFamily[s]!]!;
}

export class Defects {
  /** Users index → the overlay to apply. */
  private readonly users = new Map<number, (ctx: RenderContext, rec: Rec) => Rec>();
  private readonly enrollments = new Map<number, (rec: Rec) => Rec>();
  /** Index of the guardian given many children, and those children's ids. */
  readonly manyGuardian: number;
  readonly manyChildren: string[];

  constructor(private readonly d: RenderContext['d']) {
    this.plantEnrollments(d);
    this.plantTeachersAndStudents(d);
    this.plantGuardians(d);
    // The first guardian of the family after the fixed ones, with 13 students of Elm High (org-sch-5).
    this.manyGuardian = firstGuardian(d, 40);
    const school = Math.min(4, d.teachingSchools - 1);
    const children: string[] = [];
    for (let s = 100; s < d.studentCount && children.length < MANY_CHILDREN; s++)
      if (d.studentSchool[s] === school) children.push(studentId(s));
    this.manyChildren = children;
    this.users.set(this.manyGuardian, (ctx, rec) => ({
      ...rec,
      agents: [...(rec.agents as Rec[]), ...children.map((id) => ref(ctx, 'users', 'user', id))],
    }));
  }

  private plantEnrollments(d: RenderContext['d']): void {
    const S = DEFECT_STUDENTS;
    const studentEnrollments = d.studentCount * SUBJECTS_PER_STUDENT;
    const tobedeleted = (rec: Rec): Rec => ({ ...rec, status: 'tobedeleted' });
    this.enrollments.set(S.missingClass * SUBJECTS_PER_STUDENT, (rec) => ({
      ...rec,
      class: { ...(rec.class as Rec), sourcedId: 'cls-missing' },
    }));
    for (let k = 0; k < SUBJECTS_PER_STUDENT; k++)
      this.enrollments.set(S.unenrolled * SUBJECTS_PER_STUDENT + k, tobedeleted);
    this.enrollments.set(S.teacherEnrolled * SUBJECTS_PER_STUDENT, (rec) => ({
      ...rec,
      user: { ...(rec.user as Rec), sourcedId: teacherId(4) },
    }));
    // Ended June 30 before the school year the defects leave in place (a year behind) began.
    const firstYear = Number(d.sessions[0]!.startDate.slice(0, 4));
    this.enrollments.set(S.endedEnrollment * SUBJECTS_PER_STUDENT, (rec) => ({
      ...rec,
      endDate: `${firstYear - 1}-06-30`,
    }));
    // The teacher enrollment of class 3: the class has no active teacher.
    this.enrollments.set(studentEnrollments + 3, tobedeleted);
  }

  private plantTeachersAndStudents(d: RenderContext['d']): void {
    const S = DEFECT_STUDENTS;
    const teacher = (t: number) => d.studentCount + t;
    // tch-00001: an org that does not exist.
    this.users.set(teacher(0), (ctx, rec) =>
      ctx.version === '1.1'
        ? { ...rec, orgs: [...(rec.orgs as Rec[]), ref(ctx, 'orgs', 'org', 'org-missing')] }
        : {
            ...rec,
            roles: [
              ...(rec.roles as Rec[]),
              { roleType: 'secondary', role: 'teacher', org: ref(ctx, 'orgs', 'org', 'org-missing') },
            ],
          },
    );
    // tch-00002: an address invite send refuses; tch-00003: a student's own address.
    this.users.set(teacher(1), (_ctx, rec) => ({ ...rec, email: 'teacher2@riverside' }));
    this.users.set(teacher(2), (ctx, rec) => ({ ...rec, email: render(ctx, 'user', 33).email }));
    this.users.set(S.badGrade, (_ctx, rec) => ({ ...rec, grades: ['Grade 3'] }));
    this.users.set(S.badDateModified, (_ctx, rec) => ({ ...rec, dateLastModified: '1/05/2023' }));
    this.users.set(S.selfAgent, (ctx, rec) => ({
      ...rec,
      agents: [...(rec.agents as Rec[]), ref(ctx, 'users', 'user', studentId(S.selfAgent))],
    }));
    this.users.set(teacher(UNKNOWN_ROLE_TEACHER), (_ctx, rec) =>
      rec.role !== undefined
        ? { ...rec, role: 'principal' }
        : { ...rec, roles: (rec.roles as Rec[]).map((r) => ({ ...r, role: 'principle' })) },
    );
    this.users.set(S.teacherAgent, (ctx, rec) => ({
      ...rec,
      agents: [...(rec.agents as Rec[]), ref(ctx, 'users', 'user', teacherId(3))],
    }));
  }

  private plantGuardians(d: RenderContext['d']): void {
    const S = DEFECT_STUDENTS;
    const fam = d.families;
    // Ended the day before the school year began.
    const ended = `${d.sessions[0]!.startDate.slice(0, 4)}-06-30`;
    this.users.set(firstGuardian(d, S.endedGuardian), (ctx, rec) =>
      ctx.version === '1.1'
        ? { ...rec, role: 'aide' }
        : { ...rec, roles: (rec.roles as Rec[]).map((r) => ({ ...r, endDate: ended })) },
    );
    this.users.set(firstGuardian(d, S.oneSided), (_ctx, rec) => ({
      ...rec,
      agents: (rec.agents as Rec[]).filter((a) => a.sourcedId !== studentId(S.oneSided)),
    }));
    const family = fam.studentFamily[S.noGuardianEmail]!;
    for (let g = fam.familyGuardianStart[family]!; g < fam.familyGuardianStart[family + 1]!; g++)
      this.users.set(guardianBase(d) + g, (_ctx, { email: _, ...rest }) => rest);
  }

  /** The record with its defect, if it carries one. */
  apply(ctx: RenderContext, kind: Kind, i: number, rec: Rec): Rec {
    switch (kind) {
      case 'org':
        // The district's parent is its first school, whose parent is the district: a cycle of two.
        return i === 0 ? { ...rec, parent: ref(ctx, 'orgs', 'org', this.d.schools[0]!.sourcedId) } : rec;
      case 'academicSession': {
        const sessions = this.d.sessions;
        // The school year not rolled over: last year's dates, so its terms lie outside it and no school
        // year covers today.
        if (i === 0)
          return {
            ...rec,
            startDate: yearBack(sessions[0]!.startDate),
            endDate: yearBack(sessions[0]!.endDate),
          };
        // Quarter 1 ends on August 1, before it starts.
        if (i === 3) return { ...rec, endDate: `${sessions[3]!.startDate.slice(0, 4)}-08-01` };
        if (i === sessions.length - 1)
          return { ...rec, parent: ref(ctx, 'academicSessions', 'academicSession', 'as-missing') };
        return rec;
      }
      case 'course':
        if (i === 1) return { ...rec, org: ref(ctx, 'orgs', 'org', 'org-missing') };
        if (i === 2) return { ...rec, status: 'tobedeleted' };
        return rec;
      case 'class':
        return i === 1 ? { ...rec, course: ref(ctx, 'courses', 'course', 'crs-missing') } : rec;
      case 'user': {
        const overlay = this.users.get(i);
        return overlay ? overlay(ctx, rec) : rec;
      }
      case 'enrollment': {
        const overlay = this.enrollments.get(i);
        return overlay ? overlay(rec) : rec;
      }
      default:
        return rec;
    }
  }

  /** Lists of orgs and classes serve their first school / class twice (a duplicate sourcedId). */
  list(key: string, kind: Kind, list: IndexList): IndexList {
    if (key !== 'orgs' && key !== 'classes') return list;
    const twice = kind === 'org' ? 1 : 0;
    const at = list.length > twice ? list.at(twice) : undefined;
    if (at === undefined) return list;
    return {
      length: list.length + 1,
      at: (k) => (k <= twice ? list.at(k) : k === twice + 1 ? at : list.at(k - 1)),
    };
  }
}
