// The sandbox's families over HTTP: parents, guardians and relatives as OneRoster 1.1 and 1.2 users, linked
// with agents per --agents, the traps of real districts (--family-traps, at documented ids) and the default
// district without them (every student reachable), the 1.2 refusals, new families
// from churn, determinism for a seed, and the counts of a large district. What is expected is read from the
// records the server returns, never from the sandbox's own code.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChurnChange } from '../../src/sandbox/oneroster/churn.js';
import type { OneRosterSandboxOptions } from '../../src/sandbox/oneroster/index.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { runCli, startCli, until } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { bearer, getToken } from './helpers.js';
import { enc } from './oneroster-helpers.js';

type Version = '1.1' | '1.2';
type User = Record<string, unknown> & { sourcedId: string; agents: { sourcedId: string; type: string }[] };
const PREFIX: Record<Version, string> = { '1.1': '/ims/oneroster/v1p1', '1.2': '/ims/oneroster/v1p2' };

interface Running {
  sandbox: Sandbox;
  get(
    version: Version,
    path: string,
    query?: string,
  ): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }>;
  users(version: Version): Promise<Map<string, User>>;
}

async function running(oneroster: OneRosterSandboxOptions): Promise<Running> {
  const sandbox = await startSandbox({ oneroster, record: false });
  const tokens = {
    '1.1': await getToken(sandbox, 'demo-allowed', `${PREFIX['1.1']}/token`),
    '1.2': await getToken(sandbox, 'demo-allowed', `${PREFIX['1.2']}/token`),
  };
  const get: Running['get'] = async (version, path, query = '') => {
    const res = await fetch(`${sandbox.baseUrl}${PREFIX[version]}${path}${query ? `?${query}` : ''}`, {
      headers: bearer(tokens[version]),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown>, headers: res.headers };
  };
  const users = async (version: Version) => {
    const out = new Map<string, User>();
    for (let offset = 0; ; offset += 5000) {
      const page = (await get(version, '/users', `limit=5000&offset=${offset}`)).body.users as User[];
      for (const u of page) out.set(u.sourcedId, u);
      if (page.length < 5000) return out;
    }
  };
  return { sandbox, get, users };
}

/** The role a record gives: 1.1 `role`, 1.2 the primary entry of `roles`. */
const roleOf = (u: User): string =>
  (u.role as string | undefined) ??
  ((u.roles as { roleType: string; role: string }[]).find((r) => r.roleType === 'primary')?.role as string);
const FAMILY_ROLES = new Set(['parent', 'guardian', 'relative']);
const isGuardian = (u: User) => FAMILY_ROLES.has(roleOf(u));
/** Student-guardian pairs as `stu gdn`, from one side's agents. */
const pairs = (users: Map<string, User>, from: 'students' | 'guardians'): Set<string> => {
  const out = new Set<string>();
  for (const u of users.values()) {
    if (from === 'students' && roleOf(u) === 'student')
      for (const a of u.agents) out.add(`${u.sourcedId} ${a.sourcedId}`);
    if (from === 'guardians' && isGuardian(u))
      for (const a of u.agents) out.add(`${a.sourcedId} ${u.sourcedId}`);
  }
  return out;
};
const schoolsOf = (u: User): string[] =>
  u.orgs
    ? (u.orgs as { sourcedId: string }[]).map((o) => o.sourcedId)
    : (u.roles as { org: { sourcedId: string } }[]).map((r) => r.org.sourcedId);
const minor = (body: Record<string, unknown>) =>
  (body.imsx_CodeMinor as { imsx_codeMinorField: { imsx_codeMinorFieldValue: string }[] })
    .imsx_codeMinorField[0]?.imsx_codeMinorFieldValue;

describe.each(['1.1', '1.2'] as const)(
  'families in OneRoster %s (links on both sides, --family-traps)',
  (version) => {
    let s: Running;
    let users: Map<string, User>;
    beforeAll(async () => {
      s = await running({ familyTraps: true });
      users = await s.users(version);
    });
    afterAll(() => s.sandbox.close());
    const user = (id: string) => {
      const u = users.get(id);
      if (!u) throw new Error(`${id} not in the users list`);
      return u;
    };
    const agentIds = (id: string) => user(id).agents.map((a) => a.sourcedId);

    it('lists about 1.6 parents, guardians and relatives per student among the users, each linked as a user', () => {
      const students = [...users.values()].filter((u) => roleOf(u) === 'student');
      const guardians = [...users.values()].filter(isGuardian);
      expect(students).toHaveLength(1200);
      expect(guardians.length / students.length).toBeGreaterThan(1.5);
      expect(guardians.length / students.length).toBeLessThan(1.7);
      expect(new Set(guardians.map(roleOf))).toEqual(FAMILY_ROLES);
      for (const g of guardians) expect(g.sourcedId).toMatch(/^gdn-\d{6}$/);
      const links = [...guardians, ...students].flatMap((u) => u.agents);
      expect(new Set(links.map((a) => a.type))).toEqual(new Set(['user']));
    });

    it('links symmetrically: every link on a student is on the guardian too, and the other way round', () => {
      const fromStudents = pairs(users, 'students');
      const fromGuardians = pairs(users, 'guardians');
      // Only the dangling links (to a guardian the API does not return) are on one side.
      const dangling = [...fromStudents].filter((p) => !users.has(p.split(' ')[1]!));
      expect(dangling.length).toBeGreaterThan(0);
      expect(new Set([...fromStudents].filter((p) => !dangling.includes(p)))).toEqual(fromGuardians);
    });

    it('has each trap at its documented ids', async () => {
      // Siblings: one guardian, several children (here at two schools in the default district).
      expect(agentIds('gdn-000001')).toEqual(['stu-000001', 'stu-000002']);
      expect(agentIds('stu-000001')).toEqual(['gdn-000001', 'gdn-000002']);
      expect(new Set(['stu-000001', 'stu-000002'].flatMap((id) => schoolsOf(user(id)))).size).toBe(2);
      expect(agentIds('gdn-000014')).toEqual(['stu-000013', 'stu-000014', 'stu-000015']);
      // Two guardians sharing one address; the same address in another case; with spaces around it.
      expect(user('gdn-000003').email).toBe(user('gdn-000004').email);
      const [a, b] = [user('gdn-000005').email as string, user('gdn-000006').email as string];
      expect(a).not.toBe(b);
      expect(a.toLowerCase()).toBe(b.toLowerCase());
      const spaced = user('gdn-000008').email as string;
      expect(spaced).not.toBe(spaced.trim());
      expect(spaced.trim()).toBe(user('gdn-000007').email);
      // One person in two families: the same address on gdn-000017 as on gdn-000001.
      expect(user('gdn-000017').email).toBe(user('gdn-000001').email);
      expect(agentIds('gdn-000017')).toEqual(['stu-000016']);
      // No agents; relatives only; only a guardian without e-mail; only one to be deleted.
      expect(agentIds('stu-000006')).toEqual([]);
      expect(agentIds('stu-000007').map((id) => roleOf(user(id)))).toEqual(['relative']);
      expect(agentIds('stu-000008')).toEqual(['gdn-000010']);
      expect(user('gdn-000010')).not.toHaveProperty('email');
      expect(agentIds('stu-000009')).toEqual(['gdn-000011']);
      expect(user('gdn-000011').status).toBe('tobedeleted');
      // A dangling link: the only agent of stu-000010 is a user the API does not return.
      const [missing] = agentIds('stu-000010');
      expect(missing).toMatch(/^gdn-\d{6}$/);
      expect(users.has(missing!)).toBe(false);
      const one = await s.get(version, `/users/${missing}`);
      expect(one.status).toBe(404);
      expect(agentIds('stu-000020')).toEqual(['gdn-000022', expect.stringMatching(/^gdn-\d{6}$/)]);
      // E-mails invite send refuses: no dotted domain; a display-name form.
      expect(user('gdn-000012').email).toMatch(/^[a-z.]+12@localhost$/);
      expect(user('gdn-000013').email).toMatch(/^"[^"]+" <[^>]+@[^>]+>$/);
    });

    it('lists guardians under users and reads them by id, never under students', async () => {
      expect((await s.get(version, '/users/gdn-000001')).status).toBe(200);
      expect((await s.get(version, '/students/gdn-000001')).status).toBe(404);
      const students = (await s.get(version, '/students', 'limit=5000')).body.users as User[];
      expect(students.filter(isGuardian)).toEqual([]);
      // A guardian belongs to its children's schools.
      expect(schoolsOf(user('gdn-000001')).sort()).toEqual(
        [...new Set(['stu-000001', 'stu-000002'].flatMap((id) => schoolsOf(user(id))))].sort(),
      );
    });
  },
);

describe.each([
  ['students', 'guardians'],
  ['guardians', 'students'],
] as const)('--agents %s', (side, other) => {
  let both: Running;
  let one: Running;
  beforeAll(async () => {
    [both, one] = await Promise.all([running({ students: 300 }), running({ students: 300, agents: side })]);
  });
  afterAll(async () => {
    await both.sandbox.close();
    await one.sandbox.close();
  });

  it.each(['1.1', '1.2'] as const)(
    'keeps the links on that side only, the same links as a two-sided server (OneRoster %s)',
    async (version) => {
      const full = await both.users(version);
      const onlyOne = await one.users(version);
      expect(pairs(onlyOne, other)).toEqual(new Set());
      const kept = pairs(onlyOne, side);
      expect(kept.size).toBeGreaterThan(300);
      // The links a one-sided server keeps are the ones the full server shows on that side.
      expect(kept).toEqual(pairs(full, side));
    },
  );
});

describe('what the 1.2 endpoints refuse', () => {
  let s: Running;
  let strict: Running;
  beforeAll(async () => {
    [s, strict] = await Promise.all([
      running({ students: 50 }),
      running({ students: 50, refuseFields: true }),
    ]);
  });
  afterAll(async () => {
    await s.sandbox.close();
    await strict.sandbox.close();
  });

  it.each([
    "roles.role='parent'",
    "roles.org.sourcedId='org-sch-1'",
    "givenName='Zoë' AND roles.role='student'",
  ])('1.2 answers 400 in the 1.2 error shape to a filter on roles: %s', async (filter) => {
    for (const path of ['/users', '/students', '/schools/org-sch-1/students']) {
      const res = await s.get('1.2', path, `filter=${enc(filter)}`);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ imsx_codeMajor: 'failure', imsx_severity: 'error' });
      expect(minor(res.body)).toBe('invalid_filter_field');
      expect(res.body.imsx_description).toContain('roles');
    }
  });

  it('1.1 filters on role, and 1.2 on other fields, as before', async () => {
    const parents = await s.get('1.1', '/users', `filter=${enc("role='parent'")}&limit=1000`);
    expect(parents.status).toBe(200);
    expect((parents.body.users as User[]).length).toBeGreaterThan(20);
    expect((await s.get('1.2', '/users', `filter=${enc("status='tobedeleted'")}`)).status).toBe(200);
  });

  it('--refuse fields: 1.2 answers 400 to fields=, 1.1 and the default server still select', async () => {
    const refused = await strict.get('1.2', '/users', 'fields=sourcedId,email');
    expect(refused.status).toBe(400);
    expect(minor(refused.body)).toBe('invalid_selection_field');
    expect((await strict.get('1.2', '/users/gdn-000001', 'fields=email')).status).toBe(400);
    expect((await strict.get('1.2', '/users', 'limit=2')).status).toBe(200);
    const selected = await strict.get('1.1', '/users', 'fields=sourcedId&limit=1');
    expect(selected.body.users).toEqual([{ sourcedId: 'stu-000001' }]);
    const lenient = await s.get('1.2', '/users', 'fields=sourcedId&limit=1');
    expect(lenient.body.users).toEqual([{ sourcedId: 'stu-000001' }]);
  });
});

describe.each(['both', 'students', 'guardians'] as const)(
  'churn enrols new families (--agents %s)',
  (side) => {
    let s: Running;
    let changes: ChurnChange[];
    beforeAll(async () => {
      s = await running({ students: 80, seed: 11, agents: side });
      const res = await fetch(`${s.sandbox.origin}/__sandbox/churn?n=60`, { method: 'POST' });
      changes = ((await res.json()) as { changes: ChurnChange[] }).changes;
    });
    afterAll(() => s.sandbox.close());

    it.each(['1.1', '1.2'] as const)(
      'lists each new student with 1-2 guardians, linked per the setting (%s)',
      async (version) => {
        const users = await s.users(version);
        const newStudents = changes.filter((c) => c.change === 'new-student');
        const newGuardians = changes.filter((c) => c.change === 'new-guardian');
        const known = changes.filter((c) => c.change === 'new-child');
        expect(newStudents.length).toBeGreaterThan(5);
        expect(newGuardians.length).toBeGreaterThan(newStudents.length);
        expect(known.length).toBeGreaterThan(0);
        for (const c of [...newGuardians, ...known]) {
          expect(c.collection).toBe('users');
          expect(isGuardian(users.get(c.sourcedId)!)).toBe(true);
        }
        for (const g of newGuardians) expect(g.sourcedId).toMatch(/^gdn-n\d{5}$/);
        // The change list in order: a new student, then its family (new guardians, or a known one).
        const families = new Map<string, string[]>();
        let current = '';
        for (const c of changes) {
          if (c.change === 'new-student') {
            current = c.sourcedId;
            families.set(current, []);
          } else if (c.change === 'new-guardian' || c.change === 'new-child')
            families.get(current)!.push(c.sourcedId);
          else current = '';
        }
        const expected = new Set([...families].flatMap(([stu, gdns]) => gdns.map((g) => `${stu} ${g}`)));
        for (const gdns of families.values()) expect([1, 2]).toContain(gdns.length);
        const linked = (from: 'students' | 'guardians') =>
          new Set([...pairs(users, from)].filter((p) => p.startsWith('stu-n')));
        if (side !== 'guardians') expect(linked('students')).toEqual(expected);
        else expect(linked('students')).toEqual(new Set());
        if (side !== 'students') expect(linked('guardians')).toEqual(expected);
        else expect(linked('guardians')).toEqual(new Set());
        // New guardians are read by id, and not under students.
        expect((await s.get(version, `/users/${newGuardians[0]!.sourcedId}`)).status).toBe(200);
        expect((await s.get(version, `/students/${newGuardians[0]!.sourcedId}`)).status).toBe(404);
      },
    );
  },
);

describe.each(['1.1', '1.2'] as const)('the default district in OneRoster %s: no family trap', (version) => {
  it('every student linked both ways to an active parent or guardian with a usable address; shared family addresses kept', async () => {
    const s = await running({});
    try {
      const users = await s.users(version);
      const students = [...users.values()].filter((u) => roleOf(u) === 'student');
      expect(students).toHaveLength(1200);
      expect(pairs(users, 'students')).toEqual(pairs(users, 'guardians'));
      for (const u of users.values()) expect(u.status, u.sourcedId).toBe('active');
      for (const student of students) {
        const reachable = student.agents.some((a) => {
          const g = users.get(a.sourcedId);
          const email = (g?.email as string | undefined)?.trim();
          return (
            g !== undefined &&
            ['parent', 'guardian'].includes(roleOf(g)) &&
            email !== undefined &&
            /^[^\s@"<>]+@[^\s@"<>]+\.[a-z]+$/i.test(email)
          );
        });
        expect(reachable, student.sourcedId).toBe(true);
      }
      // What a campaign must still handle, without being a data error: one address in a family, in two cases,
      // with spaces around it; siblings.
      expect(users.get('gdn-000003')?.email).toBe(users.get('gdn-000004')?.email);
      const [a, b] = [users.get('gdn-000005')?.email as string, users.get('gdn-000006')?.email as string];
      expect(a).not.toBe(b);
      expect(a.toLowerCase()).toBe(b.toLowerCase());
      const spaced = String(users.get('gdn-000008')?.email);
      expect(spaced).not.toBe(spaced.trim());
      expect(spaced.trim()).toBe(users.get('gdn-000007')?.email);
      expect(users.get('gdn-000001')?.agents.map((x) => x.sourcedId)).toEqual(['stu-000001', 'stu-000002']);
    } finally {
      await s.sandbox.close();
    }
  });
});

describe('determinism and scale', () => {
  it('serves the same families for a seed, other names for another seed, the traps at the same ids', async () => {
    const [a, b, c] = await Promise.all([
      running({ students: 200, seed: 5, familyTraps: true }),
      running({ students: 200, seed: 5, familyTraps: true }),
      running({ students: 200, seed: 6, familyTraps: true }),
    ]);
    try {
      for (const version of ['1.1', '1.2'] as const) {
        const [ua, ub, uc] = await Promise.all([a.users(version), b.users(version), c.users(version)]);
        // The same records but for the origin in hrefs (each sandbox has its own port).
        const text = (users: Map<string, User>, origin: string) =>
          JSON.stringify([...users.values()]).replaceAll(origin, 'ORIGIN');
        expect(text(ua, a.sandbox.origin)).toBe(text(ub, b.sandbox.origin));
        expect([...ua.values()].map((u) => u.email)).not.toEqual([...uc.values()].map((u) => u.email));
        expect(uc.get('gdn-000011')?.status).toBe('tobedeleted');
        expect(uc.get('stu-000006')?.agents).toEqual([]);
      }
    } finally {
      await Promise.all([a.sandbox.close(), b.sandbox.close(), c.sandbox.close()]);
    }
  });

  it('holds 50,000 students in 25 teaching schools of about 2,000, with about 80,000 guardians', async () => {
    const s = await running({ students: 50_000, schools: 25 });
    try {
      const total = async (path: string, query = 'limit=1') =>
        Number((await s.get('1.1', path, query)).headers.get('x-total-count'));
      const schools = (await s.get('1.1', '/schools', 'limit=100')).body.orgs as {
        sourcedId: string;
        name: string;
      }[];
      expect(schools).toHaveLength(27);
      expect(schools.filter((x) => x.name === 'Fir Grove School')).toHaveLength(2);
      expect(new Set(schools.map((x) => x.name)).size).toBe(26);
      for (const school of schools.slice(0, 25)) {
        const n = await total(`/schools/${school.sourcedId}/students`);
        expect(n).toBeGreaterThan(1700);
        expect(n).toBeLessThan(2300);
      }
      const guardians =
        (await total('/users', `filter=${enc("role='parent'")}&limit=1`)) +
        (await total('/users', `filter=${enc("role='guardian'")}&limit=1`)) +
        (await total('/users', `filter=${enc("role='relative'")}&limit=1`));
      expect(guardians).toBeGreaterThan(75_000);
      expect(guardians).toBeLessThan(85_000);
      expect(await total('/users')).toBe(50_000 + (await total('/teachers')) + 3 + guardians);
    } finally {
      await s.sandbox.close();
    }
  });
});

describe('roster sandbox options', () => {
  /**
   * `roster sandbox --port 0 --quiet --students 30 …args` as a process: `get` reads a path with a token of
   * the demo client from that API's own token endpoint; the process is stopped with SIGINT afterwards.
   */
  async function withSandboxProcess(
    args: string[],
    use: (get: (prefix: string, path: string) => Promise<Response>) => Promise<void>,
  ): Promise<void> {
    const { child, done } = startCli(
      ['sandbox', '--port', '0', '--quiet', '--students', '30', ...args],
      tempDir(),
    );
    let out = '';
    child.stdout?.on('data', (chunk) => (out += chunk));
    try {
      await until(() => /Sandbox listening on (\S+)/.test(out));
      const baseUrl = /Sandbox listening on (\S+)/.exec(out)![1]!;
      const token = async (prefix: string) => {
        const res = await fetch(`${baseUrl}${prefix}/token`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          body: 'grant_type=client_credentials&client_id=demo-allowed&client_secret=riverside-secret-2024',
        });
        return ((await res.json()) as { access_token: string }).access_token;
      };
      await use(async (prefix, path) =>
        fetch(`${baseUrl}${prefix}${path}`, { headers: bearer(await token(prefix)) }),
      );
    } finally {
      child.kill('SIGINT');
      await done;
    }
  }

  it('--agents guardians --refuse fields --schools 3: the process serves what the options say', async () => {
    await withSandboxProcess(
      ['--schools', '3', '--agents', 'guardians', '--refuse', 'fields'],
      async (get) => {
        const student = (await (await get(PREFIX['1.1'], '/users/stu-000001')).json()) as { user: User };
        expect(student.user.agents).toEqual([]);
        const parent = (await (await get(PREFIX['1.1'], '/users/gdn-000001')).json()) as { user: User };
        expect(parent.user.agents.map((a) => a.sourcedId)).toEqual(['stu-000001', 'stu-000002']);
        expect((await get(PREFIX['1.2'], '/users?fields=sourcedId')).status).toBe(400);
        const schools = (await (await get(PREFIX['1.1'], '/schools')).json()) as { orgs: unknown[] };
        expect(schools.orgs).toHaveLength(5); // 3 teaching schools and the two Fir Grove campuses
      },
    );
  });

  it('--family-traps: the process serves the traps (stu-000006 without agents); without it, a parent', async () => {
    const agentsOf = async (args: string[]) => {
      let agents: string[] = [];
      await withSandboxProcess(args, async (get) => {
        const user = await get(PREFIX['1.1'], '/users/stu-000006');
        agents = ((await user.json()) as { user: User }).user.agents.map((a) => a.sourcedId);
      });
      return agents;
    };
    expect(await agentsOf(['--family-traps'])).toEqual([]);
    expect(await agentsOf([])).toEqual([expect.stringMatching(/^gdn-\d{6}$/)]);
  });

  it('--clean is not an option (the default district is the clean one): exit 2', async () => {
    const result = await runCli(['sandbox', '--port', '0', '--clean'], tempDir());
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--clean');
    expect(result.stdout).not.toContain('listening');
  });

  it.each([
    ['--agents', 'parents'],
    ['--agents', ''],
    ['--refuse', 'filter'],
    ['--schools', '0'],
    ['--schools', '101'],
  ])('%s %j is a usage error (exit 2) before listening', async (flag, value) => {
    const result = await runCli(['sandbox', '--port', '0', flag, value], tempDir());
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(flag);
    expect(result.stdout).not.toContain('listening');
  });
});
