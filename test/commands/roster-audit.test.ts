// `roster roster audit`, each run in this process (main() on a fake Context) against the sandbox over HTTP
// (its --defects district, its
// default one, which is clean, and its --family-traps one with the campaign's traps), each check's records
// compared with an independent computation from the records fetched over HTTP (test/helpers/audit.ts), for
// 1.1 and 1.2. No --date: the sandbox serves the school year of today, as the audit takes today.
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { actualAudit, expectedAudit, fetchDistrict } from '../helpers/audit.js';
import { tempDir } from '../helpers/context.js';
import type { Version } from '../helpers/families.js';
import { rosterInProcess } from '../helpers/main.js';
import { demoClient, demoEnv, sandboxSchoolYear } from '../helpers/sandbox.js';
import { startScriptedServer } from '../helpers/scripted-server.js';

/** Today as the audit and the sandbox take it (UTC), and the sandbox's school year, which contains it. */
const TODAY = new Date().toISOString().slice(0, 10);
const { year: YEAR, after: AFTER_YEAR } = sandboxSchoolYear(TODAY);
const CHECKS = [
  'duplicate-sourcedid',
  'missing-reference',
  'active-refers-to-deleted',
  'org-cycle',
  'session-dates',
  'no-current-school-year',
  'student-without-enrollment',
  'class-without-teacher',
  'invalid-email',
  'shared-email',
  'invalid-grade',
  'student-without-guardian-email',
  'agent-not-guardian',
  'one-sided-link',
  'guardian-many-students',
  'no-school',
  'teacher-as-student',
  'all-roles-ended',
  'invalid-date-modified',
  'unknown-role',
  'self-agent',
  'ended-enrollment-active',
];

/** Debian's Chromium, which CI installs (.ci/run); the HTML test is skipped, saying why, without it. */
const CHROMIUM = ['chromium', 'chromium-browser'].find((name) => spawnSync('which', [name]).status === 0);

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

async function start(options: { defects?: boolean; familyTraps?: boolean } = {}): Promise<Sandbox> {
  sandbox = await startSandbox({ oneroster: options });
  return sandbox;
}

/** A run in this process on `home`, with this environment. */
const roster = (args: string[], home: string, options: { env: Record<string, string> }) =>
  rosterInProcess(args, { home, env: options.env });

function audit(sb: Sandbox, home: string, args: string[], version: Version = '1.1') {
  return roster(['--oneroster', version, 'roster', 'audit', ...args], home, { env: demoEnv(sb) });
}

const district = (sb: Sandbox, version: Version) =>
  fetchDistrict(sb.baseUrl, 'demo-allowed', demoClient(sb).clientSecret, version);

/** Data requests (not tokens) per collection path. */
const reads = (sb: Sandbox) =>
  sb.requests
    .filter((r) => r.path.includes('/ims/oneroster/') && !r.path.endsWith('/token'))
    .map((r) => r.path.replace(/^.*\/v1p[12]\//, ''));

describe.each(['1.1', '1.2'] as const)('roster roster audit over OneRoster %s', (version) => {
  it('--defects: every check finds its planted records, and each equals the independent computation', async () => {
    const sb = await start({ defects: true });
    const result = await audit(sb, tempDir(), ['--json'], version);
    // Error findings are planted: exit 1, as doctor exits when a check fails.
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/at or above --fail-on error: .*missing-reference/);
    const paths = reads(sb);
    const json = JSON.parse(result.stdout);
    const actual = actualAudit(json);
    expect(actual).toEqual(expectedAudit(await district(sb, version), version, { date: TODAY }));
    // Every check has its plant, but no-school (the district would have none to plan for) and, in 1.1, whose
    // roles carry no endDate, all-roles-ended.
    const unplanted = ['no-school', ...(version === '1.1' ? ['all-roles-ended'] : [])];
    for (const check of CHECKS.filter((c) => !unplanted.includes(c)))
      expect(actual[check]?.length ?? 0, check).toBeGreaterThan(0);
    for (const check of unplanted) expect(actual[check], check).toBeUndefined();
    expect(actual['teacher-as-student']).toEqual([expect.stringMatching(/^enrollments\|enr-stu-000045-/)]);
    expect(actual['invalid-date-modified']).toEqual(['users|stu-000047']);
    expect(actual['unknown-role']).toEqual(['users|tch-00006']);
    expect(actual['self-agent']).toEqual(['users|stu-000049']);
    expect(actual['ended-enrollment-active']).toEqual([
      expect.stringMatching(/^enrollments\|enr-stu-000051-/),
    ]);
    if (version === '1.2') expect(actual['all-roles-ended']).toHaveLength(1);
    // The planted records by name (docs/sandbox.md, "Audit findings and planted defects").
    expect(actual['org-cycle']).toEqual(['orgs|org-district', 'orgs|org-sch-1']);
    expect(actual['duplicate-sourcedid']).toEqual(['classes|cls-1-KG-MATH-01', 'orgs|org-sch-1']);
    expect(actual['session-dates']).toEqual([
      `academicSessions|${YEAR}-gp1`,
      `academicSessions|${YEAR}-t1`,
      `academicSessions|${YEAR}-t2`,
    ]);
    expect(actual['no-current-school-year']).toEqual([`academicSessions|${YEAR}`]);
    expect(actual['invalid-grade']).toEqual(['users|stu-000035']);
    expect(actual['student-without-enrollment']).toEqual(['users|stu-000033']);
    expect(actual['guardian-many-students']).toHaveLength(1);
    // On a clean district, each planted error is the only one: the counts are known (docs/sandbox.md, "Audit findings and planted defects").
    expect(actual['missing-reference']).toEqual([
      `academicSessions|${YEAR}-gp4`,
      'classes|cls-1-KG-ELA-01',
      'courses|crs-1-KG-ELA',
      'enrollments|enr-stu-000031-MATH',
      'users|tch-00001',
    ]);
    expect(actual['active-refers-to-deleted']).toEqual(['classes|cls-1-KG-SCI-01']);
    expect(actual['class-without-teacher']).toEqual(['classes|cls-1-KG-SOC-01']);
    expect(actual['invalid-email']).toEqual(['users|tch-00002']);
    expect(actual['shared-email']).toEqual(['users|stu-000034', 'users|tch-00003']);
    expect(actual['student-without-guardian-email']).toEqual(['users|stu-000042']);
    expect(actual['agent-not-guardian']).toEqual(
      expect.arrayContaining(['users|stu-000037', 'users|stu-000038']),
    );
    expect(json.summary.counts.error).toBe(12);
    // Every record is in the JSON, none cut, and each finding's count is its records'.
    for (const f of json.findings) expect(f.count).toBe(f.records.length);
    expect(json.summary.counts.error).toBe(
      json.findings
        .filter((f: { severity: string }) => f.severity === 'error')
        .reduce((n: number, f: { count: number }) => n + f.count, 0),
    );
    // Each collection read once: one page each at this size (users: 4 pages of 1000), never twice.
    expect(new Set(paths)).toEqual(
      new Set(['orgs', 'academicSessions', 'courses', 'classes', 'users', 'enrollments']),
    );
    expect(paths.filter((p) => p === 'orgs')).toHaveLength(1);
    expect(paths.filter((p) => p === 'users')).toHaveLength(Math.ceil(json.summary.read.users / 1000));
  });

  it('the default district is clean: no finding, exit 0, nothing to look at, today without --date', async () => {
    const sb = await start();
    const result = await audit(sb, tempDir(), ['--json'], version);
    expect(result.code).toBe(0);
    const json = JSON.parse(result.stdout);
    expect(actualAudit(json)).toEqual({});
    expect(expectedAudit(await district(sb, version), version, { date: TODAY })).toEqual({});
    expect(json.findings.map((f: { check: string }) => f.check).sort()).toEqual([...CHECKS].sort());
    expect(json.summary.counts).toEqual({ error: 0, warning: 0, info: 0 });
    expect(result.stderr).toContain(`Audit of OneRoster ${version}: no finding (${CHECKS.length} checks).`);
  });

  it('--family-traps: the campaign traps, each equal to the independent computation', async () => {
    const sb = await start({ familyTraps: true });
    const result = await audit(sb, tempDir(), ['--json'], version);
    const actual = actualAudit(JSON.parse(result.stdout));
    expect(actual).toEqual(expectedAudit(await district(sb, version), version, { date: TODAY }));
    // Students linked to a guardian the API does not return (stu-10, stu-20, …): missing references.
    expect(actual['missing-reference']).toEqual(
      expect.arrayContaining(['users|stu-000010', 'users|stu-000020']),
    );
    expect(result.code).toBe(1);
  });
});

describe('roster roster audit: flags, output and exit codes', () => {
  it('the terminal report: findings by severity, then per school; --fail-on never exits 0', async () => {
    const sb = await start({ defects: true });
    const result = await audit(sb, tempDir(), ['--fail-on', 'never']);
    expect(result.code).toBe(0);
    const [summary = '', perSchool = ''] = result.stdout.split('\n\n');
    const lines = summary.trim().split('\n');
    expect(lines[0]).toBe('check\tseverity\tcount\tfirst examples');
    const severities = lines.slice(1).map((l) => l.split('\t')[1]);
    expect(severities).toEqual(
      [...severities].sort(
        (a, b) =>
          ['error', 'warning', 'info'].indexOf(a ?? '') - ['error', 'warning', 'info'].indexOf(b ?? ''),
      ),
    );
    expect(lines).toContainEqual('org-cycle\terror\t2\torg-district, org-sch-1');
    expect(perSchool.split('\n')[0]).toBe('school\tstudents\twith guardian e-mail\tclasses with teacher');
    expect(perSchool).toMatch(/Alder Elementary School \(org-sch-1\)\t\d+\t\d+\.\d%\t53\/54/);
  });

  it('--fail-on warning fails on warnings alone; --check runs only those, reading only what they need', async () => {
    const sb = await start();
    const home = tempDir();
    // A clean district audited after its school year: one warning.
    const warned = await audit(sb, home, ['--date', AFTER_YEAR, '--fail-on', 'warning', '--json']);
    expect(warned.code).toBe(1);
    expect(actualAudit(JSON.parse(warned.stdout))).toEqual({
      'no-current-school-year': [`academicSessions|${YEAR}`],
    });
    expect((await audit(sb, home, ['--date', AFTER_YEAR])).code).toBe(0);
    sb.requests.length = 0;
    const only = await audit(sb, home, ['--check', 'session-dates,no-current-school-year', '--json']);
    expect(only.code).toBe(0);
    expect(
      JSON.parse(only.stdout)
        .findings.map((f: { check: string }) => f.check)
        .sort(),
    ).toEqual(['no-current-school-year', 'session-dates']);
    expect(new Set(reads(sb))).toEqual(new Set(['academicSessions']));
  });

  it('--skip leaves checks out; --school limits the report, not what is read', async () => {
    const sb = await start({ defects: true });
    const home = tempDir();
    const skipped = await audit(sb, home, [
      '--skip',
      'missing-reference,org-cycle,session-dates,duplicate-sourcedid',
      '--json',
    ]);
    expect(skipped.code).toBe(0);
    expect(JSON.parse(skipped.stdout).findings).toHaveLength(CHECKS.length - 4);
    const full = actualAudit(JSON.parse((await audit(sb, home, ['--json'])).stdout));
    const alder = await audit(sb, home, ['--school', 'Alder Elementary School', '--json']);
    const json = JSON.parse(alder.stdout);
    expect(json.summary.schools).toEqual(['org-sch-1']);
    expect(json.summary.perSchool.map((s: { sourcedId: string }) => s.sourcedId)).toEqual(['org-sch-1']);
    const limited = actualAudit(json);
    // Fewer records, each one of the district's; district-wide ones (sessions, the org cycle) kept.
    for (const [check, records] of Object.entries(limited))
      for (const r of records) expect(full[check], check).toContain(r);
    const size = (e: Record<string, string[]>) => Object.values(e).reduce((n, r) => n + r.length, 0);
    expect(size(limited)).toBeLessThan(size(full));
    // stu-000042 (no guardian e-mail) is at Cedar: not in Alder's report.
    expect(full['student-without-guardian-email']).toEqual(['users|stu-000042']);
    expect(limited['student-without-guardian-email']).toBeUndefined();
    expect(limited['session-dates']).toEqual(full['session-dates']);
    // The class of Alder whose teacher enrollment is tobedeleted is reported; Birch's are not.
    expect(limited['class-without-teacher']).toEqual(['classes|cls-1-KG-SOC-01']);
  });

  it('usage errors exit 2 before any request', async () => {
    const sb = await start();
    const home = tempDir();
    for (const args of [
      ['--check', 'no-such-check'],
      ['--check', 'org-cycle', '--skip', 'session-dates'],
      ['--fail-on', 'sometimes'],
      ['--date', '15/01/2026'],
      ['--school', 'org-sch-1', '--all-schools'],
      ['--max-children', '0'],
      ['--html', ''],
    ]) {
      const result = await audit(sb, home, args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stdout).toBe('');
    }
    expect(sb.requests).toHaveLength(0);
  });

  it('--max-children: a lower limit reports more e-mails, as invite plan counts them', async () => {
    const sb = await start({ defects: true });
    const home = tempDir();
    const many = (args: string[]) =>
      audit(sb, home, ['--check', 'guardian-many-students', '--json', ...args]).then(
        (r) => actualAudit(JSON.parse(r.stdout))['guardian-many-students'] ?? [],
      );
    const data = await district(sb, '1.1');
    expect(await many([])).toEqual(expectedAudit(data, '1.1', { date: TODAY })['guardian-many-students']);
    expect(await many(['--max-children', '2'])).toEqual(
      expectedAudit(data, '1.1', { date: TODAY, maxChildren: 2 })['guardian-many-students'],
    );
    expect((await many(['--max-children', '2'])).length).toBeGreaterThan(1);
  });

  it('--csv-dir: one private CSV per check with findings, formulas quoted off', async () => {
    const sb = await start({ defects: true });
    const home = tempDir();
    const dir = join(home, 'to-fix');
    const result = await audit(sb, home, ['--csv-dir', dir, '--fail-on', 'never', '--json']);
    expect(result.code).toBe(0);
    const json = JSON.parse(result.stdout);
    const withFindings = json.findings.filter((f: { count: number }) => f.count > 0);
    expect(readdirSync(dir).sort()).toEqual(
      withFindings.map((f: { check: string }) => `${f.check}.csv`).sort(),
    );
    for (const f of withFindings) {
      const path = join(dir, `${f.check}.csv`);
      expect(statSync(path).mode & 0o777).toBe(0o600);
      const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
      expect(lines[0]).toBe('\ufeffcheck,severity,collection,sourcedId,name,school,detail');
      expect(lines).toHaveLength(f.count + 1);
    }
    // A record about a person names them and their school beside the sourcedId, as the SIS office looks
    // them up: in the JSON and in the CSV.
    const people = withFindings.flatMap((f: { check: string; records: Record<string, string>[] }) =>
      f.records.filter((r) => r.collection === 'users').map((r) => ({ check: f.check, ...r })),
    );
    expect(people.length).toBeGreaterThan(0);
    const named = people.find((r: Record<string, string>) => r.name && r.school);
    expect(named).toBeDefined();
    expect(named.name).toMatch(/^\S+.* \S+$/);
    expect(named.school).toMatch(/School/);
    expect(readFileSync(join(dir, `${named.check}.csv`), 'utf8')).toContain(
      `,users,${named.sourcedId},${named.name},`,
    );
    const cycle = readFileSync(join(dir, 'org-cycle.csv'), 'utf8');
    expect(cycle).toContain('org-cycle,error,orgs,org-district,');
    expect(result.stderr).toContain(`CSV files written to ${dir}.`);
  });
});

describe('roster roster audit --html, opened in a real headless browser', () => {
  if (!CHROMIUM) it.skip('skipped: no chromium on this machine (CI installs it: .ci/run)', () => {});
  it.runIf(CHROMIUM)(
    'one self-contained page: charts of coverage per school and of findings by severity, a filterable table',
    async () => {
      const sb = await start({ defects: true });
      const home = tempDir();
      const file = join(home, 'audit.html');
      const result = await audit(sb, home, ['--html', file, '--json', '--fail-on', 'never']);
      expect(result.code).toBe(0);
      expect(result.stderr).toContain(`HTML report written to ${file}.`);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const json = JSON.parse(result.stdout);
      const html = readFileSync(file, 'utf8');
      // Nothing to fetch: no src or href at all, and a policy that forbids any fetch.
      expect(html).not.toMatch(/\s(src|href)=/i);
      expect(html).toContain(
        `content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'"`,
      );
      // Rendered by Chromium, filtered by the address (#check=org-cycle) as by the select.
      const dom = execFileSync(
        CHROMIUM as string,
        ['--headless', '--no-sandbox', '--disable-gpu', '--dump-dom', `file://${file}#check=org-cycle`],
        { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 90_000 },
      );
      const bars = (figure: string) => {
        const start = dom.indexOf(`<figure id="${figure}">`);
        const body = dom.slice(start, dom.indexOf('</figure>', start));
        return [...body.matchAll(/<g class="bar" data-label="([^"]*)" data-value="([^"]*)">/g)].map((m) => [
          m[1],
          m[2],
        ]);
      };
      expect(bars('coverage-chart')).toEqual(
        json.summary.perSchool.map((s: { name: string; withGuardianEmail: number; students: number }) => [
          s.name,
          `${s.students === 0 ? '–' : `${((100 * Math.round((1000 * s.withGuardianEmail) / s.students)) / 1000).toFixed(1)}%`} (${s.withGuardianEmail}/${s.students})`,
        ]),
      );
      expect(bars('severity-chart')).toEqual([
        ['error', String(json.summary.counts.error)],
        ['warning', String(json.summary.counts.warning)],
        ['info', String(json.summary.counts.info)],
      ]);
      const total = json.findings.reduce((n: number, f: { count: number }) => n + f.count, 0);
      expect(dom).toContain(`<span id="shown">2 of ${total} records shown</span>`);
      const rows = [...dom.matchAll(/<tr data-check="([^"]+)" data-severity="[^"]+"( hidden="")?>/g)];
      expect(rows).toHaveLength(total);
      expect(rows.filter((r) => !r[2]).map((r) => r[1])).toEqual(['org-cycle', 'org-cycle']);
    },
    120_000,
  );
});

describe('roster doctor: a line for the audit error checks, through the same code, by default', () => {
  it('passes on the default district; fails on planted errors with their counts (exit 1); --skip audit reads nothing', async () => {
    const clean = await start();
    const home = tempDir();
    const passed = await roster(['doctor'], home, { env: demoEnv(clean) });
    expect(passed.code).toBe(0);
    expect(passed.stdout).toMatch(
      /pass\taudit\tyes\t\d+\tOneRoster 1\.1: no duplicate-sourcedid, missing-reference, org-cycle, session-dates, no-school in \d+ records read/,
    );
    // The whole district was read, each collection the error checks need.
    expect(new Set(reads(clean))).toEqual(
      new Set(['students', 'orgs', 'academicSessions', 'courses', 'classes', 'users', 'enrollments']),
    );
    await clean.close();
    const sb = await start({ defects: true });
    const failed = await roster(['doctor', '--json'], home, { env: demoEnv(sb) });
    // The doctor's documented exit for a failed check that is not about 403s or credentials.
    expect(failed.code).toBe(1);
    const report = JSON.parse(failed.stdout);
    const line = report.checks.find((c: { id: string }) => c.id === 'audit');
    expect(line).toMatchObject({ status: 'fail', required: true, error: 'failure' });
    expect(line.message).toMatch(
      /^OneRoster 1\.1: 12 error findings \(duplicate-sourcedid 2, missing-reference 5, org-cycle 2, session-dates 3\) in \d+ records read; run `roster roster audit` for the records$/,
    );
    // Every other check passed: the audit line alone fails the run.
    expect(
      report.checks.filter((c: { status: string }) => c.status !== 'pass').map((c: { id: string }) => c.id),
    ).toEqual(['audit']);
    expect(failed.stderr).toContain('audit');
    // The command agrees: the same errors, the same exit.
    const command = await audit(sb, home, [
      '--check',
      'duplicate-sourcedid,missing-reference,org-cycle,session-dates',
      '--json',
    ]);
    expect(command.code).toBe(1);
    expect(JSON.parse(command.stdout).summary.counts.error).toBe(12);
    // --skip audit: the quick doctor, which reads no collection beyond its one-student probes.
    sb.requests.length = 0;
    const quick = await roster(['doctor', '--skip', 'audit'], home, { env: demoEnv(sb) });
    expect(quick.code).toBe(0);
    expect(quick.stdout).toContain('skip\taudit\tno\t\tnot selected (--skip)');
    expect(new Set(reads(sb))).toEqual(new Set(['students']));
  });

  it('is bounded by --max-records: a district larger than the ceiling fails the line, saying so', async () => {
    const sb = await start();
    const result = await roster(['doctor', '--only', 'audit', '--max-records', '500'], tempDir(), {
      env: demoEnv(sb),
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/fail\taudit\tyes\t\d+\tReading users: stopped at 500 records/);
    // Not a record past the ceiling was asked for.
    const users = sb.requests.filter((r) => r.path.endsWith('/users'));
    expect(users.length).toBeGreaterThan(0);
    for (const r of users)
      expect(Number(new URLSearchParams(r.rawQuery).get('offset') ?? 0)).toBeLessThan(1000);
  });
});

describe('roster roster audit of data shaped like real SIS exports (test/fixtures/audit)', () => {
  /** Serves a fixture's collections (any token accepted), recording what was asked. */
  async function serve(version: Version) {
    const fixture = JSON.parse(
      readFileSync(
        join(import.meta.dirname, '..', 'fixtures', 'audit', `real-shaped-${version}.json`),
        'utf8',
      ),
    ) as Record<string, unknown[]>;
    return startScriptedServer((request) => {
      if (request.path.endsWith('/token'))
        return { body: { access_token: 'fixture-token', token_type: 'bearer', expires_in: 3600 } };
      const name = request.path.split('/').at(-1) ?? '';
      const records = fixture[name];
      if (!records) return { status: 404, body: { message: 'not here' } };
      const offset = Number(request.query.get('offset') ?? 0);
      return {
        headers: { 'x-total-count': String(records.length) },
        body: { [name]: offset === 0 ? records : [] },
      };
    });
  }

  it.each([
    ['1.1', { agentNotGuardian: ['users|usr-222-66778899'] }],
    [
      '1.2',
      {
        agentNotGuardian: ['users|usr-222-66778899', 'users|usr-222-66778899'],
        // The grandmother's one role, guardian, ended: she drops out of every student check.
        allRolesEnded: ['users|usr-222-555'],
      },
    ],
  ] as const)('OneRoster %s: teachers as agents, one-sided links, ended roles', async (version, expected) => {
    const server = await serve(version);
    try {
      const result = await roster(
        ['--oneroster', version, 'roster', 'audit', '--json', '--date', '2024-01-10'],
        tempDir(),
        {
          env: {
            ROSTER_BASE_URL: server.baseUrl,
            ROSTER_CLIENT_ID: 'fixture',
            ROSTER_CLIENT_SECRET: 'fixture-secret',
          },
        },
      );
      expect(result.stderr).not.toContain('Error');
      // Warnings and notes only: exit 0 at the default --fail-on error.
      expect(result.code).toBe(0);
      const json = JSON.parse(result.stdout);
      expect(actualAudit(json)).toEqual({
        // The student names a teacher (and in 1.2 a grandmother whose guardian role ended) as agents.
        'agent-not-guardian': [...expected.agentNotGuardian],
        ...('allRolesEnded' in expected && { 'all-roles-ended': [...expected.allRolesEnded] }),
        // Mary names John, who does not name her; Thomas names Mary, who does not name him; Jim names John.
        'one-sided-link': ['users|usr-222-1234561', 'users|usr-222-66778899', 'users|usr-222-987654'],
        // An active enrollment in a tobedeleted class.
        'active-refers-to-deleted': ['enrollments|enr-3'],
      });
      const details = json.findings.flatMap((f: { records: { detail: string }[] }) =>
        f.records.map((r) => r.detail),
      );
      expect(details).toContain('agent usr-222-123456 is a teacher');
      if (version === '1.2')
        expect(details).toContain('agent usr-222-555 holds no role now (guardian ended)');
      // Mary is reached through Thomas (a parent naming her on his side only): covered, as invite plan sees it.
      expect(json.summary.perSchool).toEqual([
        expect.objectContaining({
          sourcedId: 'org-sch-222-456',
          students: 1,
          withGuardianEmail: 1,
          classes: 1,
          classesWithTeacher: 1,
        }),
      ]);
      const paths = server.requests.filter((r) => r.method === 'GET').map((r) => r.path.split('/').at(-1));
      expect(paths).toEqual(['orgs', 'academicSessions', 'courses', 'classes', 'users', 'enrollments']);
    } finally {
      await server.close();
    }
  });
});

describe('roster roster audit of a district with no school, no school year and a site administrator as agent', () => {
  const ORG = { sourcedId: 'org-d', type: 'org', href: '' };
  const DISTRICT: Record<string, unknown[]> = {
    orgs: [{ sourcedId: 'org-d', status: 'active', name: 'Lone District', type: 'district' }],
    academicSessions: [],
    courses: [],
    classes: [],
    users: [
      {
        sourcedId: 'stu-1',
        status: 'active',
        roles: [{ roleType: 'primary', role: 'student', org: ORG }],
        agents: [{ sourcedId: 'adm-1', type: 'user', href: '' }],
        dateLastModified: '2024-01-02T03:04:05Z',
      },
      {
        sourcedId: 'adm-1',
        status: 'active',
        email: 'adm@example.org',
        roles: [{ roleType: 'primary', role: 'siteAdministrator', org: ORG }],
        agents: [{ sourcedId: 'stu-1', type: 'user', href: '' }],
        dateLastModified: '2024-01-02',
      },
    ],
    enrollments: [],
  };

  it('no-school is an error (exit 1); the example column says a sentence; the role keeps its spelling', async () => {
    const server = await startScriptedServer((request) => {
      if (request.path.endsWith('/token'))
        return { body: { access_token: 'fixture-token', token_type: 'bearer', expires_in: 3600 } };
      const name = request.path.split('/').at(-1) ?? '';
      const records = DISTRICT[name] ?? [];
      return {
        headers: { 'x-total-count': String(records.length) },
        body: { [name]: Number(request.query.get('offset') ?? 0) === 0 ? records : [] },
      };
    });
    try {
      const env = { ROSTER_BASE_URL: server.baseUrl, ROSTER_CLIENT_ID: 'f', ROSTER_CLIENT_SECRET: 's' };
      const args = ['--oneroster', '1.2', 'roster', 'audit', '--date', '2024-01-10'];
      const text = await roster(args, tempDir(), { env });
      expect(text.code).toBe(1);
      expect(text.stderr).toContain('at or above --fail-on error: no-school (1)');
      const row = (check: string) => text.stdout.split('\n').find((line) => line.startsWith(`${check}\t`));
      expect(row('no-school')).toBe(
        'no-school\terror\t1\tno active org of type school among the 1 orgs read: no invitation plan can reach anyone',
      );
      expect(row('no-current-school-year')).toBe(
        'no-current-school-year\twarning\t1\tno active school year at all (2024-01-10)',
      );
      const json = JSON.parse((await roster([...args, '--json'], tempDir(), { env })).stdout);
      const details = json.findings.flatMap((f: { records: { detail: string }[] }) =>
        f.records.map((r) => r.detail),
      );
      expect(details).toContain('agent adm-1 is a siteAdministrator');
      expect(actualAudit(json)).toEqual(
        expectedAudit(DISTRICT as unknown as Parameters<typeof expectedAudit>[0], '1.2', {
          date: '2024-01-10',
        }),
      );
    } finally {
      await server.close();
    }
  });
});
