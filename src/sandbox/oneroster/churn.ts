// A district that changes, for rehearsing delta reads (`roster sandbox --churn N`, POST /__sandbox/churn):
// name and grade edits, new students and their enrollments, records set to tobedeleted, each stamped
// with a fresh dateLastModified. The seeded district stays derived on demand; changes are an overlay
// (field overrides per record) plus new records appended after the seeded index space of their kind.
import { type District, GRADES, SUBJECT_COUNT, SUBJECTS } from './district.js';
import type { IndexList } from './lists.js';
import { FAMILY_NAMES, GIVEN_NAMES } from './names.js';
import { asciiName } from './people.js';
import { hash32, Rng } from './prng.js';
import { countOf, type Kind, type Rec, type RenderContext, render } from './records.js';

export type ChangeKind = 'name' | 'grade' | 'new-student' | 'new-enrollment' | 'tobedeleted';

export interface ChurnChange {
  /** The REST collection the record is read from (users; students too for a student). */
  collection: 'users' | 'enrollments';
  sourcedId: string;
  change: ChangeKind;
  dateLastModified: string;
}

interface NewRecord {
  sourcedId: string;
  /** The seeded record whose shape it takes (a student of the same school and grade, or its enrollment). */
  template: number;
  fields: Rec;
}

/** Collections whose top-level list grows with new records, and the kind they hold. */
const GROWING: Record<string, 'user' | 'enrollment'> = {
  users: 'user',
  students: 'user',
  enrollments: 'enrollment',
};

export class Churn {
  /** Bumped by every change: cached lists of an older generation are stale. */
  generation = 0;
  private readonly edits = new Map<Kind, Map<number, Rec>>();
  private readonly added: Record<'user' | 'enrollment', NewRecord[]> = { user: [], enrollment: [] };
  /** Subjects already enrolled per new student (index into added.user). */
  private readonly subjectsOf: number[] = [];
  private readonly rng: Rng;

  constructor(
    private readonly d: District,
    seed: number,
  ) {
    this.rng = new Rng(hash32(seed, 0xc4a5e));
  }

  /** Makes n changes stamped `now`; returns what changed, in order (none in a district without students). */
  apply(n: number, now: number): ChurnChange[] {
    const changes: ChurnChange[] = [];
    if (this.d.studentCount === 0) return changes;
    for (let k = 0; k < n; k++) {
      const stamp = new Date(now).toISOString();
      changes.push(this.one(stamp));
    }
    if (n > 0) this.generation++;
    return changes;
  }

  private one(stamp: string): ChurnChange {
    const roll = this.rng.next();
    const student = this.pickLiveStudent();
    if (student === undefined || roll < 0.2) return this.newStudent(stamp);
    if (roll < 0.35) return this.newEnrollment(stamp);
    if (roll < 0.65) {
      const givenName = this.rng.pick(GIVEN_NAMES)[0];
      return this.edit('user', student, { givenName }, 'name', stamp);
    }
    if (roll < 0.85) return this.edit('user', student, { grades: [this.rng.pick(GRADES)] }, 'grade', stamp);
    if (this.rng.chance(0.5)) {
      return this.edit('user', student, { status: 'tobedeleted' }, 'tobedeleted', stamp);
    }
    const enrollment = this.pickLiveEnrollment(student);
    return enrollment === undefined
      ? this.edit('user', student, { status: 'tobedeleted' }, 'tobedeleted', stamp)
      : this.edit('enrollment', enrollment, { status: 'tobedeleted' }, 'tobedeleted', stamp);
  }

  private edit(kind: 'user' | 'enrollment', i: number, fields: Rec, change: ChangeKind, stamp: string) {
    const byIndex = this.edits.get(kind) ?? new Map<number, Rec>();
    this.edits.set(kind, byIndex);
    byIndex.set(i, { ...byIndex.get(i), ...fields, dateLastModified: stamp });
    return {
      collection: kind === 'user' ? ('users' as const) : ('enrollments' as const),
      sourcedId: this.sourcedId(kind, i),
      change,
      dateLastModified: stamp,
    };
  }

  private newStudent(stamp: string): ChurnChange {
    const j = this.added.user.length;
    const sourcedId = `stu-n${String(j + 1).padStart(5, '0')}`;
    const [givenName] = this.rng.pick(GIVEN_NAMES);
    const familyName = this.rng.pick(FAMILY_NAMES);
    const identifier = String(900000 + j + 1);
    const local = `${asciiName(givenName)}.${asciiName(familyName)}.n${j + 1}`;
    this.added.user.push({
      sourcedId,
      template: this.rng.int(this.d.studentCount),
      fields: {
        sourcedId,
        status: 'active',
        dateLastModified: stamp,
        username: local,
        userIds: [{ type: 'studentNumber', identifier }],
        givenName,
        familyName,
        identifier,
        email: `${local}@students.riverside.example`,
      },
    });
    this.subjectsOf.push(0);
    return { collection: 'users', sourcedId, change: 'new-student', dateLastModified: stamp };
  }

  private newEnrollment(stamp: string): ChurnChange {
    const j = this.subjectsOf.findIndex((n) => n < SUBJECT_COUNT);
    if (j < 0) return this.newStudent(stamp);
    const student = this.added.user[j]!;
    const subject = this.subjectsOf[j]!;
    this.subjectsOf[j] = subject + 1;
    const sourcedId = `enr-${student.sourcedId}-${SUBJECTS[subject]!.code}`;
    this.added.enrollment.push({
      sourcedId,
      template: student.template * SUBJECT_COUNT + subject,
      fields: { sourcedId, status: 'active', dateLastModified: stamp, user: student.sourcedId },
    });
    return { collection: 'enrollments', sourcedId, change: 'new-enrollment', dateLastModified: stamp };
  }

  /** A seeded or new student that is not tobedeleted, or undefined when there is none. */
  private pickLiveStudent(): number | undefined {
    const seeded = this.d.studentCount;
    const total = seeded + this.added.user.length;
    const base = countOf(this.d, 'user');
    for (let tries = 0; tries < 20 && total > 0; tries++) {
      const r = this.rng.int(total);
      const i = r < seeded ? r : base + (r - seeded);
      if (this.status('user', i) !== 'tobedeleted') return i;
    }
    return undefined;
  }

  private pickLiveEnrollment(student: number): number | undefined {
    if (student >= this.d.studentCount) return undefined;
    const e = student * SUBJECT_COUNT + this.rng.int(SUBJECT_COUNT);
    return this.status('enrollment', e) === 'tobedeleted' ? undefined : e;
  }

  private status(kind: 'user' | 'enrollment', i: number): unknown {
    const edited = this.edits.get(kind)?.get(i)?.status;
    if (edited !== undefined) return edited;
    const base = countOf(this.d, kind);
    if (i >= base) return this.added[kind][i - base]?.fields.status;
    // Seeded students are rendered to learn theirs (about one in a hundred starts as tobedeleted).
    return render({ d: this.d, version: '1.2', base: '', enabledUser11: 'boolean', nulls: false }, kind, i)
      .status;
  }

  private sourcedId(kind: 'user' | 'enrollment', i: number): string {
    const base = countOf(this.d, kind);
    if (i >= base) return this.added[kind][i - base]!.sourcedId;
    return render({ d: this.d, version: '1.2', base: '', enabledUser11: 'boolean', nulls: false }, kind, i)
      .sourcedId as string;
  }

  /** Records of a kind, seeded and new. */
  count(kind: Kind): number {
    return countOf(this.d, kind) + (kind === 'user' || kind === 'enrollment' ? this.added[kind].length : 0);
  }

  /** Record i of a kind as it is now: the seeded one with its edits, or a new one. */
  record(ctx: RenderContext, kind: Kind, i: number): Rec {
    const base = countOf(this.d, kind);
    const rec =
      i < base ? render(ctx, kind, i) : this.renderNew(ctx, kind as 'user' | 'enrollment', i - base);
    const edits = this.edits.get(kind)?.get(i);
    return edits ? { ...rec, ...edits } : rec;
  }

  private renderNew(ctx: RenderContext, kind: 'user' | 'enrollment', j: number): Rec {
    const added = this.added[kind][j]!;
    const template = render(ctx, kind, added.template);
    const {
      metadata: _m,
      password: _p,
      middleName: _mn,
      preferredFirstName: _pf,
      pronouns: _pr,
      ...rest
    } = template;
    const rec: Rec = { ...(kind === 'user' ? rest : template), ...added.fields };
    if (kind === 'user' && ctx.version === '1.2')
      rec.userMasterIdentifier = `RUSD-${added.fields.identifier}`;
    if (kind === 'enrollment') {
      const user = String(added.fields.user);
      rec.user = { href: `${ctx.base}/users/${encodeURIComponent(user)}`, sourcedId: user, type: 'user' };
    }
    return rec;
  }

  /** A top-level list with the new records of its kind appended (students and users alike). */
  extend(key: string, list: IndexList): IndexList {
    const kind = GROWING[key];
    if (!kind || this.added[kind].length === 0) return list;
    const base = countOf(this.d, kind);
    const added = this.added[kind].length;
    return {
      length: list.length + added,
      at: (i) => (i < list.length ? list.at(i) : base + (i - list.length)),
    };
  }

  /** The index of a new record of this collection, for single reads. */
  find(collection: string, id: string): { kind: Kind; index: number } | undefined {
    const kind = GROWING[collection];
    if (!kind) return undefined;
    const j = this.added[kind].findIndex((r) => r.sourcedId === id);
    return j < 0 ? undefined : { kind, index: countOf(this.d, kind) + j };
  }
}
