// Which fields each record kind has in each version (the properties of the official schemas), and which
// dotted sub-fields a filter or sort may address. Used to answer invalid_filter_field / invalid_selection_field.
import type { Kind, Version } from './records.js';

/** A scalar field, a GUIDRef (sub-fields href/sourcedId/type), free-form, or an object with known keys. */
export type FieldSpec = 'scalar' | 'ref' | 'any' | { readonly [key: string]: FieldSpec };

const BASE = { sourcedId: 'scalar', status: 'scalar', dateLastModified: 'scalar', metadata: 'any' } as const;
const USER_ID = { type: 'scalar', identifier: 'scalar' } as const;

const COMMON: Record<Exclude<Kind, 'user'>, Record<string, FieldSpec>> = {
  org: { ...BASE, name: 'scalar', type: 'scalar', identifier: 'scalar', parent: 'ref', children: 'ref' },
  academicSession: {
    ...BASE,
    title: 'scalar',
    startDate: 'scalar',
    endDate: 'scalar',
    type: 'scalar',
    parent: 'ref',
    children: 'ref',
    schoolYear: 'scalar',
  },
  course: {
    ...BASE,
    title: 'scalar',
    schoolYear: 'ref',
    courseCode: 'scalar',
    grades: 'scalar',
    subjects: 'scalar',
    org: 'ref',
    subjectCodes: 'scalar',
    resources: 'ref',
  },
  class: {
    ...BASE,
    title: 'scalar',
    classCode: 'scalar',
    classType: 'scalar',
    location: 'scalar',
    grades: 'scalar',
    subjects: 'scalar',
    course: 'ref',
    school: 'ref',
    terms: 'ref',
    subjectCodes: 'scalar',
    periods: 'scalar',
    resources: 'ref',
  },
  enrollment: {
    ...BASE,
    user: 'ref',
    class: 'ref',
    school: 'ref',
    role: 'scalar',
    primary: 'scalar',
    beginDate: 'scalar',
    endDate: 'scalar',
  },
  demographics: {
    ...BASE,
    birthDate: 'scalar',
    sex: 'scalar',
    americanIndianOrAlaskaNative: 'scalar',
    asian: 'scalar',
    blackOrAfricanAmerican: 'scalar',
    nativeHawaiianOrOtherPacificIslander: 'scalar',
    white: 'scalar',
    demographicRaceTwoOrMoreRaces: 'scalar',
    hispanicOrLatinoEthnicity: 'scalar',
    countryOfBirthCode: 'scalar',
    stateOfBirthAbbreviation: 'scalar',
    cityOfBirth: 'scalar',
    publicSchoolResidenceStatus: 'scalar',
  },
};

const USER_11: Record<string, FieldSpec> = {
  ...BASE,
  username: 'scalar',
  userIds: USER_ID,
  enabledUser: 'scalar',
  givenName: 'scalar',
  familyName: 'scalar',
  middleName: 'scalar',
  role: 'scalar',
  identifier: 'scalar',
  email: 'scalar',
  sms: 'scalar',
  phone: 'scalar',
  agents: 'ref',
  orgs: 'ref',
  grades: 'scalar',
  password: 'scalar',
};

const USER_12: Record<string, FieldSpec> = {
  ...BASE,
  userMasterIdentifier: 'scalar',
  username: 'scalar',
  userIds: USER_ID,
  enabledUser: 'scalar',
  givenName: 'scalar',
  familyName: 'scalar',
  middleName: 'scalar',
  preferredFirstName: 'scalar',
  preferredMiddleName: 'scalar',
  preferredLastName: 'scalar',
  pronouns: 'scalar',
  roles: {
    roleType: 'scalar',
    role: 'scalar',
    org: 'ref',
    userProfile: 'scalar',
    beginDate: 'scalar',
    endDate: 'scalar',
  },
  userProfiles: { profileId: 'scalar', profileType: 'scalar', vendorId: 'scalar', applicationId: 'scalar' },
  primaryOrg: 'ref',
  identifier: 'scalar',
  email: 'scalar',
  sms: 'scalar',
  phone: 'scalar',
  agents: 'ref',
  grades: 'scalar',
  password: 'scalar',
  resources: 'ref',
};

const REF: Record<string, FieldSpec> = { href: 'scalar', sourcedId: 'scalar', type: 'scalar' };

export function fieldsOf(version: Version, kind: Kind): Record<string, FieldSpec> {
  if (kind === 'user') return version === '1.1' ? USER_11 : USER_12;
  return COMMON[kind];
}

/** Whether a (possibly dotted) field path names a field of the kind, e.g. `givenName`, `roles.org.sourcedId`. */
export function isKnownPath(version: Version, kind: Kind, path: string): boolean {
  let spec: FieldSpec | undefined = { ...fieldsOf(version, kind) };
  for (const part of path.split('.')) {
    if (spec === undefined || spec === 'scalar') return false;
    if (spec === 'any') return part.length > 0;
    const table: Record<string, FieldSpec> = spec === 'ref' ? REF : spec;
    spec = Object.hasOwn(table, part) ? table[part] : undefined;
  }
  return spec !== undefined;
}
