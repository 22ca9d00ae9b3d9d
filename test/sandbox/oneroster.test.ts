// The OneRoster sandbox route, called directly: paging headers and their variants, the query grammar,
// single and nested reads, errors, token-endpoint checks and seeding.
import { describe, expect, it } from 'vitest';
import { createOneRosterRoute } from '../../src/sandbox/oneroster/index.js';
import { sandboxSchoolYear } from '../helpers/sandbox.js';
import { caller11, caller12, client, enc, parseLink, request, rows } from './oneroster-helpers.js';

/** The school year the sandbox serves today (its sessions' ids). */
const SY = sandboxSchoolYear();

const v11 = client('1.1');
const v12 = client('1.2');

function imsxMinor(body: Record<string, unknown>): unknown {
  const minor = body.imsx_CodeMinor as { imsx_codeMinorField: { imsx_codeMinorFieldValue: string }[] };
  return minor.imsx_codeMinorField[0]?.imsx_codeMinorFieldValue;
}

describe('pagination', () => {
  it('serves 100 rows by default with X-Total-Count and angle-bracket Link', async () => {
    const res = await v11('/students');
    expect(res.status).toBe(200);
    expect(res.headers?.['Content-Type']).toBe('application/json');
    expect(res.headers?.['X-Total-Count']).toBe('1200');
    expect(rows(res, 'users')).toHaveLength(100);
    const link = res.headers?.Link ?? '';
    expect(link).toContain(
      '<http://sandbox.test:8080/v1/ims/oneroster/v1p1/students?offset=100>; rel="next"',
    );
    expect(parseLink(link)).toEqual({
      next: 'http://sandbox.test:8080/v1/ims/oneroster/v1p1/students?offset=100',
      last: 'http://sandbox.test:8080/v1/ims/oneroster/v1p1/students?offset=1100',
      first: 'http://sandbox.test:8080/v1/ims/oneroster/v1p1/students?offset=0',
    });
  });

  it('keeps the rest of the query as sent and adds prev on later pages', async () => {
    const q = `limit=500&filter=${enc("givenName!='Zoë'")}&offset=500`;
    const res = await v11('/students', q);
    const links = parseLink(res.headers?.Link);
    expect(links.prev).toBe(
      `http://sandbox.test:8080/v1/ims/oneroster/v1p1/students?limit=500&filter=${enc("givenName!='Zoë'")}&offset=0`,
    );
    expect(links.next).toContain('offset=1000');
    expect(links.last).toBe(links.next);
  });

  it("writes bare Link values with link: 'bare' and none with link: 'none'", async () => {
    const bare = await client('1.1', { link: 'bare' })('/students', 'limit=10');
    expect(bare.headers?.Link).toMatch(/^http:\/\/\S+offset=10; rel="next", /);
    expect(bare.headers?.Link).not.toContain('<');
    expect(parseLink(bare.headers?.Link).next).toContain('limit=10&offset=10');
    const none = await client('1.1', { link: 'none' })('/students', 'limit=10');
    expect(none.headers?.Link).toBeUndefined();
    expect(none.headers?.['X-Total-Count']).toBe('1200');
  });

  it('clamps limit silently to pageCap; Link advances by the clamped size', async () => {
    const res = await client('1.2', { pageCap: 50 })('/students', 'limit=1000');
    expect(rows(res, 'users')).toHaveLength(50);
    expect(res.headers?.['X-Total-Count']).toBe('1200');
    expect(parseLink(res.headers?.Link).next).toMatch(/\?limit=1000&offset=50$/);
    expect(parseLink(res.headers?.Link).last).toMatch(/offset=1150$/);
  });

  it('rejects a bad limit or offset with 400 and an imsx body', async () => {
    for (const q of [
      'limit=0',
      'limit=abc',
      'limit=-5',
      'limit=1.5',
      'offset=-1',
      'orderBy=up&sort=givenName',
    ]) {
      const res = await v11('/students', q);
      expect(res.status, q).toBe(400);
      expect(res.body.imsx_codeMajor).toBe('failure');
      expect(String(res.body.imsx_description)).toMatch(/limit|offset|orderBy/);
    }
  });

  it('answers past the end with an empty page (or 204 when configured) and can omit X-Total-Count', async () => {
    const res = await v11('/students', 'offset=5000');
    expect(res.status).toBe(200);
    expect(rows(res, 'users')).toEqual([]);
    expect(parseLink(res.headers?.Link).next).toBeUndefined();
    const empty = await client('1.1', { emptyStatus: 204 })('/students', 'offset=5000');
    expect(empty.status).toBe(204);
    expect(empty.body).toBeUndefined();
    const noTotal = await client('1.1', { totalCount: false })('/students');
    expect(noTotal.headers?.['X-Total-Count']).toBeUndefined();
  });

  for (const version of ['1.1', '1.2'] as const) {
    for (const variant of [{}, { pageCap: 50 }, { link: 'bare' as const }, { link: 'none' as const }]) {
      it(`${version} ${JSON.stringify(variant)}: 2345 students page to 2345 distinct sourcedIds`, async () => {
        const get = client(version, { students: 2345, ...variant });
        const seen = new Set<string>();
        let offset = 0;
        let query = 'limit=1000';
        for (let pages = 0; pages < 100; pages++) {
          const res = await get('/students', query);
          const page = rows(res, 'users');
          if (page.length === 0) break;
          for (const u of page) seen.add(String(u.sourcedId));
          const next = parseLink(res.headers?.Link).next;
          offset += page.length;
          query = next ? next.slice(next.indexOf('?') + 1) : `limit=1000&offset=${offset}`;
          if (offset >= Number(res.headers?.['X-Total-Count'])) break;
        }
        expect(seen.size).toBe(2345);
      });
    }
  }
});

describe('filters', () => {
  const count = async (q: string, path = '/students', get = v11) =>
    Number((await get(path, `filter=${enc(q)}`)).headers?.['X-Total-Count']);

  it("finds 'Zoë' sent as UTF-8 percent-encoding", async () => {
    const res = await v11('/students', 'filter=givenName%3D%27Zo%C3%AB%27&limit=1000');
    const hits = rows(res, 'users');
    expect(hits.length).toBeGreaterThanOrEqual(3);
    expect(hits.every((u) => u.givenName === 'Zoë')).toBe(true);
    expect(hits.map((u) => u.sourcedId)).toContain('stu-000001');
    // NFD input is normalised to NFC before comparing.
    expect(await count(`givenName='${'Zoë'.normalize('NFD')}'`)).toBe(hits.length);
  });

  it("finds 'Mary Ann' sent with %20; a '+' stays a literal plus unless plusAsSpace", async () => {
    const n = await count("givenName='Mary Ann'");
    expect(n).toBeGreaterThan(0);
    const plus = await v11('/students', 'filter=givenName%3D%27Mary+Ann%27');
    expect(plus.headers?.['X-Total-Count']).toBe('0');
    const lenient = await client('1.1', { plusAsSpace: true })(
      '/students',
      'filter=givenName%3D%27Mary+Ann%27',
    );
    expect(Number(lenient.headers?.['X-Total-Count'])).toBe(n);
  });

  it('supports each operator', async () => {
    const total = 1200;
    const eq = await count("familyName='García'");
    expect(eq).toBeGreaterThan(0);
    expect(await count("familyName!='García'")).toBe(total - eq);
    const after = await count("dateLastModified>'2025-10-01'");
    const atOrBefore = await count("dateLastModified<='2025-10-01'");
    expect(after + atOrBefore).toBe(total);
    expect(after).toBeGreaterThan(0);
    const before = await count("dateLastModified<'2025-10-01'");
    const atOrAfter = await count("dateLastModified>='2025-10-01'");
    expect(before + atOrAfter).toBe(total);
    const contains = await v11('/students', `filter=${enc("familyName~'GARC'")}&limit=1000`);
    expect(rows(contains, 'users').every((u) => String(u.familyName).toLowerCase().includes('garc'))).toBe(
      true,
    );
    expect(Number(contains.headers?.['X-Total-Count'])).toBeGreaterThanOrEqual(eq);
  });

  it('combines two clauses with AND or OR', async () => {
    const zoe = await count("givenName='Zoë'");
    const jose = await count("givenName='José'");
    expect(await count("givenName='Zoë' OR givenName='José'")).toBe(zoe + jose);
    const both = await v11('/students', `filter=${enc("givenName='Zoë' AND grades='02'")}&limit=1000`);
    expect(
      rows(both, 'users').every((u) => u.givenName === 'Zoë' && (u.grades as string[]).includes('02')),
    ).toBe(true);
    expect(Number(both.headers?.['X-Total-Count'])).toBeLessThanOrEqual(zoe);
  });

  it("handles an apostrophe inside the value (familyName='O'Brien')", async () => {
    const res = await v11('/students', `filter=${enc("familyName='O'Brien' AND givenName='Mary Ann'")}`);
    expect(res.status).toBe(200);
    expect(rows(res, 'users').map((u) => u.sourcedId)).toContain('stu-000003');
  });

  it('filters nested fields with dot notation and GUIDRefs by sourcedId', async () => {
    const inSchool = await count("orgs.sourcedId='org-sch-1'");
    const nested = await v11('/schools/org-sch-1/students');
    expect(inSchool).toBe(Number(nested.headers?.['X-Total-Count']));
    expect(await count("orgs='org-sch-1'")).toBe(inSchool);
    expect(await count("role='student'", '/users')).toBe(1200);
    expect(await count("primaryOrg.sourcedId='org-sch-1'", '/students', v12)).toBe(inSchool);
  });

  it("matches 1.1 enabledUser='true' whether the record has a boolean or a string", async () => {
    const res = await v11('/students', `filter=${enc("enabledUser='true'")}&limit=1000`);
    const kinds = new Set(rows(res, 'users').map((u) => typeof u.enabledUser));
    expect(kinds).toEqual(new Set(['boolean', 'string']));
  });

  it('answers 400 invalid_filter_field for a field the records do not have', async () => {
    const res = await v11('/students', `filter=${enc("shoeSize='9'")}`);
    expect(res.status).toBe(400);
    expect(imsxMinor(res.body)).toBe('invalid_filter_field');
    expect(res.body.imsx_description).toContain('shoeSize');
    // 1.2 users have roles, not role.
    const v12role = await v12('/students', `filter=${enc("role='student'")}`);
    expect(imsxMinor(v12role.body)).toBe('invalid_filter_field');
  });

  it('answers 400 with a description of what is wrong for a malformed filter', async () => {
    const cases: [string, RegExp][] = [
      ['givenName=Zoë', /single quotes/],
      ["givenName=='Zoë'", /single quotes/],
      ["givenName^'Zoë'", /expected one of/],
      ["'Zoë'", /field name/],
      ["givenName='Zoë", /unterminated/],
      ["givenName='a' AND familyName='b' OR grades='03'", /at most one AND or OR/],
      ["givenName='a' AND ", /field name/],
    ];
    for (const [filter, why] of cases) {
      const res = await v11('/students', `filter=${enc(filter)}`);
      expect(res.status, filter).toBe(400);
      expect(String(res.body.imsx_description), filter).toMatch(why);
      expect(String(res.body.imsx_description)).toMatch(/^Malformed filter/);
    }
    const badEncoding = await v11('/students', 'filter=givenName%3D%27%E0%27');
    expect(badEncoding.status).toBe(400);
  });
});

describe('sort and fields', () => {
  it('sorts by a field ascending or descending', async () => {
    const asc = rows(await v11('/students', 'sort=familyName&limit=1000'), 'users').map((u) =>
      String(u.familyName),
    );
    expect(asc).toEqual([...asc].sort());
    const desc = rows(await v11('/students', 'sort=familyName&orderBy=desc&limit=1000'), 'users').map((u) =>
      String(u.familyName),
    );
    expect(desc).toEqual([...desc].sort().reverse());
    const sorted = await v11('/students', `sort=dateLastModified&filter=${enc("givenName='Zoë'")}`);
    const dates = rows(sorted, 'users').map((u) => String(u.dateLastModified));
    expect(dates).toEqual([...dates].sort());
  });

  it('sorts by sourcedId on an unknown sort field (1.1 adds a warning)', async () => {
    const res = await v11('/users', 'sort=shoeSize&limit=5');
    expect(res.status).toBe(200);
    expect(rows(res, 'users')[0]?.sourcedId).toBe('adm-001');
    expect(JSON.stringify(res.body.statusInfoSet)).toContain('invalid_sort_field');
  });

  it('selects fields; unknown fields: 1.1 returns whole records with a warning, 1.2 answers 400', async () => {
    const res = await v11('/students', 'fields=sourcedId,givenName&limit=3');
    expect(rows(res, 'users').map((u) => Object.keys(u))).toEqual([
      ['sourcedId', 'givenName'],
      ['sourcedId', 'givenName'],
      ['sourcedId', 'givenName'],
    ]);
    const unknown11 = await v11('/students', 'fields=sourcedId,shoeSize&limit=1');
    expect(rows(unknown11, 'users')[0]).toHaveProperty('familyName');
    expect(JSON.stringify(unknown11.body.statusInfoSet)).toContain('invalid_selection_field');
    const unknown12 = await v12('/students', 'fields=sourcedId,shoeSize');
    expect(unknown12.status).toBe(400);
    expect(imsxMinor(unknown12.body)).toBe('invalid_selection_field');
    expect(unknown12.body.imsx_description).toContain('shoeSize');
    const single = await v12('/students/stu-000001', 'fields=givenName');
    expect(single.body).toEqual({ user: { givenName: 'Zoë' } });
  });
});

describe('single and nested reads', () => {
  it('reads one record of each collection under its wrapper', async () => {
    const cases: [string, string, string][] = [
      ['/students/stu-000001', 'user', 'stu-000001'],
      ['/teachers/tch-00001', 'user', 'tch-00001'],
      ['/users/adm-001', 'user', 'adm-001'],
      ['/orgs/org-district', 'org', 'org-district'],
      ['/schools/org-sch-5', 'org', 'org-sch-5'],
      [`/academicSessions/${SY.year}`, 'academicSession', SY.year],
      [`/terms/${SY.year}-t2`, 'academicSession', `${SY.year}-t2`],
      [`/gradingPeriods/${SY.year}-gp3`, 'academicSession', `${SY.year}-gp3`],
      ['/courses/crs-1-KG-MATH', 'course', 'crs-1-KG-MATH'],
      ['/classes/cls-1-KG-MATH-01', 'class', 'cls-1-KG-MATH-01'],
      ['/enrollments/enr-stu-000001-MATH', 'enrollment', 'enr-stu-000001-MATH'],
      ['/enrollments/enr-cls-1-KG-MATH-01-tch', 'enrollment', 'enr-cls-1-KG-MATH-01-tch'],
      ['/demographics/stu-000001', 'demographics', 'stu-000001'],
      ['/students/stu%2D000001', 'user', 'stu-000001'],
    ];
    for (const [path, wrapper, id] of cases) {
      for (const get of [v11, v12]) {
        const res = await get(path);
        expect(res.status, path).toBe(200);
        expect(Object.keys(res.body), path).toEqual([wrapper]);
        expect((res.body[wrapper] as Record<string, unknown>).sourcedId, path).toBe(id);
      }
    }
  });

  it('answers 404 naming the id for unknown or wrongly typed records', async () => {
    for (const [path, id] of [
      ['/students/stu-999999', 'stu-999999'],
      ['/students/tch-00001', 'tch-00001'],
      ['/schools/org-district', 'org-district'],
      [`/terms/${SY.year}`, SY.year],
      ['/classes/nope', 'nope'],
      ['/schools/org-sch-9/students', 'org-sch-9'],
      ['/classes/nope/students', 'nope'],
    ]) {
      const res = await v12(path!);
      expect(res.status, path).toBe(404);
      expect(imsxMinor(res.body)).toBe('unknownobject');
      expect(res.body.imsx_description, path).toContain(id);
    }
    const unknown = await v11('/lineItems');
    expect(unknown.status).toBe(404);
  });

  it('serves the nested reads consistently with the collections', async () => {
    const school = rows(await v11('/schools/org-sch-1/students', 'limit=1000'), 'users');
    expect(school.length).toBeGreaterThan(0);
    expect(school.every((u) => (u.orgs as { sourcedId: string }[])[0]?.sourcedId === 'org-sch-1')).toBe(true);
    let sum = 0;
    for (const s of [1, 2, 3, 4, 5])
      sum += Number((await v11(`/schools/org-sch-${s}/students`)).headers?.['X-Total-Count']);
    expect(sum).toBe(1200);

    const classes = rows(await v11('/students/stu-000001/classes'), 'classes');
    expect(classes).toHaveLength(6);
    const cls = String(classes[0]?.sourcedId);
    const members = rows(await v11(`/classes/${cls}/students`, 'limit=1000'), 'users').map(
      (u) => u.sourcedId,
    );
    expect(members).toContain('stu-000001');
    const enrolled = await v11(
      '/enrollments',
      `filter=${enc(`class.sourcedId='${cls}' AND role='student'`)}&limit=1000`,
    );
    expect(rows(enrolled, 'enrollments').map((e) => (e.user as { sourcedId: string }).sourcedId)).toEqual(
      members,
    );

    const teachers = rows(await v12(`/classes/${cls}/teachers`), 'users');
    expect(teachers).toHaveLength(1);
    const tid = String(teachers[0]?.sourcedId);
    expect(rows(await v12(`/teachers/${tid}/classes`), 'classes').map((c) => c.sourcedId)).toContain(cls);
    expect(rows(await v12(`/users/${tid}/classes`), 'classes').map((c) => c.sourcedId)).toContain(cls);

    const course = (classes[0]!.course as { sourcedId: string }).sourcedId;
    expect(rows(await v11(`/courses/${course}/classes`), 'classes').map((c) => c.sourcedId)).toContain(cls);
    expect(rows(await v11('/schools/org-sch-1/courses', 'limit=1000'), 'courses').length).toBe(36);
    expect(rows(await v11('/schools/org-sch-1/terms'), 'academicSessions')).toHaveLength(2);
    expect(rows(await v11(`/terms/${SY.year}-t1/gradingPeriods`), 'academicSessions')).toHaveLength(2);
    const t1 = Number((await v11(`/terms/${SY.year}-t1/classes`)).headers?.['X-Total-Count']);
    const all = Number((await v11('/classes')).headers?.['X-Total-Count']);
    expect(t1).toBeGreaterThan(all / 2);
    expect(t1).toBeLessThan(all);
    const schoolEnrollments = await v11(
      '/schools/org-sch-1/enrollments',
      `filter=${enc("school.sourcedId!='org-sch-1'")}`,
    );
    expect(schoolEnrollments.headers?.['X-Total-Count']).toBe('0');
    const inSchoolClass = await v11(`/schools/org-sch-1/classes/${cls}/enrollments`);
    expect(Number(inSchoolClass.headers?.['X-Total-Count'])).toBe(members.length + 1);
  });

  it('has the collection counts and wrappers of the seeded district', async () => {
    const total = async (path: string, key: string) => {
      const res = await v11(path);
      expect(Object.keys(res.body)).toEqual([key]);
      return Number(res.headers?.['X-Total-Count']);
    };
    expect(await total('/orgs', 'orgs')).toBe(8);
    expect(await total('/schools', 'orgs')).toBe(7);
    expect(await total('/academicSessions', 'academicSessions')).toBe(7);
    expect(await total('/terms', 'academicSessions')).toBe(2);
    expect(await total('/gradingPeriods', 'academicSessions')).toBe(4);
    expect(await total('/courses', 'courses')).toBe(13 * 6 + 2 * 6 * 6);
    expect(await total('/demographics', 'demographics')).toBe(1200);
    const teachers = await total('/teachers', 'users');
    const classes = await total('/classes', 'classes');
    // Users are the students, teachers, three administrators and the families (parents, guardians, relatives).
    const family = async (role: string) =>
      Number((await v11('/users', `filter=${enc(`role='${role}'`)}&limit=1`)).headers?.['X-Total-Count']);
    const guardians = (await family('parent')) + (await family('guardian')) + (await family('relative'));
    expect(guardians).toBeGreaterThan(1200 * 1.5);
    expect(await total('/users', 'users')).toBe(1200 + teachers + 3 + guardians);
    expect(await total('/enrollments', 'enrollments')).toBe(1200 * 6 + classes);
  });
});

describe('route boundaries and tokens', () => {
  const route = createOneRosterRoute({ students: 50 });

  it('declines paths outside the OneRoster prefixes and the token endpoints', async () => {
    expect(await route(request('/attendance/status'), caller11)).toBeUndefined();
    expect(await route(request('/ims/oneroster/v1p1/token', '', 'POST'), caller11)).toBeUndefined();
    expect(await route(request('/ims/oneroster/v1p3/students'), caller11)).toBeUndefined();
  });

  it('answers 401 with WWW-Authenticate when the token came from another endpoint', async () => {
    for (const [path, who] of [
      ['/ims/oneroster/v1p2/students', caller11],
      ['/ims/oneroster/v1p1/students', caller12],
      ['/ims/oneroster/v1p1/students', { ...caller11, tokenEndpoint: '/oauth/token' }],
    ] as const) {
      const res = await route(request(path), who);
      expect(res?.status).toBe(401);
      expect(res?.headers?.['WWW-Authenticate']).toMatch(/^Bearer error="invalid_token"/);
      expect((res!.body as Record<string, unknown>).imsx_codeMajor).toBe('failure');
    }
    const lenient = createOneRosterRoute({ students: 50, strictTokenEndpoint: false });
    expect((await lenient(request('/ims/oneroster/v1p2/students'), caller11))?.status).toBe(200);
  });

  it('answers 405 to other methods and serves HEAD without a body', async () => {
    const post = await route(request('/ims/oneroster/v1p1/students', '', 'POST'), caller11);
    expect(post?.status).toBe(405);
    const head = await route(request('/ims/oneroster/v1p1/students', '', 'HEAD'), caller11);
    expect(head?.status).toBe(200);
    expect(head?.body).toBeUndefined();
    expect(head?.headers?.['X-Total-Count']).toBe('50');
  });

  it('uses baseUrl for Link and href when given', async () => {
    const r = createOneRosterRoute({ students: 50, baseUrl: 'https://api.example/v1/' });
    const res = await r(request('/ims/oneroster/v1p1/students', 'limit=10'), caller11);
    expect(res?.headers?.Link).toContain(
      '<https://api.example/v1/ims/oneroster/v1p1/students?limit=10&offset=10>',
    );
    const first = (res!.body as { users: { orgs: { href: string }[] }[] }).users[0];
    expect(first?.orgs[0]?.href).toMatch(
      /^https:\/\/api\.example\/v1\/ims\/oneroster\/v1p1\/orgs\/org-sch-\d$/,
    );
  });
});

describe('seeded data', () => {
  it('is deterministic per seed', async () => {
    const a = await client('1.2', { seed: 7 })('/users', 'limit=300');
    const b = await client('1.2', { seed: 7 })('/users', 'limit=300');
    const c = await client('1.2', { seed: 8 })('/users', 'limit=300');
    expect(a.body).toEqual(b.body);
    expect(JSON.stringify(a.body)).not.toEqual(JSON.stringify(c.body));
  });

  it('has non-ASCII names and names with spaces, and the fixed first students', async () => {
    const first = rows(await v11('/students', 'limit=5'), 'users').map(
      (u) => `${u.givenName} ${u.familyName}`,
    );
    expect(first).toEqual([
      'Zoë Åkesson',
      'José García',
      "Mary Ann O'Brien",
      'Zoë Nguyễn',
      'Anne Marie van der Berg',
    ]);
    const names = rows(await v11('/students', 'limit=1200'), 'users').map((u) => String(u.givenName));
    expect(names.filter((n) => n === 'Zoë').length).toBeGreaterThanOrEqual(3);
    expect(names.filter((n) => n === 'José').length).toBeGreaterThanOrEqual(3);
    expect(names.some((n) => n.includes(' '))).toBe(true);
  });

  it('varies the 1.1 and 1.2 user shapes as the standard does', async () => {
    const u11 = rows(await v11('/users', 'limit=2000'), 'users');
    const u12 = rows(await v12('/users', 'limit=2000'), 'users');
    expect(u11.every((u) => Array.isArray(u.orgs) && typeof u.role === 'string' && !('roles' in u))).toBe(
      true,
    );
    expect(u12.every((u) => Array.isArray(u.roles) && 'primaryOrg' in u && !('role' in u))).toBe(true);
    expect(new Set(u12.map((u) => u.enabledUser))).toEqual(new Set(['true', 'false']));
    expect(u11.some((u) => !('email' in u))).toBe(true);
    expect(u11.some((u) => (u.orgs as unknown[]).length > 1)).toBe(true);
    expect(u12.some((u) => (u.roles as { roleType: string }[]).some((r) => r.roleType === 'secondary'))).toBe(
      true,
    );
    expect(JSON.stringify(u11)).toContain('null');
    const withNulls = rows(await client('1.1', { nulls: true })('/students', 'limit=50'), 'users');
    expect(withNulls.some((u) => u.middleName === null)).toBe(true);
  });

  // How fast it serves them is a benchmark's figure: `npm run bench -- export` reads these 200,000 students
  // in pages of 1,000 from the sandbox and prints records per second.
  it('scales to 200,000 students and serves their last page of 1,000', async () => {
    const get = client('1.1', { students: 200_000 });
    const first = await get('/students', 'limit=1000');
    expect(first.headers?.['X-Total-Count']).toBe('200000');
    const last = await get('/students', 'limit=1000&offset=199000');
    expect(rows(last, 'users')).toHaveLength(1000);
    expect(rows(last, 'users').at(-1)?.sourcedId).toBe('stu-200000');
  }, 20_000);
});

describe('the wrappers quirk: answers named after the path', () => {
  const w11 = client('1.1', {}, { pathWrappers: true });
  const w12 = client('1.2', {}, { pathWrappers: true });

  it('serves every list, whole or nested, under its last path segment, with the same records', async () => {
    const cases: [string, string, string][] = [
      ['/students', 'students', 'users'],
      ['/teachers', 'teachers', 'users'],
      ['/users', 'users', 'users'],
      ['/schools', 'schools', 'orgs'],
      ['/orgs', 'orgs', 'orgs'],
      ['/academicSessions', 'academicSessions', 'academicSessions'],
      ['/terms', 'terms', 'academicSessions'],
      ['/gradingPeriods', 'gradingPeriods', 'academicSessions'],
      ['/classes', 'classes', 'classes'],
      ['/courses', 'courses', 'courses'],
      ['/enrollments', 'enrollments', 'enrollments'],
      ['/demographics', 'demographics', 'demographics'],
      ['/schools/org-sch-1/students', 'students', 'users'],
      ['/schools/org-sch-1/terms', 'terms', 'academicSessions'],
      [`/terms/${SY.year}-t1/gradingPeriods`, 'gradingPeriods', 'academicSessions'],
      ['/classes/cls-1-KG-MATH-01/teachers', 'teachers', 'users'],
      ['/schools/org-sch-1/classes/cls-1-KG-MATH-01/enrollments', 'enrollments', 'enrollments'],
    ];
    for (const [path, named, standard] of cases) {
      for (const [quirky, plain] of [
        [w11, v11],
        [w12, v12],
      ] as const) {
        const res = await quirky(path, 'limit=3');
        expect(Object.keys(res.body), path).toEqual([named]);
        expect(res.headers?.['X-Total-Count'], path).toBe(
          (await plain(path, 'limit=3')).headers?.['X-Total-Count'],
        );
        expect(rows(res, named), path).toEqual(rows(await plain(path, 'limit=3'), standard));
      }
    }
  });

  it('serves single reads under the singular of their collection', async () => {
    const cases: [string, string][] = [
      ['/students/stu-000001', 'student'],
      ['/teachers/tch-00001', 'teacher'],
      ['/users/adm-001', 'user'],
      ['/schools/org-sch-5', 'school'],
      ['/orgs/org-district', 'org'],
      [`/academicSessions/${SY.year}`, 'academicSession'],
      [`/terms/${SY.year}-t2`, 'term'],
      [`/gradingPeriods/${SY.year}-gp3`, 'gradingPeriod'],
      ['/classes/cls-1-KG-MATH-01', 'class'],
      ['/courses/crs-1-KG-MATH', 'course'],
      ['/enrollments/enr-stu-000001-MATH', 'enrollment'],
      ['/demographics/stu-000001', 'demographic'],
    ];
    for (const [path, named] of cases) {
      for (const get of [w11, w12]) {
        const res = await get(path);
        expect(res.status, path).toBe(200);
        expect(Object.keys(res.body), path).toEqual([named]);
        expect((res.body[named] as Record<string, unknown>).sourcedId, path).toBe(path.split('/')[2]);
      }
    }
  });

  it('keeps 1.1 warnings beside the list, and errors in their own shape', async () => {
    const res = await w11('/students', 'limit=1&sort=shoeSize');
    expect(Object.keys(res.body)).toEqual(['students', 'statusInfoSet']);
    const missing = await w11('/students/stu-999999');
    expect(missing.status).toBe(404);
    expect(missing.body.imsx_codeMajor).toBe('failure');
  });
});
