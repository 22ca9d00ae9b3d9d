// A server that names its OneRoster answers after the path ({"students": […]}, {"student": {…}}), as an
// open-source OneRoster 1.1 server does: each reader (the collection commands, invite plan, school names,
// export, changes, doctor) run in this process (main() on a fake Context) against the sandbox's wrappers quirk
// over loopback, what it printed checked against the standard-shaped sandbox's own answers, and what reached
// the server counted. test/sandbox/quirks.test.ts runs `roster sandbox --quirks wrappers` in a process.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { tempDir } from '../helpers/context.js';
import { actualPlan, expectedPlan, fetchUsers } from '../helpers/families.js';
import { rosterInProcess } from '../helpers/main.js';
import { demoClient, demoEnv, sandboxSchoolYear } from '../helpers/sandbox.js';
import { type ScriptedServer, startScriptedServer } from '../helpers/scripted-server.js';
import { client, type Get } from '../sandbox/oneroster-helpers.js';

/** The school year the sandbox serves today (its sessions' ids). */
const SY = sandboxSchoolYear();

/** A doctor check that did not pass, the audit aside where it is left out (--skip audit). */
const notPassed = (c: { id: string; status: string }) =>
  c.status !== 'pass' && !(c.id === 'audit' && c.status === 'skip');

const STUDENTS = 300;
const VERSIONS = ['1.1', '1.2'] as const;
type Version = (typeof VERSIONS)[number];
const PREFIX: Record<Version, string> = { '1.1': '/v1/ims/oneroster/v1p1', '1.2': '/v1/ims/oneroster/v1p2' };

/** Command, path, the standard's list and record keys, and a sourcedId to read. */
const COMMANDS: [string, string, string, string, string][] = [
  ['students', 'students', 'users', 'user', 'stu-000001'],
  ['teachers', 'teachers', 'users', 'user', 'tch-00001'],
  ['users', 'users', 'users', 'user', 'adm-001'],
  ['schools', 'schools', 'orgs', 'org', 'org-sch-5'],
  ['orgs', 'orgs', 'orgs', 'org', 'org-district'],
  ['classes', 'classes', 'classes', 'class', 'cls-1-KG-MATH-01'],
  ['courses', 'courses', 'courses', 'course', 'crs-1-KG-MATH'],
  ['enrollments', 'enrollments', 'enrollments', 'enrollment', 'enr-stu-000001-MATH'],
  ['academic-sessions', 'academicSessions', 'academicSessions', 'academicSession', SY.year],
  ['terms', 'terms', 'academicSessions', 'academicSession', `${SY.year}-t2`],
  ['grading-periods', 'gradingPeriods', 'academicSessions', 'academicSession', `${SY.year}-gp3`],
  ['demographics', 'demographics', 'demographics', 'demographics', 'stu-000001'],
];

let quirky: Sandbox;
let plain: Sandbox;
let home: string;
/** The standard-shaped answers, from the sandbox's route in this process (hrefs on sandbox.test:8080). */
const standard: Record<Version, Get> = {
  '1.1': client('1.1', { students: STUDENTS }),
  '1.2': client('1.2', { students: STUDENTS }),
};

beforeAll(async () => {
  quirky = await startSandbox({ oneroster: { students: STUDENTS }, quirks: { pathWrappers: true } });
  plain = await startSandbox({ oneroster: { students: STUDENTS } });
});
afterAll(() => Promise.all([quirky.close(), plain.close()]));
beforeEach(() => {
  home = tempDir();
  quirky.requests.length = 0;
  plain.requests.length = 0;
});

const roster = (args: string[], sandbox = quirky) => rosterInProcess(args, { home, env: demoEnv(sandbox) });
/** The CLI's JSON with the sandbox's address as the in-process route writes it. */
const asStandard = (stdout: string) =>
  JSON.parse(stdout.replaceAll(quirky.baseUrl, 'http://sandbox.test:8080/v1')) as unknown;
const gets = (sandbox: Sandbox, path: string) =>
  sandbox.requests.filter((r) => r.method === 'GET' && r.path === path).map((r) => r.rawQuery);

describe.each(VERSIONS)('every collection command on OneRoster %s', (version) => {
  it.each(COMMANDS)(
    '%s: a list and a record by sourcedId, one GET each',
    async (name, path, many, one, id) => {
      const list = await roster(['--oneroster', version, 'roster', name, '--limit', '2', '--json']);
      expect(list.stderr).toBe('');
      expect(list.code).toBe(0);
      const expected = (await standard[version](`/${path}`, 'limit=2')).body[many] as unknown[];
      expect(expected).toHaveLength(2);
      expect(asStandard(list.stdout)).toEqual(expected);
      expect(gets(quirky, `${PREFIX[version]}/${path}`)).toEqual(['limit=2']);

      const single = await roster(['--oneroster', version, 'roster', name, id, '--json']);
      expect(single.stderr).toBe('');
      expect(single.code).toBe(0);
      expect(asStandard(single.stdout)).toEqual((await standard[version](`/${path}/${id}`)).body[one]);
      expect(gets(quirky, `${PREFIX[version]}/${path}/${id}`)).toEqual(['']);
    },
  );

  it('nested reads with --all --ndjson, pages in parallel: every record once, as the standard serves them', async () => {
    const cases: [string[], string, string][] = [
      [['students', '--school', 'org-sch-1'], 'schools/org-sch-1/students', 'users'],
      [
        ['grading-periods', '--term', `${SY.year}-t1`],
        `terms/${SY.year}-t1/gradingPeriods`,
        'academicSessions',
      ],
      [['terms', '--school', 'org-sch-2'], 'schools/org-sch-2/terms', 'academicSessions'],
    ];
    for (const [args, path, many] of cases) {
      const result = await roster([
        '--oneroster',
        version,
        'roster',
        ...args,
        '--all',
        '--page-size',
        '2',
        '--ndjson',
      ]);
      expect(result.stderr, path).toBe('');
      expect(result.code, path).toBe(0);
      const lines = result.stdout.trimEnd().split('\n').map(asStandard);
      const expected = (await standard[version](`/${path}`, 'limit=1000')).body[many] as unknown[];
      expect(lines, path).toEqual(expected);
      expect(gets(quirky, `${PREFIX[version]}/${path}`), path).toHaveLength(Math.ceil(expected.length / 2));
    }
  });
});

describe('--debug', () => {
  it('says which key the records were under: named after the path, or the standard one', async () => {
    const quirk = await roster(['--debug', 'roster', 'terms', '--limit', '1', '--json']);
    expect(quirk.code).toBe(0);
    expect(quirk.stderr).toContain(
      `[debug] terms: the records are under "terms", named after the path (the standard's key is "academicSessions")\n`,
    );
    const one = await roster(['--debug', 'roster', 'students', 'stu-000001', '--json']);
    expect(one.stderr).toContain(
      `[debug] student: the record is under "student", named after the path (the standard's key is "user")\n`,
    );
    const standardKey = await roster(['--debug', 'roster', 'terms', '--limit', '1', '--json'], plain);
    expect(standardKey.stderr).toContain('[debug] terms: the records are under "academicSessions"\n');
    expect(standardKey.stderr).not.toContain('named after the path');
  });
});

describe('invite plan and school names', () => {
  it.each(VERSIONS)(
    'OneRoster %s: a school named by name resolves, and the plan equals the one computed from the data',
    async (version) => {
      const result = await roster([
        'invite',
        'plan',
        '--oneroster',
        version,
        '--school',
        'Alder Elementary School',
        '--json',
      ]);
      expect(result.code).toBe(0);
      const users = await fetchUsers(
        quirky.baseUrl,
        'demo-allowed',
        demoClient(quirky).clientSecret,
        version,
      );
      const expected = expectedPlan(users, version, {
        schools: ['org-sch-1'],
        today: new Date().toISOString().slice(0, 10),
      });
      expect(expected.invitations.length).toBeGreaterThan(0);
      expect(actualPlan(JSON.parse(result.stdout))).toEqual(expected);
      // One read of the schools (its answer under "schools"), the school's students ("students"), the users.
      expect(gets(quirky, `${PREFIX[version]}/schools`)).toEqual(['limit=1000']);
      expect(gets(quirky, `${PREFIX[version]}/schools/org-sch-1/students`)).toHaveLength(1);
      expect(gets(quirky, `${PREFIX[version]}/users`).length).toBeGreaterThan(0);
      expect(quirky.requests.filter((r) => r.method !== 'GET' && !r.path.endsWith('/token'))).toEqual([]);
    },
    60_000,
  );

  it('invite send --school-id NAME reaches the server as the sourcedId, one read of the schools', async () => {
    const result = await roster([
      'invite',
      'send',
      '--email',
      'wrappers@example.org',
      '--school-id',
      'birch elementary school',
      '--sent-by-user-id',
      'usr-42',
    ]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(
      '--school-id "birch elementary school" is Birch Elementary School: sourcedId org-sch-2.\n',
    );
    const posts = quirky.requests.filter(
      (r) => r.method === 'POST' && r.path === '/v1/enrollment/invitations',
    );
    expect(posts.map((r) => JSON.parse(r.body).schoolId)).toEqual(['org-sch-2']);
    expect(gets(quirky, `${PREFIX['1.1']}/schools`)).toHaveLength(1);
  });
});

describe('export and changes', () => {
  it.each(VERSIONS)(
    'OneRoster %s: export writes the same files as from a standard server',
    async (version) => {
      const dirs = { quirky: join(home, 'quirky'), plain: join(home, 'plain') };
      for (const [which, sandbox] of [
        ['quirky', quirky],
        ['plain', plain],
      ] as const) {
        const result = await roster(
          ['roster', 'export', '--oneroster', version, '--out', dirs[which]],
          sandbox,
        );
        expect(result.code, which).toBe(0);
      }
      const files = readdirSync(dirs.quirky).filter((f) => f.endsWith('.csv') && f !== 'manifest.csv');
      expect(files.length).toBeGreaterThanOrEqual(7);
      for (const file of files) {
        expect(readFileSync(join(dirs.quirky, file), 'utf8'), file).toBe(
          readFileSync(join(dirs.plain, file), 'utf8'),
        );
      }
      expect(gets(quirky, `${PREFIX[version]}/users`).length).toBe(
        gets(plain, `${PREFIX[version]}/users`).length,
      );
    },
    60_000,
  );

  it('changes students --since: the changed students, read from the list named "students"', async () => {
    // Its own sandbox: the churn changes the district the other tests compare with the standard one.
    const churned = await startSandbox({ oneroster: { students: 60 }, quirks: { pathWrappers: true } });
    const since = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000).toISOString();
    const churn = churned.churn(30);
    const result = await roster(
      ['roster', 'changes', 'students', '--since', since, '--ndjson'],
      churned,
    ).finally(() => churned.close());
    expect(result.stderr).not.toMatch(/Error/);
    expect(result.code).toBe(0);
    const got = result.stdout
      .trimEnd()
      .split('\n')
      .filter(Boolean)
      .map((line) => (JSON.parse(line) as { record: { sourcedId: string } }).record.sourcedId);
    const students = new Set(
      churn.filter((c) => c.collection === 'users' && c.sourcedId.startsWith('stu-')).map((c) => c.sourcedId),
    );
    expect(students.size).toBeGreaterThan(0);
    expect(got.sort()).toEqual([...students].sort());
    expect(gets(churned, `${PREFIX['1.1']}/students`)).toHaveLength(1);
  });
});

describe('doctor', () => {
  it('passes with the commands: every check and `roster roster students` read the same answer', async () => {
    const doctor = await roster(['doctor', '--json']);
    expect(doctor.code).toBe(0);
    const checks = JSON.parse(doctor.stdout).checks as { id: string; status: string; message: string }[];
    expect(checks.filter(notPassed)).toEqual([]);
    expect(checks.find((c) => c.id === 'oneroster-1.1')?.message).toMatch(
      new RegExp(`^HTTP 200, 1 student read \\(X-Total-Count ${STUDENTS}\\)`),
    );
    for (const version of VERSIONS) {
      expect(gets(quirky, `${PREFIX[version]}/students`)).toEqual(['limit=1']);
      expect((await roster(['--oneroster', version, 'roster', 'students', '--limit', '1'])).code).toBe(0);
    }
  });
});

describe('a server whose answers roster cannot read (a scripted server on 127.0.0.1)', () => {
  let server: ScriptedServer;
  /** What the server answers to GET …/students (both versions) and to GET …/students/s-1. */
  let list: object = {};
  let record: object = {};
  beforeAll(async () => {
    server = await startScriptedServer((request) => {
      const headers = { date: new Date().toUTCString() };
      if (request.path.endsWith('/token'))
        return { headers, body: { access_token: 'tok-1', token_type: 'bearer', expires_in: 3600 } };
      if (request.path === '/v1/attendance/status')
        return { headers, body: { success: true, clientLabel: 'Scripted' } };
      if (request.path === '/v1/enrollment/invitations')
        return { headers, body: { data: [], meta: { total: 0 } } };
      if (request.path.endsWith('/schools')) {
        const first = Number(request.query.get('offset') ?? 0) === 0;
        return {
          headers,
          body: { orgs: first ? [{ sourcedId: 'sch-1', name: 'One', status: 'active' }] : [] },
        };
      }
      if (request.path.endsWith('/students')) return { headers, body: list };
      if (request.path.endsWith('/students/s-1')) return { headers, body: record };
      return { status: 404, headers, body: { imsx_codeMajor: 'failure', imsx_description: 'no such path' } };
    });
  });
  afterAll(() => server.close());
  beforeEach(() => {
    server.requests.length = 0;
  });

  const env = () => ({
    ROSTER_BASE_URL: server.baseUrl,
    ROSTER_CLIENT_ID: 'c',
    ROSTER_CLIENT_SECRET: 'secret-1',
  });
  const run = (args: string[]) => rosterInProcess(args, { home, env: env() });
  const hint = (refusal: string) =>
    refusal.includes('with both')
      ? 'Report it to the vendor: the OneRoster standard puts the list under "users".'
      : 'Check the OneRoster version (--oneroster) and the path prefix of the profile.';
  const studentReads = () => server.requests.filter((r) => r.path.endsWith('/students'));

  const LISTS: [string, object, string | undefined][] = [
    ['named after the path', { students: [{ sourcedId: 's-1' }] }, undefined],
    ['the standard key', { users: [{ sourcedId: 's-1' }] }, undefined],
    [
      'both keys',
      { users: [{ sourcedId: 's-1' }], students: [{ sourcedId: 's-2' }] },
      'Reading students: the server answered HTTP 200 with both a "users" and a "students" list: roster cannot tell which one is the answer',
    ],
    [
      'no list',
      { orgs: [] },
      'Reading students: the server answered HTTP 200 without a "users" or "students" list (keys: orgs)',
    ],
    [
      'an object where the list should be',
      { students: { sourcedId: 's-1' } },
      'Reading students: the server answered HTTP 200 without a "users" or "students" list (keys: students)',
    ],
  ];

  it.each(LISTS)(
    'a list %s: doctor fails exactly where roster roster students fails',
    async (_, body, refusal) => {
      list = body;
      // The audit left out: this server serves students and schools, not a district to audit.
      const doctor = await run(['doctor', '--json', '--skip', 'audit']);
      const checks = JSON.parse(doctor.stdout).checks as { id: string; status: string; message: string }[];
      const failed = checks.filter(notPassed);
      expect(studentReads().map((r) => r.query.toString())).toEqual(['limit=1', 'limit=1']);
      for (const version of VERSIONS) {
        server.requests.length = 0;
        const command = await run(['--oneroster', version, 'roster', 'students', '--limit', '1', '--json']);
        expect(studentReads()).toHaveLength(1);
        const check = checks.find((c) => c.id === `oneroster-${version}`);
        if (refusal === undefined) {
          expect(command.code, version).toBe(0);
          expect(JSON.parse(command.stdout)).toEqual([{ sourcedId: 's-1' }]);
          expect(check).toMatchObject({ status: 'pass', message: 'HTTP 200, 1 student read' });
        } else {
          expect(command.code, version).toBe(1);
          expect(command.stdout).toBe('');
          expect(command.stderr).toBe(`Error: ${refusal}. ${hint(refusal)}\n`);
          expect(check).toMatchObject({ status: 'fail', message: refusal });
        }
      }
      expect(failed.map((c) => c.id)).toEqual(
        refusal === undefined ? [] : ['oneroster-1.1', 'oneroster-1.2'],
      );
      expect(doctor.code).toBe(refusal === undefined ? 0 : 1);
    },
  );

  it('a single read under both keys, or neither, is refused; under either one it is read', async () => {
    const read = () => run(['roster', 'students', 's-1', '--json']);
    for (const body of [{ student: { sourcedId: 's-1' } }, { user: { sourcedId: 's-1' } }]) {
      record = body;
      const result = await read();
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual({ sourcedId: 's-1' });
    }
    record = { user: { sourcedId: 's-1' }, student: { sourcedId: 's-2' } };
    const both = await read();
    expect(both.code).toBe(1);
    expect(both.stdout).toBe('');
    expect(both.stderr).toBe(
      'Error: Reading student "s-1": the server answered HTTP 200 with both a "user" and a "student" record: roster cannot tell which one is the answer. Report it to the vendor: the OneRoster standard puts the record under "user".\n',
    );
    record = { students: [{ sourcedId: 's-1' }] };
    const neither = await read();
    expect(neither.code).toBe(1);
    expect(neither.stderr).toBe(
      'Error: Reading student "s-1": the server answered HTTP 200 without a "user" or "student" record (keys: students). Check the OneRoster version (--oneroster) and the path prefix of the profile.\n',
    );
    expect(server.requests.filter((r) => r.path.endsWith('/students/s-1'))).toHaveLength(4);
  });

  it('invite plan stops at an ambiguous list: exit 1, nothing planned, nothing sent', async () => {
    list = { users: [{ sourcedId: 's-1' }], students: [] };
    // A school's students: --all-schools reads only the district's users (GET …/users), whose list is
    // under "users" whatever else the body holds (no "students" list to tell it from).
    const result = await run(['invite', 'plan', '--school', 'sch-1', '--json']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      'Error: Reading the students of One: the server answered HTTP 200 with both a "users" and a "students" list: roster cannot tell which one is the answer. Report it to the vendor: the OneRoster standard puts the list under "users".\n',
    );
    expect(studentReads()).toHaveLength(1);
    expect(server.requests.filter((r) => r.method === 'POST' && !r.path.endsWith('/token'))).toEqual([]);
  });
});
