// Per-person attributes derived on demand from (seed, kind, index): nothing per person is stored, which is
// what lets the sandbox hold 200,000 students in a few megabytes.
import { ADMIN_COUNT, type District, KIND, pad } from './district.js';
import { EMAIL, type GuardianRole, ROLES } from './families.js';
import { BIRTH_PLACES, FAMILY_NAMES, GIVEN_NAMES, MIDDLE_NAMES, NICKNAMES, PRONOUNS } from './names.js';
import { hash32, type Rng, rngFor } from './prng.js';

export interface Person {
  givenName: string;
  familyName: string;
  middleName?: string;
  preferredFirstName?: string;
  pronouns?: string;
  sex: 'male' | 'female';
  email?: string;
  phone?: string;
  sms?: string;
  password?: string;
  status: 'active' | 'tobedeleted';
  dateLastModified: string;
  enabled: boolean;
  /** Whether a 1.1 record writes enabledUser as a string (1.1 servers in the field do both). */
  enabledAsString: boolean;
  /** Free-form metadata on some records, with a null inside to exercise clients. */
  metadata?: Record<string, unknown>;
}

/** Fixed first students, whatever the seed: known names for tests and demos. */
const FIXED_STUDENTS: readonly (readonly [string, string, 'male' | 'female'])[] = [
  ['Zoë', 'Åkesson', 'female'],
  ['José', 'García', 'male'],
  ['Mary Ann', "O'Brien", 'female'],
  ['Zoë', 'Nguyễn', 'female'],
  ['Anne Marie', 'van der Berg', 'female'],
];

const ADMINS: readonly (readonly [string, string, 'male' | 'female'])[] = [
  ['Patricia', 'Okafor', 'female'],
  ['Renée', 'Dubois', 'female'],
  ['Marcus', 'Lindqvist', 'male'],
];
if (ADMINS.length !== ADMIN_COUNT) throw new Error('ADMINS and ADMIN_COUNT disagree');

const ASCII_FOLD: Record<string, string> = {
  ł: 'l',
  Ł: 'L',
  ø: 'o',
  Ø: 'O',
  đ: 'd',
  Đ: 'D',
  æ: 'ae',
  ß: 'ss',
};

const asciiCache = new Map<string, string>();

/** ASCII local part for e-mails and usernames: strip accents, spaces and apostrophes (memoised: few names). */
export function asciiName(s: string): string {
  let ascii = asciiCache.get(s);
  if (ascii === undefined) {
    ascii = s
      .normalize('NFD')
      .replace(/\p{M}/gu, '')
      .replace(/[łŁøØđĐæß]/g, (c) => ASCII_FOLD[c] ?? c)
      .replace(/[^A-Za-z]/g, '')
      .toLowerCase();
    asciiCache.set(s, ascii);
  }
  return ascii;
}

const MODIFIED_FROM = Date.UTC(2025, 5, 1);
const MODIFIED_SPAN_S = 245 * 86400;

const MODIFIED_DAYS = Array.from({ length: MODIFIED_SPAN_S / 86400 }, (_, day) =>
  new Date(MODIFIED_FROM + day * 86400_000).toISOString().slice(0, 10),
);
const two = (n: number): string => (n < 10 ? `0${n}` : String(n));

/** A timestamp between 2025-06-01 and 2026-01-31, to the second (formatted by hand: Date is slow here). */
export function modifiedAt(rng: Rng): string {
  const s = rng.int(MODIFIED_SPAN_S);
  const t = s % 86400;
  return `${MODIFIED_DAYS[Math.floor(s / 86400)]}T${two(Math.floor(t / 3600))}:${two(Math.floor(t / 60) % 60)}:${two(t % 60)}.000Z`;
}

export type PersonKind = 'student' | 'teacher' | 'admin';

/** A person's attributes, drawn from the stream of (seed, kind, index) in a fixed order. */
export function person(seed: number, kind: PersonKind, index: number): Person {
  const rng = rngFor(seed, KIND[kind], index);
  const [givenName, familyName, sex] = namesOf(rng, kind, index);
  const p: Person = {
    givenName,
    familyName,
    sex,
    status: rng.chance(0.01) && index >= FIXED_STUDENTS.length ? 'tobedeleted' : 'active',
    dateLastModified: modifiedAt(rng),
    enabled: index < FIXED_STUDENTS.length || !rng.chance(0.04),
    enabledAsString: index % 3 === 0,
  };
  if (rng.chance(0.4)) p.middleName = rng.pick(MIDDLE_NAMES);
  if (rng.chance(0.1)) p.preferredFirstName = rng.pick(NICKNAMES);
  if (rng.chance(0.15)) p.pronouns = rng.pick(PRONOUNS);
  drawContacts(p, rng, kind, index);
  // A few records carry a password, as real exports sometimes do: clients must treat users as sensitive.
  if (rng.chance(0.02)) p.password = `Riverside-${rng.int(10000)}!`;
  if (rng.chance(0.1))
    p.metadata = { 'ext.homeLanguage': rng.pick(['en', 'es', 'vi', 'sv']), 'ext.nickname': null };
  return p;
}

/**
 * Given name, family name and sex: the stream's first two draws, taken even where the names are fixed (the
 * first students, the admins) so the draws after them stay where studentFamilyName expects them.
 */
function namesOf(rng: Rng, kind: PersonKind, index: number): readonly [string, string, 'male' | 'female'] {
  const fixed = kind === 'student' ? FIXED_STUDENTS[index] : kind === 'admin' ? ADMINS[index] : undefined;
  const drawnGiven = rng.pick(GIVEN_NAMES);
  const drawnFamily = rng.pick(FAMILY_NAMES);
  return fixed ?? [drawnGiven[0], drawnFamily, drawnGiven[1]];
}

/** E-mail (a few students have none), a staff member's phone, and an sms number on some. */
function drawContacts(p: Person, rng: Rng, kind: PersonKind, index: number): void {
  const local = `${asciiName(p.givenName)}.${asciiName(p.familyName)}`;
  if (kind === 'student') {
    if (!rng.chance(0.05) || index < FIXED_STUDENTS.length)
      p.email = `${local}${index + 1}@students.riverside.example`;
  } else {
    p.email = `${local}${kind === 'teacher' ? index + 1 : ''}@riverside.example`;
    p.phone = `+1-555-01${String(rng.int(100)).padStart(2, '0')}`;
  }
  if (rng.chance(0.2)) p.sms = `+1-555-02${String(rng.int(100)).padStart(2, '0')}`;
}

/** Student i's family name alone (the second draw of its stream, as person() draws it): cheap for guardians. */
export function studentFamilyName(seed: number, index: number): string {
  const fixed = FIXED_STUDENTS[index];
  if (fixed) return fixed[1];
  const rng = rngFor(seed, KIND.student, index);
  rng.pick(GIVEN_NAMES);
  return rng.pick(FAMILY_NAMES);
}

export interface Demographic {
  birthDate: string;
  sex: 'male' | 'female' | 'other' | 'unspecified';
  races: Record<string, boolean>;
  hispanic?: boolean;
  country?: string;
  state?: string;
  city?: string;
  residence?: string;
  dateLastModified: string;
}

export const RACE_FIELDS = [
  'americanIndianOrAlaskaNative',
  'asian',
  'blackOrAfricanAmerican',
  'nativeHawaiianOrOtherPacificIslander',
  'white',
] as const;

/** Demographics of student i (one per student; the age follows the grade). */
export function demographic(seed: number, index: number, grade: number, sex: 'male' | 'female'): Demographic {
  const rng = rngFor(seed, KIND.demographics, index);
  const year = 2020 - grade;
  const month = 1 + rng.int(12);
  const day = 1 + rng.int(28);
  const race = rng.int(RACE_FIELDS.length);
  const races: Record<string, boolean> = {};
  for (const [k, f] of RACE_FIELDS.entries()) races[f] = k === race;
  if (rng.chance(0.05)) races[RACE_FIELDS[(race + 1) % RACE_FIELDS.length]!] = true;
  const d: Demographic = {
    birthDate: `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`,
    sex: rng.chance(0.03) ? rng.pick(['other', 'unspecified'] as const) : sex,
    races,
    dateLastModified: modifiedAt(rng),
  };
  // Sparse records exist: some districts send little beyond the birth date.
  if (rng.chance(0.9)) d.hispanic = rng.chance(0.3);
  if (rng.chance(0.8)) {
    const [country, state, city] = rng.pick(BIRTH_PLACES);
    d.country = country;
    if (state) d.state = state;
    d.city = city;
  }
  if (rng.chance(0.5)) d.residence = '01652';
  return d;
}

export interface Guardian {
  givenName: string;
  familyName: string;
  role: GuardianRole;
  /** As the record writes it (maybe with spaces, another case, a display name), or absent. */
  email?: string;
  phone?: string;
  sms?: string;
  status: 'active' | 'tobedeleted';
  dateLastModified: string;
}

const DOMAINS = ['example.com', 'example.net', 'example.org', 'mail.example.com'];

export const guardianId = (g: number): string => `gdn-${pad(g + 1, 6)}`;

/** The family's shared address, from the first child's family name (e.g. garcia.family12@example.com). */
function familyAddress(d: District, f: number): string {
  const first = d.families.familyStudentStart[f]!;
  return `${asciiName(studentFamilyName(d.seed, first))}.family${f + 1}@${DOMAINS[hash32(d.seed, f) % DOMAINS.length]}`;
}

/** Guardian g of the district: names and contact derived from its own stream; role and traps from families. */
export function guardian(d: District, g: number): Guardian {
  const fam = d.families;
  const f = fam.guardianFamily[g]!;
  const rng = rngFor(d.seed, KIND.guardian, g);
  const [givenName] = rng.pick(GIVEN_NAMES);
  const drawnFamily = rng.pick(FAMILY_NAMES);
  // Most guardians share the first child's family name; some do not (a step-parent, a grandparent).
  const familyName = rng.chance(0.8) ? studentFamilyName(d.seed, fam.familyStudentStart[f]!) : drawnFamily;
  const p: Guardian = {
    givenName,
    familyName,
    role: ROLES[fam.guardianRole[g]!]!,
    status: fam.guardianDeleted[g] ? 'tobedeleted' : 'active',
    dateLastModified: modifiedAt(rng),
  };
  const own = `${asciiName(givenName)}.${asciiName(familyName)}${g + 1}@${rng.pick(DOMAINS)}`;
  switch (fam.guardianEmail[g]) {
    case EMAIL.own:
      p.email = own;
      break;
    case EMAIL.shared:
      p.email = familyAddress(d, f);
      break;
    case EMAIL.sharedCase:
      p.email = familyAddress(d, f).replace(
        /(^|[.@])([a-z])/g,
        (_, sep: string, c: string) => sep + c.toUpperCase(),
      );
      break;
    case EMAIL.sharedSpaces:
      p.email = `  ${familyAddress(d, f)} `;
      break;
    case EMAIL.localhost:
      p.email = own.replace(/@.*$/, '@localhost');
      break;
    case EMAIL.displayName:
      p.email = `"${givenName} ${familyName}" <${own}>`;
      break;
    case EMAIL.sameAsFirst:
      p.email = guardian(d, 0).email;
      break;
  }
  p.phone = `+1-555-03${String(rng.int(100)).padStart(2, '0')}`;
  if (rng.chance(0.3)) p.sms = `+1-555-04${String(rng.int(100)).padStart(2, '0')}`;
  return p;
}
