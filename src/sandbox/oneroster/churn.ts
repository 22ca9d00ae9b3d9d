// A district that changes, for rehearsing delta reads (`roster sandbox --churn N`, POST /__sandbox/churn):
// name and grade edits, new students with their families (1-2 new guardians, or a known one when a sibling
// joins) and their enrollments, records set to tobedeleted, each stamped with a fresh dateLastModified. The
// seeded district stays derived on demand; changes are an overlay (field overrides per record, new children
// of known guardians) plus new records appended after the seeded index space of their kind.
import { type District, GRADES, SUBJECT_COUNT, SUBJECTS } from './district.js';
import type { IndexList } from './lists.js';
import { FAMILY_NAMES, GIVEN_NAMES } from './names.js';
import { asciiName } from './people.js';
import { hash32, Rng } from './prng.js';
import {
  countOf,
  guardianBase,
  type Kind,
  type Rec,
  type RenderContext,
  render,
  userSourcedId,
} from './records.js';

export type ChangeKind =
  | 'name'
  | 'grade'
  | 'new-student'
  | 'new-guardian'
  /** A known guardian linked to a new student (a sibling joining). */
  | 'new-child'
  | 'new-enrollment'
  | 'tobedeleted';

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
  /** New users: a student's guardians, or a guardian's students (user indices). */
  links?: number[];
}

/** Collections whose top-level list grows with new records, and the kind they hold. */
const GROWING: Record<string, 'user' | 'enrollment'> = {
  users: 'user',
  students: 'user',
  enrollments: 'enrollment',
};

/** A context for reading a record's own fields (status, sourcedId) without serving it. */
const PLAIN = (d: District): RenderContext => ({
  d,
  version: '1.2',
  base: '',
  enabledUser11: 'boolean',
  nulls: false,
  agents: 'both',
});

export class Churn {
  /** Bumped by every change: cached lists of an older generation are stale. */
  generation = 0;
  private readonly edits = new Map<Kind, Map<number, Rec>>();
  private readonly added: Record<'user' | 'enrollment', NewRecord[]> = { user: [], enrollment: [] };
  /** New students (indices into added.user) and how many subjects each is enrolled in so far. */
  private readonly newStudents: number[] = [];
  private readonly subjectsOf: number[] = [];
  /** New students linked to known guardians (user index -> new student user indices). */
  private readonly newChildren = new Map<number, number[]>();
  private addedGuardians = 0;
  private readonly rng: Rng;

  constructor(
    private readonly d: District,
    seed: number,
  ) {
    this.rng = new Rng(hash32(seed, 0xc4a5e));
  }

  /** Makes n changes stamped `now`; returns what changed, in order (none in a district without students).
   *  A new student is one change that also lists its new guardians (and a known one it was linked to). */
  apply(n: number, now: number): ChurnChange[] {
    const changes: ChurnChange[] = [];
    if (this.d.studentCount === 0) return changes;
    for (let k = 0; k < n; k++) {
      const stamp = new Date(now).toISOString();
      changes.push(...this.one(stamp));
    }
    if (n > 0) this.generation++;
    return changes;
  }

  private one(stamp: string): ChurnChange[] {
    const roll = this.rng.next();
    const student = this.pickLiveStudent();
    if (student === undefined || roll < 0.2) return this.newStudent(stamp);
    if (roll < 0.35) return this.newEnrollment(stamp);
    return [this.oneEdit(roll, student, stamp)];
  }

  private oneEdit(roll: number, student: number, stamp: string): ChurnChange {
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

  private newStudent(stamp: string): ChurnChange[] {
    const j = this.newStudents.length;
    const sourcedId = `stu-n${String(j + 1).padStart(5, '0')}`;
    const [givenName] = this.rng.pick(GIVEN_NAMES);
    const familyName = this.rng.pick(FAMILY_NAMES);
    const identifier = String(900000 + j + 1);
    const local = `${asciiName(givenName)}.${asciiName(familyName)}.n${j + 1}`;
    const self = this.addUser({
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
      links: [],
    });
    this.newStudents.push(self - countOf(this.d, 'user'));
    this.subjectsOf.push(0);
    const changes: ChurnChange[] = [
      { collection: 'users', sourcedId, change: 'new-student', dateLastModified: stamp },
    ];
    // The family: 1-2 guardians; sometimes the first is one the district knows (a sibling joining).
    const count = this.rng.chance(0.6) ? 2 : 1;
    const known = this.rng.chance(0.2) ? this.pickKnownGuardian() : undefined;
    const links = this.added.user[self - countOf(this.d, 'user')]!.links!;
    if (known !== undefined) {
      links.push(known);
      this.newChildren.set(known, [...(this.newChildren.get(known) ?? []), self]);
      changes.push(this.edit('user', known, {}, 'new-child', stamp));
    }
    for (let k = links.length; k < count; k++) {
      const g = this.addedGuardians++;
      const id = `gdn-n${String(g + 1).padStart(5, '0')}`;
      const [given] = this.rng.pick(GIVEN_NAMES);
      const family = this.rng.chance(0.8) ? familyName : this.rng.pick(FAMILY_NAMES);
      const address = `${asciiName(given)}.${asciiName(family)}.n${g + 1}`;
      const guardianIdentifier = `PN${String(g + 1).padStart(5, '0')}`;
      links.push(
        this.addUser({
          sourcedId: id,
          template: guardianBase(this.d),
          fields: {
            sourcedId: id,
            status: 'active',
            dateLastModified: stamp,
            username: address,
            userIds: [{ type: 'guardianId', identifier: guardianIdentifier }],
            givenName: given,
            familyName: family,
            identifier: guardianIdentifier,
            email: `${address}@example.com`,
          },
          links: [self],
        }),
      );
      changes.push({ collection: 'users', sourcedId: id, change: 'new-guardian', dateLastModified: stamp });
    }
    return changes;
  }

  /** Appends a new user; returns its user index. */
  private addUser(rec: NewRecord): number {
    this.added.user.push(rec);
    return countOf(this.d, 'user') + this.added.user.length - 1;
  }

  /** A seeded parent or guardian that is active, for a sibling joining; undefined if none is found. */
  private pickKnownGuardian(): number | undefined {
    const fam = this.d.families;
    for (let tries = 0; tries < 20 && fam.guardianCount > 0; tries++) {
      const g = this.rng.int(fam.guardianCount);
      if (
        fam.guardianRole[g] !== 2 &&
        !fam.guardianDeleted[g] &&
        this.status('user', guardianBase(this.d) + g) === 'active'
      )
        return guardianBase(this.d) + g;
    }
    return undefined;
  }

  private newEnrollment(stamp: string): ChurnChange[] {
    const j = this.subjectsOf.findIndex((n) => n < SUBJECT_COUNT);
    if (j < 0) return this.newStudent(stamp);
    const student = this.added.user[this.newStudents[j]!]!;
    const subject = this.subjectsOf[j]!;
    this.subjectsOf[j] = subject + 1;
    const sourcedId = `enr-${student.sourcedId}-${SUBJECTS[subject]!.code}`;
    this.added.enrollment.push({
      sourcedId,
      template: student.template * SUBJECT_COUNT + subject,
      fields: { sourcedId, status: 'active', dateLastModified: stamp, user: student.sourcedId },
    });
    return [{ collection: 'enrollments', sourcedId, change: 'new-enrollment', dateLastModified: stamp }];
  }

  /** A seeded or new student that is not tobedeleted, or undefined when there is none. */
  private pickLiveStudent(): number | undefined {
    const seeded = this.d.studentCount;
    const total = seeded + this.newStudents.length;
    const base = countOf(this.d, 'user');
    for (let tries = 0; tries < 20 && total > 0; tries++) {
      const r = this.rng.int(total);
      const i = r < seeded ? r : base + this.newStudents[r - seeded]!;
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
    return render(PLAIN(this.d), kind, i).status;
  }

  private sourcedId(kind: 'user' | 'enrollment', i: number): string {
    const base = countOf(this.d, kind);
    if (i >= base) return this.added[kind][i - base]!.sourcedId;
    return render(PLAIN(this.d), kind, i).sourcedId as string;
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
    const children = kind === 'user' ? this.newChildren.get(i) : undefined;
    if (children && ctx.agents !== 'students') {
      rec.agents = [...(rec.agents as Rec[]), ...children.map((c) => userRef(ctx, this.userId(c)))];
    }
    return edits ? { ...rec, ...edits } : rec;
  }

  private userId(u: number): string {
    const base = countOf(this.d, 'user');
    return u < base ? userSourcedId(this.d, u) : this.added.user[u - base]!.sourcedId;
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
      sms: _s,
      ...rest
    } = template;
    const rec: Rec = { ...(kind === 'user' ? rest : template), ...added.fields };
    if (kind === 'user' && ctx.version === '1.2')
      rec.userMasterIdentifier = `RUSD-${added.fields.identifier}`;
    if (kind === 'enrollment') rec.user = userRef(ctx, String(added.fields.user));
    if (kind === 'user') {
      // Links per the --agents setting; a new guardian belongs to its new child's school.
      const isStudent = added.sourcedId.startsWith('stu-');
      const side = isStudent ? 'guardians' : 'students';
      rec.agents = ctx.agents === side ? [] : (added.links ?? []).map((u) => userRef(ctx, this.userId(u)));
      if (!isStudent) Object.assign(rec, this.guardianOrgs(ctx, added));
    }
    return rec;
  }

  /** A new guardian's orgs (1.1) or roles (1.2): its new child's school, where the template had its own. */
  private guardianOrgs(ctx: RenderContext, guardian: NewRecord): Rec {
    const child = this.added.user[guardian.links![0]! - countOf(this.d, 'user')]!;
    const school = this.d.schools[this.d.studentSchool[child.template]!]!.sourcedId;
    const org = { href: `${ctx.base}/orgs/${encodeURIComponent(school)}`, sourcedId: school, type: 'org' };
    if (ctx.version === '1.1') return { role: 'parent', orgs: [org] };
    return { roles: [{ roleType: 'primary', role: 'parent', org }], primaryOrg: org };
  }

  /** A top-level list with the new records of its kind appended (new students also in students). */
  extend(key: string, list: IndexList): IndexList {
    const kind = GROWING[key];
    if (!kind || this.added[kind].length === 0) return list;
    const base = countOf(this.d, kind);
    const added = key === 'students' ? this.newStudents : undefined;
    const count = added ? added.length : this.added[kind].length;
    return {
      length: list.length + count,
      at: (i) => (i < list.length ? list.at(i) : base + (added ? added[i - list.length]! : i - list.length)),
    };
  }

  /** The index of a new record of this collection, for single reads. */
  find(collection: string, id: string): { kind: Kind; index: number } | undefined {
    const kind = GROWING[collection];
    if (!kind) return undefined;
    if (collection === 'students' && !id.startsWith('stu-')) return undefined;
    const j = this.added[kind].findIndex((r) => r.sourcedId === id);
    return j < 0 ? undefined : { kind, index: countOf(this.d, kind) + j };
  }
}

function userRef(ctx: RenderContext, id: string): Rec {
  return { href: `${ctx.base}/users/${encodeURIComponent(id)}`, sourcedId: id, type: 'user' };
}
