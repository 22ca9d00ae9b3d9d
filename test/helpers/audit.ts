// An independent reading of a district for tests of `roster roster audit`: every collection fetched over
// HTTP (plain fetch, the client-credentials grant, duplicates kept as served) and the expected findings
// computed here with plain code from each check's definition (docs/oneroster.md), never through roster's own
// modules. The campaign's two checks come from the campaign's own independent computation (families.ts).
import { expectedPlan, fetchCollection, fetchToken, type RawUser, type Version } from './families.js';

interface Ref {
  sourcedId: string;
}
type Raw = Record<string, unknown> & { sourcedId: string; status?: string };

export interface District {
  orgs: Raw[];
  academicSessions: Raw[];
  courses: Raw[];
  classes: Raw[];
  users: Raw[];
  enrollments: Raw[];
}

const COLLECTIONS = ['orgs', 'academicSessions', 'courses', 'classes', 'users', 'enrollments'] as const;

/** Every record of every collection the audit reads, page by page, over HTTP. */
export async function fetchDistrict(
  baseUrl: string,
  clientId: string,
  secret: string,
  version: Version,
): Promise<District> {
  const token = await fetchToken(baseUrl, clientId, secret, version);
  const district = {} as District;
  for (const name of COLLECTIONS) district[name] = await fetchCollection<Raw>(baseUrl, token, version, name);
  return district;
}

const VOCABULARY = [
  'it',
  'pr',
  'pk',
  'tk',
  'kg',
  'ps',
  'ug',
  'other',
  ...Array.from({ length: 13 }, (_, i) => String(i + 1)),
];
const KINDERGARTEN = ['k', '00', 'kindergarten'];
const knownGrade = (g: string) => {
  const t = g.trim().toLowerCase();
  const key = KINDERGARTEN.includes(t) ? 'kg' : /^\d+$/.test(t) && t !== '0' ? String(Number(t)) : t;
  return VOCABULARY.includes(key);
};
/** A plain address with a dotted domain (as families.ts: what invite send takes for this data). */
const sendable = (email: string) => /^[A-Za-z0-9._%+'-]+@([A-Za-z0-9-]+\.)+[A-Za-z]{2,}$/.test(email);

/** Per check, the records it should list: "collection|sourcedId", sorted (a record may appear more than once). */
export type Expected = Record<string, string[]>;

export function expectedAudit(
  data: District,
  version: Version,
  options: { date: string; maxChildren?: number },
): Expected {
  const out: Record<string, string[]> = {};
  const add = (check: string, collection: string, id: string) => {
    out[check] ??= [];
    out[check].push(`${collection}|${id}`);
  };
  const active = (r: Raw | undefined) => r !== undefined && r.status !== 'tobedeleted';
  const id = (v: unknown) => (v && typeof v === 'object' ? String((v as Ref).sourcedId ?? '') : '');
  const ids = (v: unknown) => (Array.isArray(v) ? v.map(id).filter(Boolean) : []);
  const str = (v: unknown) => (typeof v === 'string' ? v.trim() : '');

  const index: Record<string, Map<string, Raw>> = {};
  for (const name of COLLECTIONS) {
    const seen = new Map<string, Raw>();
    const twice = new Set<string>();
    for (const r of data[name]) {
      if (seen.has(r.sourcedId)) twice.add(r.sourcedId);
      else seen.set(r.sourcedId, r);
    }
    for (const dup of twice) add('duplicate-sourcedid', name, dup);
    index[name] = seen;
  }
  const {
    orgs,
    academicSessions: sessions,
    courses,
    classes,
    users,
    enrollments,
  } = index as Record<(typeof COLLECTIONS)[number], Map<string, Raw>>;
  const rolesNow = (u: Raw): { role: string; org: string }[] =>
    version === '1.1'
      ? (ids(u.orgs).length ? ids(u.orgs) : ['']).map((org) => ({ role: str(u.role).toLowerCase(), org }))
      : ((u.roles as Record<string, unknown>[] | undefined) ?? [])
          .filter((r) => !(str(r.endDate) && str(r.endDate).slice(0, 10) < options.date))
          .map((r) => ({ role: str(r.role).toLowerCase(), org: id(r.org) }));

  const refer = (from: string, r: Raw, target: Map<string, Raw>, to: string) => {
    if (to === '') return;
    const t = target.get(to);
    if (!t) add('missing-reference', from, r.sourcedId);
    else if (active(r) && !active(t)) add('active-refers-to-deleted', from, r.sourcedId);
  };
  for (const r of courses.values()) {
    refer('courses', r, orgs, id(r.org));
    refer('courses', r, sessions, id(r.schoolYear));
  }
  for (const r of classes.values()) {
    refer('classes', r, courses, id(r.course));
    refer('classes', r, orgs, id(r.school));
    for (const t of ids(r.terms)) refer('classes', r, sessions, t);
  }
  for (const r of users.values())
    for (const org of new Set(
      rolesNow(r)
        .map((x) => x.org)
        .filter(Boolean),
    ))
      refer('users', r, orgs, org);
  const enrolled = new Set<string>();
  const taught = new Set<string>();
  // An enrollment ended before the school year --date falls in began (or before --date, with none).
  const yearStarts = [...sessions.values()]
    .filter(
      (x) =>
        x.type === 'schoolYear' &&
        active(x) &&
        str(x.startDate) &&
        str(x.startDate).slice(0, 10) <= options.date,
    )
    .map((x) => str(x.startDate).slice(0, 10))
    .sort();
  const cutoff = yearStarts.at(-1) ?? options.date;
  for (const r of enrollments.values()) {
    refer('enrollments', r, users, id(r.user));
    refer('enrollments', r, classes, id(r.class));
    refer('enrollments', r, orgs, id(r.school));
    if (active(r) && str(r.endDate) && str(r.endDate).slice(0, 10) < cutoff) {
      add('ended-enrollment-active', 'enrollments', r.sourcedId);
      continue;
    }
    if (!active(r) || !active(users.get(id(r.user))) || !active(classes.get(id(r.class)))) continue;
    if (r.role === 'student') enrolled.add(id(r.user));
    const held = rolesNow(users.get(id(r.user)) as Raw).map((x) => x.role);
    if (r.role === 'student' && held.includes('teacher') && !held.includes('student'))
      add('teacher-as-student', 'enrollments', r.sourcedId);
    if (r.role === 'teacher') taught.add(id(r.class));
  }
  for (const r of orgs.values()) {
    refer('orgs', r, orgs, id(r.parent));
    const chain: string[] = [];
    for (let at = id(r.parent); at && !chain.includes(at); at = id(orgs.get(at)?.parent)) {
      if (at === r.sourcedId) {
        add('org-cycle', 'orgs', r.sourcedId);
        break;
      }
      chain.push(at);
    }
  }
  const day = (v: unknown) => str(v).slice(0, 10);
  for (const r of sessions.values()) {
    refer('academicSessions', r, sessions, id(r.parent));
    const [start, end] = [day(r.startDate), day(r.endDate)];
    if (start && end && end < start) add('session-dates', 'academicSessions', r.sourcedId);
    const p = sessions.get(id(r.parent));
    if (p && start && end && day(p.startDate) && day(p.endDate))
      if (start < day(p.startDate) || end > day(p.endDate))
        add('session-dates', 'academicSessions', r.sourcedId);
  }
  const years = [...sessions.values()].filter((s) => s.type === 'schoolYear' && active(s));
  if (!years.some((y) => day(y.startDate) <= options.date && options.date <= day(y.endDate))) {
    const latest = years.sort((a, b) => (day(a.endDate) < day(b.endDate) ? 1 : -1))[0];
    add('no-current-school-year', 'academicSessions', latest?.sourcedId ?? '');
  }

  const namedBy = new Map<string, string[]>();
  for (const u of users.values())
    for (const a of ids(u.agents)) namedBy.set(a, [...(namedBy.get(a) ?? []), u.sourcedId]);
  const linked = (u: string) => new Set([...ids(users.get(u)?.agents), ...(namedBy.get(u) ?? [])]);
  for (const u of users.values()) {
    for (const a of ids(u.agents)) {
      refer('users', u, users, a);
      const other = users.get(a);
      if (other && !ids(other.agents).includes(u.sourcedId)) add('one-sided-link', 'users', u.sourcedId);
    }
    if (!active(u)) continue;
    const email = str(u.email);
    if (email && !sendable(email)) add('invalid-email', 'users', u.sourcedId);
    if (!rolesNow(u).some((r) => r.role === 'student')) continue;
    for (const g of (u.grades as string[] | undefined) ?? [])
      if (!knownGrade(g)) add('invalid-grade', 'users', u.sourcedId);
    if (!enrolled.has(u.sourcedId)) add('student-without-enrollment', 'users', u.sourcedId);
    for (const a of linked(u.sourcedId)) {
      if (a === u.sourcedId) continue; // itself as agent: self-agent
      const agent = users.get(a);
      if (
        active(agent) &&
        !rolesNow(agent as Raw).some((r) => ['parent', 'guardian', 'relative'].includes(r.role))
      )
        add('agent-not-guardian', 'users', u.sourcedId);
    }
  }
  for (const c of classes.values())
    if (active(c) && !taught.has(c.sourcedId)) add('class-without-teacher', 'classes', c.sourcedId);
  extraChecks(index as Record<(typeof COLLECTIONS)[number], Map<string, Raw>>, version, options.date, add);

  const byEmail = new Map<string, string[]>();
  for (const u of users.values()) {
    const email = str(u.email).toLowerCase();
    if (active(u) && email) byEmail.set(email, [...(byEmail.get(email) ?? []), u.sourcedId]);
  }
  for (const group of byEmail.values()) {
    if (group.length < 2) continue;
    // Families: connected by a direct link or a common linked user.
    const family = new Map(group.map((u) => [u, u]));
    const find = (u: string): string => (family.get(u) === u ? u : find(family.get(u) as string));
    for (const a of group)
      for (const b of group) {
        const [la, lb] = [linked(a), linked(b)];
        if (a !== b && (la.has(b) || [...la].some((x) => lb.has(x)))) family.set(find(b), find(a));
      }
    if (new Set(group.map(find)).size > 1) for (const u of group) add('shared-email', 'users', u);
  }

  const schools = [...orgs.values()].filter((o) => o.type === 'school' && active(o)).map((o) => o.sourcedId);
  const plan = expectedPlan([...users.values()] as RawUser[], version, { schools, today: options.date });
  for (const s of plan.uncovered) add('student-without-guardian-email', 'users', s.sourcedId);
  for (const i of plan.invitations)
    if (i.studentCount > (options.maxChildren ?? 12))
      add('guardian-many-students', 'users', i.guardians[0] ?? '');
  for (const list of Object.values(out)) list.sort();
  return out;
}

const ROLES_11 = ['administrator', 'aide', 'guardian', 'parent', 'proctor', 'relative', 'student', 'teacher'];
const ROLES_12 = [
  ...ROLES_11.filter((r) => r !== 'administrator'),
  'counselor',
  'districtadministrator',
  'principal',
  'siteadministrator',
  'systemadministrator',
];

/** The checks of round 2, each from its definition in docs/oneroster.md. */
function extraChecks(
  index: Record<(typeof COLLECTIONS)[number], Map<string, Raw>>,
  version: Version,
  date: string,
  add: (check: string, collection: string, id: string) => void,
): void {
  const iso = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
  for (const name of COLLECTIONS)
    for (const r of index[name].values()) {
      const modified = r.dateLastModified;
      if (
        modified !== undefined &&
        modified !== null &&
        !(typeof modified === 'string' && iso.test(modified.trim()))
      )
        add('invalid-date-modified', name, r.sourcedId);
    }
  const schools = [...index.orgs.values()].filter(
    (o) => o.status !== 'tobedeleted' && String(o.type).toLowerCase() === 'school',
  );
  if (schools.length === 0) add('no-school', 'orgs', '');
  const vocabulary = version === '1.1' ? ROLES_11 : ROLES_12;
  for (const u of index.users.values()) {
    const entries = Array.isArray(u.roles) ? (u.roles as Record<string, unknown>[]) : [];
    const spelled = [...entries.map((e) => e.role), u.role].filter(
      (x): x is string => typeof x === 'string' && x.trim() !== '',
    );
    if (spelled.some((r) => !vocabulary.includes(r.trim().toLowerCase())))
      add('unknown-role', 'users', u.sourcedId);
    if (u.status === 'tobedeleted') continue;
    const agents = Array.isArray(u.agents)
      ? (u.agents as { sourcedId?: string }[]).map((a) => a?.sourcedId)
      : [];
    if (agents.includes(u.sourcedId)) add('self-agent', 'users', u.sourcedId);
    const named = entries.filter((e) => typeof e.role === 'string' && e.role.trim() !== '');
    const ended = named.filter((e) => typeof e.endDate === 'string' && e.endDate.slice(0, 10) < date);
    if (typeof u.role !== 'string' && named.length > 0 && ended.length === named.length)
      add('all-roles-ended', 'users', u.sourcedId);
  }
}

interface AuditJson {
  findings: { check: string; count: number; records: { collection: string; sourcedId: string }[] }[];
}

/** roster's --json report in the shape of Expected (checks without a record left out). */
export function actualAudit(json: AuditJson): Expected {
  const out: Expected = {};
  for (const f of json.findings)
    if (f.records.length > 0) out[f.check] = f.records.map((r) => `${r.collection}|${r.sourcedId}`).sort();
  return out;
}
