// The seeded district's families: parents, guardians and relatives of the students, stored compactly (typed
// arrays, nothing per person beyond a few bytes). A family is a run of consecutive students (siblings; placed
// independently, so some at two schools) and a run of guardians. Names, e-mails and dates are derived on
// demand (people.ts); which guardian carries which trap is here. By default every family is reachable (what
// a campaign must handle, not a data error: siblings, one address shared in a family in any case or spacing);
// with the traps (`--family-traps`) some are not, as in real districts.
import { KIND, type Rng, rngFor } from './prng.js';

export const ROLES = ['parent', 'guardian', 'relative'] as const;
export type GuardianRole = (typeof ROLES)[number];
const [PARENT, GUARDIAN, RELATIVE] = [0, 1, 2];

/** How a guardian's e-mail is written. */
export const EMAIL = {
  /** Their own address. */
  own: 0,
  /** No e-mail at all. */
  none: 1,
  /** The family's shared address, exactly. */
  shared: 2,
  /** The family's shared address in another letter case. */
  sharedCase: 3,
  /** The family's shared address with spaces around it. */
  sharedSpaces: 4,
  /** `name@localhost`: refused by `invite send` (no dotted domain). */
  localhost: 5,
  /** `"Given Family" <address>`: a display-name form, refused by `invite send`. */
  displayName: 6,
  /** The same address as the district's first guardian (one person, two records in two families). */
  sameAsFirst: 7,
} as const;

type GuardianSpec = readonly [role: number, email: number, deleted?: true];
interface FamilySpec {
  children: number;
  guardians: readonly GuardianSpec[];
  /** The students also link a guardian id the API does not return. */
  dangling?: true;
}

const E = EMAIL;
/**
 * The first families, the same whatever the seed, so tests and the demo know where each trap is (students
 * stu-000001…, guardians gdn-000001… in this order; without the traps, the same students and guardians with
 * the traps taken out). docs/sandbox.md "Families" lists them.
 */
export const FIXED_FAMILIES: readonly FamilySpec[] = [
  {
    children: 2,
    guardians: [
      [PARENT, E.own],
      [PARENT, E.own],
    ],
  }, // stu-1, 2 siblings; gdn-1, 2
  {
    children: 1,
    guardians: [
      [PARENT, E.shared],
      [PARENT, E.shared],
    ],
  }, // stu-3; gdn-3, 4 share one address
  {
    children: 1,
    guardians: [
      [PARENT, E.shared],
      [PARENT, E.sharedCase],
    ],
  }, // stu-4; gdn-5, 6 (case)
  {
    children: 1,
    guardians: [
      [PARENT, E.shared],
      [GUARDIAN, E.sharedSpaces],
    ],
  }, // stu-5; gdn-7, 8 (spaces)
  { children: 1, guardians: [] }, // stu-6: no agents at all
  { children: 1, guardians: [[RELATIVE, E.own]] }, // stu-7: only a relative (gdn-9)
  { children: 1, guardians: [[PARENT, E.none]] }, // stu-8: only gdn-10, without e-mail
  { children: 1, guardians: [[PARENT, E.own, true]] }, // stu-9: only gdn-11, tobedeleted
  { children: 1, guardians: [], dangling: true }, // stu-10: only a guardian the API does not return
  { children: 1, guardians: [[PARENT, E.localhost]] }, // stu-11: only gdn-12, name@localhost
  { children: 1, guardians: [[GUARDIAN, E.displayName]] }, // stu-12: only gdn-13, "Name" <address>
  {
    children: 3,
    guardians: [
      [PARENT, E.own],
      [GUARDIAN, E.own],
      [RELATIVE, E.own],
    ],
  }, // stu-13..15; gdn-14..16
  { children: 1, guardians: [[PARENT, E.sameAsFirst]] }, // stu-16; gdn-17 has gdn-1's address
  {
    children: 2,
    guardians: [
      [PARENT, E.own],
      [PARENT, E.none],
    ],
  }, // stu-17, 18; gdn-18, gdn-19 no e-mail
  {
    children: 1,
    guardians: [
      [PARENT, E.own],
      [PARENT, E.own, true],
    ],
  }, // stu-19; gdn-20, gdn-21 tobedeleted
  { children: 1, guardians: [[PARENT, E.own]], dangling: true }, // stu-20; gdn-22 and a dangling link
];

/** A family drawn from its own stream: mostly two parents, 1.26 children, ~1.6 guardians per student. */
function drawFamily(seed: number, f: number): FamilySpec {
  const rng = rngFor(seed, KIND.family, f);
  const c = rng.next();
  const children = c < 0.78 ? 1 : c < 0.96 ? 2 : 3;
  const t = rng.next();
  const trap = rareTrap(t, rng);
  if (trap) return { children, ...trap };
  const guardians = drawParents(t, rng);
  if (rng.chance(0.2)) guardians.push([RELATIVE, rng.chance(0.7) ? E.own : E.none]);
  return { children, guardians };
}

/** Rare traps (t below 0.045), so a large district has them too (the fixed families above hold one of each). */
function rareTrap(t: number, rng: Rng): Omit<FamilySpec, 'children'> | undefined {
  if (t < 0.01) return { guardians: [] };
  if (t < 0.02) return { guardians: [[RELATIVE, E.own]] };
  if (t < 0.03) return { guardians: [[PARENT, E.none]] };
  if (t < 0.035) return { guardians: [[PARENT, E.own, true]] };
  if (t < 0.04) return { guardians: [], dangling: true };
  if (t < 0.045) return { guardians: [[PARENT, rng.chance(0.5) ? E.localhost : E.displayName]] };
  return undefined;
}

/**
 * A family's parents: one, mostly two (or a parent and a guardian); two may share an address (t picks how
 * it is written) or the second have none or be tobedeleted.
 */
function drawParents(t: number, rng: Rng): GuardianSpec[] {
  const guardians: GuardianSpec[] = [[PARENT, E.own]];
  const second = rng.next();
  if (second < 0.75) guardians.push([PARENT, E.own]);
  else if (second < 0.85) guardians.push([GUARDIAN, E.own]);
  if (guardians.length === 2) {
    const quirk = rng.next();
    if (t < 0.07) guardians.splice(0, 2, [PARENT, E.shared], [guardians[1]![0], E.shared]);
    else if (t < 0.08) guardians.splice(0, 2, [PARENT, E.shared], [guardians[1]![0], E.sharedCase]);
    else if (t < 0.085) guardians.splice(0, 2, [PARENT, E.shared], [guardians[1]![0], E.sharedSpaces]);
    else if (quirk < 0.05) guardians[1] = [guardians[1]![0], E.none];
    else if (quirk < 0.06) guardians[1] = [guardians[1]![0], E.own, true];
  }
  return guardians;
}

export interface Families {
  count: number;
  guardianCount: number;
  studentFamily: Uint32Array;
  /** Students of family f are familyStudentStart[f] .. familyStudentStart[f + 1]; guardians likewise. */
  familyStudentStart: Uint32Array;
  familyGuardianStart: Uint32Array;
  guardianFamily: Uint32Array;
  /** Index into ROLES. */
  guardianRole: Uint8Array;
  /** A value of EMAIL. */
  guardianEmail: Uint8Array;
  /** 1 when the guardian's record is tobedeleted. */
  guardianDeleted: Uint8Array;
  /** Families whose students link a guardian the API does not return, ascending; the k-th links the id
   *  just past the last guardian plus k (gdn-{guardianCount + k + 1}), so it looks like any other id. */
  dangling: Uint32Array;
}

/** A family's address shared among its own guardians: not a data error, so kept without the traps. */
const SHARED: ReadonlySet<number> = new Set([E.shared, E.sharedCase, E.sharedSpaces]);

/**
 * The family without its traps (nothing `roster roster audit` reports): every guardian active, with an
 * address of their own or the family's shared one, at least one parent or guardian, no dangling link.
 */
function withoutTraps(spec: FamilySpec): FamilySpec {
  const guardians: GuardianSpec[] = spec.guardians.map(([role, email]) => [
    role,
    SHARED.has(email) ? email : E.own,
  ]);
  if (!guardians.some(([role]) => role !== RELATIVE)) guardians.unshift([PARENT, E.own]);
  return { children: spec.children, guardians };
}

export function buildFamilies(seed: number, studentCount: number, traps = false): Families {
  const studentFamily = new Uint32Array(studentCount);
  const studentStart: number[] = [];
  const guardianStart: number[] = [];
  // At most three guardians per family and one family per student.
  const guardianFamily = new Uint32Array(3 * studentCount);
  const guardianRole = new Uint8Array(3 * studentCount);
  const guardianEmail = new Uint8Array(3 * studentCount);
  const guardianDeleted = new Uint8Array(3 * studentCount);
  const dangling: number[] = [];
  let g = 0;
  for (let i = 0, f = 0; i < studentCount; f++) {
    const drawn = FIXED_FAMILIES[f] ?? drawFamily(seed, f);
    const spec = traps ? drawn : withoutTraps(drawn);
    const children = Math.min(spec.children, studentCount - i);
    studentStart.push(i);
    guardianStart.push(g);
    studentFamily.fill(f, i, i + children);
    i += children;
    for (const [role, email, deleted] of spec.guardians) {
      guardianFamily[g] = f;
      guardianRole[g] = role;
      guardianEmail[g] = email;
      guardianDeleted[g] = deleted ? 1 : 0;
      g++;
    }
    if (spec.dangling) dangling.push(f);
  }
  const count = studentStart.length;
  studentStart.push(studentCount);
  guardianStart.push(g);
  return {
    count,
    guardianCount: g,
    studentFamily,
    familyStudentStart: Uint32Array.from(studentStart),
    familyGuardianStart: Uint32Array.from(guardianStart),
    guardianFamily: guardianFamily.slice(0, g),
    guardianRole: guardianRole.slice(0, g),
    guardianEmail: guardianEmail.slice(0, g),
    guardianDeleted: guardianDeleted.slice(0, g),
    dangling: Uint32Array.from(dangling),
  };
}

/** Rank of family f among the dangling ones, or -1 (binary search: they are few and sorted). */
export function danglingRank(fam: Families, f: number): number {
  let lo = 0;
  let hi = fam.dangling.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const v = fam.dangling[mid]!;
    if (v === f) return mid;
    if (v < f) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}
