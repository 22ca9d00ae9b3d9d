// `roster roster …` against the sandbox's OneRoster 1.1 and 1.2 endpoints over HTTP, with the paging variants
// real servers show. Each run is in this process (main() on a fake Context: its waits are recorded, and cut
// to 20 ms); test/e2e/roster.test.ts runs the built CLI for what only a process of its own shows.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { OneRosterSandboxOptions } from '../../src/sandbox/oneroster/index.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { tempDir } from '../helpers/context.js';
import { rosterInProcess } from '../helpers/main.js';

const STUDENTS = 2345;
const VERSIONS = ['1.1', '1.2'] as const;
const USERS_CSV = {
  '1.1':
    'sourcedId,status,dateLastModified,enabledUser,orgSourcedIds,role,username,userIds,givenName,familyName,middleName,identifier,email,sms,phone,agentSourcedIds,grades,password',
  '1.2':
    'sourcedId,status,dateLastModified,enabledUser,username,userIds,givenName,familyName,middleName,identifier,email,sms,phone,agentSourcedIds,grades,password,userMasterIdentifier,preferredGivenName,preferredMiddleName,preferredFamilyName,primaryOrgSourcedId,pronouns',
};

type Variant = 'default' | 'cap50' | 'bare' | 'none' | 'bareNoTotal' | 'noTotal204';
const VARIANTS: Record<Variant, OneRosterSandboxOptions> = {
  default: {},
  cap50: { pageCap: 50 },
  bare: { link: 'bare', nulls: true },
  none: { link: 'none' },
  // Without X-Total-Count paging is sequential: by bare next links, or by offset until a 204.
  bareNoTotal: { link: 'bare', totalCount: false },
  noTotal204: { link: 'none', totalCount: false, emptyStatus: 204, pageCap: 700 },
};
const sandboxes = {} as Record<Variant, Sandbox>;
let home: string;

beforeAll(async () => {
  for (const [name, oneroster] of Object.entries(VARIANTS)) {
    sandboxes[name as Variant] = await startSandbox({ oneroster: { students: STUDENTS, ...oneroster } });
  }
});
afterAll(() => Promise.all(Object.values(sandboxes).map((s) => s.close())));
beforeEach(() => {
  home = tempDir();
  for (const s of Object.values(sandboxes)) s.requests.length = 0;
});

function roster(sandbox: Sandbox, args: string[]) {
  const client = sandbox.clients.find((c) => c.clientId === 'demo-allowed');
  return rosterInProcess(args, {
    home,
    env: {
      ROSTER_BASE_URL: sandbox.baseUrl,
      ROSTER_CLIENT_ID: 'demo-allowed',
      ROSTER_CLIENT_SECRET: client?.clientSecret ?? '',
    },
  });
}

const listRequests = (sandbox: Sandbox) => sandbox.requests.filter((r) => /\/students$/.test(r.path));
const ids = (records: { sourcedId: string }[]) => records.map((r) => r.sourcedId);

describe('--all --json returns every student exactly once', () => {
  for (const version of VERSIONS) {
    for (const variant of Object.keys(VARIANTS) as Variant[]) {
      it(`OneRoster ${version}, sandbox ${variant}`, async () => {
        const sandbox = sandboxes[variant];
        const result = await roster(sandbox, [
          '--oneroster',
          version,
          'roster',
          'students',
          '--all',
          '--json',
        ]);
        expect(result.stderr).toBe('');
        expect(result.code).toBe(0);
        const records = JSON.parse(result.stdout) as { sourcedId: string }[];
        expect(records).toHaveLength(STUDENTS);
        expect(new Set(ids(records)).size).toBe(STUDENTS);
        const prefix = `/v1/ims/oneroster/${version === '1.1' ? 'v1p1' : 'v1p2'}`;
        expect(sandbox.requests.find((r) => r.path.endsWith('/token'))?.path).toBe(`${prefix}/token`);
        const pages = listRequests(sandbox);
        expect(
          pages.every((r) => (r.path === `${prefix}/students` && r.status === 200) || r.status === 204),
        ).toBe(true);
        expect(pages[0]?.rawQuery).toBe('limit=1000');
        if (variant === 'cap50') expect(pages).toHaveLength(Math.ceil(STUDENTS / 50));
        if (variant === 'default') expect(pages).toHaveLength(3);
        if (variant === 'bareNoTotal') expect(pages).toHaveLength(3);
        if (variant === 'noTotal204') {
          expect(pages.map((r) => r.status)).toEqual([200, 200, 200, 200, 204]);
          expect(pages.at(-1)?.rawQuery).toBe('limit=1000&offset=2345');
        }
      });
    }
  }

  it('also with --page-size 1000 and --concurrency 1 against the clamping server, and as NDJSON', async () => {
    const sandbox = sandboxes.cap50;
    const result = await roster(sandbox, [
      'roster',
      'students',
      '--all',
      '--ndjson',
      '--page-size',
      '1000',
      '--concurrency',
      '1',
    ]);
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(new Set(lines.map((l) => JSON.parse(l).sourcedId)).size).toBe(STUDENTS);
    expect(lines).toHaveLength(STUDENTS);
    // Sequential: each next link of the server (limit kept as sent, offset advanced by 50).
    expect(listRequests(sandbox)[1]?.rawQuery).toBe('limit=1000&offset=50');
  });
});

describe('filters reach the server encoded per the notes', () => {
  let everyone: { sourcedId: string; givenName: string }[];
  beforeAll(async () => {
    const all = await roster(sandboxes.default, ['roster', 'students', '--all', '--ndjson']);
    everyone = all.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
  });

  it.each([
    ["givenName='Zoë'", 'filter=givenName%3D%27Zo%C3%AB%27', 'Zoë'],
    ["givenName='Mary Ann'", 'filter=givenName%3D%27Mary%20Ann%27', 'Mary Ann'],
  ])('%s', async (filter, encoded, name) => {
    const sandbox = sandboxes.default;
    const result = await roster(sandbox, ['roster', 'students', '--all', '--json', '--filter', filter]);
    expect(result.code).toBe(0);
    const matches = JSON.parse(result.stdout) as { sourcedId: string; givenName: string }[];
    const expected = everyone.filter((r) => r.givenName === name);
    expect(expected.length).toBeGreaterThan(0);
    expect(ids(matches)).toEqual(ids(expected));
    const sent = listRequests(sandbox)[0]?.rawQuery ?? '';
    expect(sent).toBe(`limit=1000&${encoded}`);
    expect(sent).not.toContain('+');
    expect(sent).not.toContain("'");
  });

  it('a bad filter answered 400 shows the imsx_description, exit 1', async () => {
    const result = await roster(sandboxes.default, ['roster', 'students', '--filter', "shoeSize='42'"]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(
      "Error: Reading students failed (HTTP 400): Invalid filter field: 'shoeSize' is not a field of user.",
    );
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('--csv', () => {
  for (const version of VERSIONS) {
    it(`has exactly the OneRoster ${version} users.csv columns and one row per student`, async () => {
      const result = await roster(sandboxes.cap50, [
        '--oneroster',
        version,
        'roster',
        'students',
        '--all',
        '--csv',
      ]);
      expect(result.code).toBe(0);
      const lines = result.stdout.trimEnd().split('\n');
      expect(lines[0]).toBe(USERS_CSV[version]);
      expect(lines).toHaveLength(STUDENTS + 1);
      expect(lines[1]).toMatch(/^stu-000001,active,\S+,(true|false),/);
    });
  }
});

describe('--columns', () => {
  it('a column no record has a value in (a typo) is still shown, and named on stderr once the read is done', async () => {
    const args = ['roster', 'students', '--all', '--columns', 'sourcedId,givenNme,middleName,identifier'];
    const result = await roster(sandboxes.cap50, [...args, '--csv']);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('sourcedId,givenNme,middleName,identifier');
    expect(lines).toHaveLength(STUDENTS + 1);
    expect(result.stderr).toBe(
      "Warning: --columns givenNme: no record had a value there (names are case-sensitive; `--limit 1 --json` shows a record's fields).\n",
    );
    // Every column named exists: nothing said.
    const fine = await roster(sandboxes.default, [
      'roster',
      'students',
      '--limit',
      '3',
      '--columns',
      'sourcedId,givenName',
    ]);
    expect(fine).toMatchObject({ code: 0, stderr: '' });
  });

  it('the same for one record; a column --fields left out is said to be so, not taken for a typo', async () => {
    const one = await roster(sandboxes.default, [
      'roster',
      'students',
      'stu-000001',
      '--columns',
      'sourcedId,givenNme',
      '--csv',
    ]);
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).toBe('sourcedId,givenNme\nstu-000001,\n');
    expect(one.stderr).toContain(
      'Warning: --columns givenNme: no record had a value there (names are case-sensitive;',
    );
    const fields = await roster(sandboxes.default, [
      ...['roster', 'students', '--limit', '3', '--fields', 'sourcedId'],
      ...['--columns', 'sourcedId,givenName'],
    ]);
    expect(fields.code, fields.stderr).toBe(0);
    expect(fields.stderr).toBe(
      'Warning: --columns givenName: no record had a value there (--fields asked the server for sourcedId only).\n',
    );
  });

  it('with --json or --ndjson is a usage error before any request', async () => {
    for (const format of ['--json', '--ndjson']) {
      const result = await roster(sandboxes.default, [
        'roster',
        'students',
        '--columns',
        'sourcedId',
        format,
      ]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        `--columns chooses the columns of a table or CSV; ${format} prints every field`,
      );
    }
    expect(sandboxes.default.requests).toEqual([]);
  });
});

describe('retries', () => {
  it('a 503 with Retry-After: 1 on a page is retried and the export still has every record once', async () => {
    const sandbox = sandboxes.default;
    sandbox.injectFault({
      match: (req) => req.path.endsWith('/students') && req.rawQuery.includes('offset=1000'),
      status: 503,
      headers: { 'Retry-After': '1' },
      times: 1,
    });
    const result = await roster(sandbox, ['roster', 'students', '--all', '--json']);
    expect(result.code).toBe(0);
    const records = JSON.parse(result.stdout) as { sourcedId: string }[];
    expect(records).toHaveLength(STUDENTS);
    expect(new Set(ids(records)).size).toBe(STUDENTS);
    const page = listRequests(sandbox).filter((r) => r.rawQuery.includes('offset=1000'));
    expect(page.map((r) => r.status)).toEqual([503, 200]);
    expect(result.sleeps).toEqual([1000]); // the second Retry-After asked for, before the page again
  });
});

describe('single and nested reads, other collections', () => {
  it('reads one student, and names the one that is not there', async () => {
    const sandbox = sandboxes.default;
    const one = await roster(sandbox, ['--oneroster', '1.2', 'roster', 'students', 'stu-000002', '--json']);
    expect(one.code).toBe(0);
    expect(JSON.parse(one.stdout)).toMatchObject({
      sourcedId: 'stu-000002',
      enabledUser: expect.any(String),
    });
    const missing = await roster(sandbox, ['roster', 'students', 'stu-999999']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^Error: Student "stu-999999" not found \(HTTP 404: .*stu-999999.*\)\./);
  });

  it('reads students of a school and of a class, as TSV in a pipe', async () => {
    const sandbox = sandboxes.default;
    const classes = await roster(sandbox, ['roster', 'classes', '--limit', '1', '--json']);
    const cls = JSON.parse(classes.stdout)[0] as { sourcedId: string; school: { sourcedId: string } };
    const inClass = await roster(sandbox, ['roster', 'students', '--class', cls.sourcedId, '--all']);
    expect(inClass.code).toBe(0);
    const lines = inClass.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('sourcedId\tgivenName\tfamilyName\tgrades\temail\tstatus');
    expect(lines.length).toBeGreaterThan(2);
    const both = await roster(sandbox, [
      'roster',
      'students',
      '--school',
      cls.school.sourcedId,
      '--class',
      cls.sourcedId,
      '--all',
    ]);
    expect(both.stdout).toBe(inClass.stdout);
    expect(
      sandbox.requests.some((r) =>
        r.path.endsWith(`/schools/${cls.school.sourcedId}/classes/${cls.sourcedId}/students`),
      ),
    ).toBe(true);
    const unknown = await roster(sandbox, ['roster', 'students', '--school', 'sch-nope']);
    // Checked against the district's schools: a usage error before the students are asked for.
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(
      'Error: --school "sch-nope" is not the name, identifier or sourcedId of a school of this district.',
    );
    expect(sandbox.requests.some((r) => r.path.endsWith('/schools/sch-nope/students'))).toBe(false);
  });

  it.each([
    ['schools', 'orgs'],
    ['orgs', 'orgs'],
    ['classes', 'classes'],
    ['courses', 'courses'],
    ['teachers', 'users'],
    ['users', 'users'],
    ['enrollments', 'enrollments'],
    ['academic-sessions', 'academicSessions'],
    ['terms', 'academicSessions'],
    ['grading-periods', 'academicSessions'],
    ['demographics', 'demographics'],
  ])('roster %s --limit 3 --json, then the first one by sourcedId', async (name) => {
    const sandbox = sandboxes.default;
    for (const version of VERSIONS) {
      const list = await roster(sandbox, ['--oneroster', version, 'roster', name, '--limit', '3', '--json']);
      expect(list.code).toBe(0);
      const records = JSON.parse(list.stdout) as { sourcedId: string }[];
      expect(records.length).toBeGreaterThan(0);
      const first = records[0]!.sourcedId;
      const one = await roster(sandbox, ['--oneroster', version, 'roster', name, first, '--json']);
      expect(one.code).toBe(0);
      expect(JSON.parse(one.stdout).sourcedId).toBe(first);
    }
  });
});

describe('records stay out of traces', () => {
  it('--debug shows requests and sizes, never a record, a token or the secret', async () => {
    const sandbox = sandboxes.default;
    const result = await roster(sandbox, ['--debug', 'roster', 'students', '--limit', '5', '--json']);
    expect(result.code).toBe(0);
    const records = JSON.parse(result.stdout) as { givenName: string; email?: string; familyName: string }[];
    expect(result.stderr).toMatch(
      /> GET http:\/\/127\.0\.0\.1:\d+\/v1\/ims\/oneroster\/v1p1\/students\?limit=5/,
    );
    expect(result.stderr).toMatch(/< \(body: \d+ bytes\)/);
    for (const r of records) {
      expect(result.stderr).not.toContain(r.familyName);
      if (r.email) expect(result.stderr).not.toContain(r.email);
    }
    expect(result.stderr).not.toContain('riverside-secret-2024');
  });
});

describe('--fields that leave the sourcedId out', () => {
  it.each(['4', '1'])(
    'pages of role alone are alike, not a loop: every record, exit 0 (--concurrency %s)',
    async (concurrency) => {
      const args = [
        'roster',
        'students',
        '--all',
        '--fields',
        'role',
        '--ndjson',
        '--concurrency',
        concurrency,
      ];
      const result = await roster(sandboxes.default, args);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      const lines = result.stdout.trim().split('\n');
      expect(lines).toHaveLength(STUDENTS);
      expect(new Set(lines)).toEqual(new Set(['{"role":"student"}']));
    },
  );
});
