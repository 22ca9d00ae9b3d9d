// An independent reading of a district's families, for tests of `roster invite plan`: the users are fetched
// over HTTP (plain fetch, the client-credentials grant) and the expected plan is computed here from the
// rules of issue 14 as docs/invitations.md states them, never through roster's own modules.

export type Version = '1.1' | '1.2';
interface Ref {
  sourcedId: string;
}
interface Role {
  role: string;
  org?: Ref;
  endDate?: string;
}
/** A user record as the server sent it (the fields read here). */
export interface RawUser {
  sourcedId: string;
  status?: string;
  role?: string;
  roles?: Role[];
  orgs?: Ref[];
  grades?: string[];
  agents?: Ref[];
  email?: string;
  givenName?: string;
  familyName?: string;
}
type Rec = RawUser;

export const PREFIX: Record<Version, string> = { '1.1': '/ims/oneroster/v1p1', '1.2': '/ims/oneroster/v1p2' };

/** A token by the client-credentials grant (HTTP Basic) from the version's token endpoint. */
export async function fetchToken(baseUrl: string, clientId: string, secret: string, version: Version) {
  const tokenAnswer = await fetch(`${baseUrl}${PREFIX[version]}/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
  });
  const { access_token: token } = (await tokenAnswer.json()) as { access_token: string };
  return token;
}

/** Every record of one collection, page by page (1000 a page), duplicates kept as served. */
export async function fetchCollection<T>(baseUrl: string, token: string, version: Version, name: string) {
  const records: T[] = [];
  for (let offset = 0; ; offset += 1000) {
    const answer = await fetch(`${baseUrl}${PREFIX[version]}/${name}?limit=1000&offset=${offset}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    if (!answer.ok) throw new Error(`GET ${name}: HTTP ${answer.status}`);
    const page = ((await answer.json()) as Record<string, T[] | undefined>)[name];
    if (!Array.isArray(page)) throw new Error(`GET ${name}: no "${name}" list in the answer`);
    records.push(...page);
    if (page.length < 1000) return records;
  }
}

/** Every user of the district, page by page, over HTTP. */
export async function fetchUsers(
  baseUrl: string,
  clientId: string,
  secret: string,
  version: Version,
): Promise<Rec[]> {
  return fetchCollection<Rec>(
    baseUrl,
    await fetchToken(baseUrl, clientId, secret, version),
    version,
    'users',
  );
}

export interface ExpectedInvitation {
  email: string;
  schoolId: string;
  studentCount: number;
  guardians: string[];
  students: string[];
}

export interface Expected {
  invitations: ExpectedInvitation[];
  uncovered: { sourcedId: string; reason: string }[];
  refused: { email: string; schoolId: string }[];
}

/** The reasons, as docs/invitations.md lists them, in their order. */
const REASON_ORDER = [
  'no guardian linked',
  'linked guardian not returned by the API',
  'guardian to be deleted',
  'guardian role ended',
  'guardian without e-mail',
  'guardian e-mail invite send would refuse',
];

const KINDERGARTEN = ['kg', 'k', '00', 'kindergarten'];
const sameGrade = (a: string, b: string) => {
  const norm = (g: string) => {
    const t = g.trim().toLowerCase();
    return KINDERGARTEN.includes(t) ? 'kg' : /^\d+$/.test(t) ? String(Number(t)) : t;
  };
  return norm(a) === norm(b);
};

/** A plain address with a dotted domain: what `invite send` takes (its own rules are stricter still). */
const sendable = (email: string) => /^[A-Za-z0-9._%+'-]+@([A-Za-z0-9-]+\.)+[A-Za-z]{2,}$/.test(email);

export function expectedPlan(
  users: Rec[],
  version: Version,
  options: {
    schools: string[];
    grades?: string[];
    roles?: string[];
    today: string;
    count?: 'in-scope' | 'school';
  },
): Expected {
  const roles = options.roles ?? ['parent', 'guardian'];
  const byId = new Map(users.map((u) => [u.sourcedId as string, u]));
  const active = (u: Rec) => u.status !== 'tobedeleted';
  const rolesNow = (u: Rec): { role: string; org?: string }[] =>
    version === '1.1'
      ? (u.orgs?.length ? u.orgs : [undefined]).map((o) => ({ role: u.role ?? '', org: o?.sourcedId }))
      : (u.roles ?? [])
          .filter((r) => !(r.endDate && r.endDate.slice(0, 10) < options.today))
          .map((r) => ({ role: r.role, org: r.org?.sourcedId }));
  const schoolsOf = (u: Rec): string[] =>
    active(u)
      ? rolesNow(u)
          .filter((r) => r.role === 'student' && r.org && options.schools.includes(r.org))
          .map((r) => r.org as string)
      : [];
  const gradeOk = (u: Rec) =>
    !options.grades || (u.grades ?? []).some((g: string) => options.grades!.some((w) => sameGrade(g, w)));
  const students = users.filter((u) => schoolsOf(u).length > 0);
  const inScope = students.filter(gradeOk);
  const linksOf = new Map<string, Set<string>>();
  const link = (student: string, agent: string) => {
    if (!linksOf.has(student)) linksOf.set(student, new Set());
    linksOf.get(student)!.add(agent);
  };
  for (const s of students) for (const a of s.agents ?? []) link(s.sourcedId, a.sourcedId);
  for (const u of users)
    for (const a of u.agents ?? []) if (byId.has(a.sourcedId)) link(a.sourcedId, u.sourcedId);
  const endedGuardian = (u: Rec) =>
    version === '1.2' &&
    (u.roles ?? []).some(
      (r) => roles.includes(r.role) && r.endDate !== undefined && r.endDate.slice(0, 10) < options.today,
    );
  const isGuardian = (u: Rec) => active(u) && rolesNow(u).some((r) => roles.includes(r.role));

  const groups = new Map<
    string,
    { email: string; schoolId: string; guardians: Set<string>; counted: Set<string> }
  >();
  const refused = new Map<string, { email: string; schoolId: string }>();
  const covered = new Set<string>();
  const atSchool = (id: string, school: string) => {
    const child = byId.get(id);
    return child !== undefined && schoolsOf(child).includes(school);
  };
  for (const s of inScope) {
    for (const school of schoolsOf(s)) {
      for (const id of linksOf.get(s.sourcedId) ?? []) {
        const g = byId.get(id);
        const email = typeof g?.email === 'string' ? g.email.trim() : '';
        if (!g || !isGuardian(g) || email === '') continue;
        const key = `${email.toLowerCase()}|${school}`;
        if (!sendable(email)) {
          refused.set(key, { email, schoolId: school });
          continue;
        }
        covered.add(s.sourcedId);
        const group = groups.get(key) ?? {
          email,
          schoolId: school,
          guardians: new Set(),
          counted: new Set(),
        };
        groups.set(key, group);
        group.guardians.add(g.sourcedId);
        group.counted.add(s.sourcedId);
        if (options.count === 'school')
          for (const [child, agents] of linksOf)
            if (agents.has(g.sourcedId) && atSchool(child, school)) group.counted.add(child);
      }
    }
  }
  const uncovered = inScope
    .filter((s) => !covered.has(s.sourcedId))
    .map((s) => {
      const reasons = new Set<string>();
      const linked = linksOf.get(s.sourcedId) ?? new Set();
      if (linked.size === 0) reasons.add('no guardian linked');
      for (const id of linked) {
        const g = byId.get(id);
        const email = typeof g?.email === 'string' ? g.email.trim() : '';
        if (!g) reasons.add('linked guardian not returned by the API');
        else if (!rolesNow(g).some((r) => roles.includes(r.role)) && endedGuardian(g))
          reasons.add('guardian role ended');
        else if (!rolesNow(g).some((r) => roles.includes(r.role)))
          reasons.add(`linked ${rolesNow(g)[0]?.role ?? 'user'} (not in --roles)`);
        else if (!active(g)) reasons.add('guardian to be deleted');
        else if (email === '') reasons.add('guardian without e-mail');
        else if (!sendable(email)) reasons.add('guardian e-mail invite send would refuse');
      }
      const rank = (r: string) => (REASON_ORDER.includes(r) ? REASON_ORDER.indexOf(r) : REASON_ORDER.length);
      const reason = [...reasons].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b)).join('; ');
      return { sourcedId: s.sourcedId as string, reason };
    })
    .sort((a, b) => a.sourcedId.localeCompare(b.sourcedId));
  return {
    invitations: [...groups.values()]
      .map((g) => ({
        email: g.email.toLowerCase(),
        schoolId: g.schoolId,
        studentCount: g.counted.size,
        guardians: [...g.guardians].sort(),
        students: [...g.counted].sort(),
      }))
      .sort(byKey),
    uncovered,
    refused: [...refused.values()],
  };
}

const byKey = (a: { email: string; schoolId: string }, b: { email: string; schoolId: string }) =>
  `${a.schoolId}|${a.email}`.localeCompare(`${b.schoolId}|${b.email}`);

interface PlanJson {
  invitations: { email: string; schoolId: string; studentCount: number; guardians: Ref[]; students: Ref[] }[];
  uncovered: { sourcedId: string; reason: string }[];
  skipped: { email: string; schoolId: string; reason: string }[];
}

/** roster's --json plan in the shape of Expected, for comparison. */
export function actualPlan(json: PlanJson): Expected {
  return {
    invitations: json.invitations
      .map((i) => ({
        email: i.email.trim().toLowerCase(),
        schoolId: i.schoolId,
        studentCount: i.studentCount,
        guardians: i.guardians.map((g) => g.sourcedId).sort(),
        students: i.students.map((s) => s.sourcedId).sort(),
      }))
      .sort(byKey),
    uncovered: json.uncovered
      .map((u) => ({ sourcedId: u.sourcedId, reason: u.reason }))
      .sort((a, b) => a.sourcedId.localeCompare(b.sourcedId)),
    refused: json.skipped
      .filter((s) => s.reason.startsWith('e-mail refused'))
      .map((s) => ({ email: s.email, schoolId: s.schoolId })),
  };
}
