// `roster roster export` as an admin runs it: the built CLI against the sandbox district, for OneRoster
// 1.1 and 1.2. Headers are the binding's, written out here by hand; expected row counts come from the
// sandbox's own model (seededDistrict), not from the code under test.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { ADMIN_COUNT, SUBJECT_COUNT, teacherSecondarySchool } from '../../src/sandbox/oneroster/district.js';
import { seededDistrict } from '../../src/sandbox/oneroster/index.js';
import { person } from '../../src/sandbox/oneroster/people.js';
import { countOf } from '../../src/sandbox/oneroster/records.js';
import { runCli, startCli, until } from '../helpers/cli.js';
import { demoEnv, sandboxSchoolYear, useSandbox } from '../helpers/sandbox.js';

/** The school year the sandbox serves today (its sessions' ids). */
const SY = sandboxSchoolYear();

const STUDENTS = 300;
/** With the family traps: users tobedeleted, which a bulk export leaves out and a delta keeps. */
const DISTRICT = { students: STUDENTS, familyTraps: true };
const VERSIONS = ['1.1', '1.2'] as const;
type Version = (typeof VERSIONS)[number];

const HEADERS: Record<Version, Record<string, string>> = {
  '1.1': {
    'orgs.csv': 'sourcedId,status,dateLastModified,name,type,identifier,parentSourcedId',
    'academicSessions.csv':
      'sourcedId,status,dateLastModified,title,type,startDate,endDate,parentSourcedId,schoolYear',
    'courses.csv':
      'sourcedId,status,dateLastModified,schoolYearSourcedId,title,courseCode,grades,orgSourcedId,subjects,subjectCodes',
    'classes.csv':
      'sourcedId,status,dateLastModified,title,grades,courseSourcedId,classCode,classType,location,schoolSourcedId,termSourcedIds,subjects,subjectCodes,periods',
    'users.csv':
      'sourcedId,status,dateLastModified,enabledUser,orgSourcedIds,role,username,userIds,givenName,familyName,middleName,identifier,email,sms,phone,agentSourcedIds,grades,password',
    'enrollments.csv':
      'sourcedId,status,dateLastModified,classSourcedId,schoolSourcedId,userSourcedId,role,primary,beginDate,endDate',
    'demographics.csv':
      'sourcedId,status,dateLastModified,birthDate,sex,americanIndianOrAlaskaNative,asian,blackOrAfricanAmerican,nativeHawaiianOrOtherPacificIslander,white,demographicRaceTwoOrMoreRaces,hispanicOrLatinoEthnicity,countryOfBirthCode,stateOfBirthAbbreviation,cityOfBirth,publicSchoolResidenceStatus',
  },
  '1.2': {} as Record<string, string>,
};
HEADERS['1.2'] = {
  ...HEADERS['1.1'],
  'users.csv':
    'sourcedId,status,dateLastModified,enabledUser,username,userIds,givenName,familyName,middleName,identifier,email,sms,phone,agentSourcedIds,grades,password,userMasterIdentifier,preferredGivenName,preferredMiddleName,preferredFamilyName,primaryOrgSourcedId,pronouns',
  'roles.csv':
    'sourcedId,status,dateLastModified,userSourcedId,roleType,role,beginDate,endDate,orgSourcedId,userProfileSourcedId',
};
const MANIFEST_FILES: Record<Version, string[]> = {
  '1.1':
    'academicSessions categories classes classResources courses courseResources demographics enrollments lineItems orgs resources results users'.split(
      ' ',
    ),
  '1.2':
    'academicSessions categories classes classResources courses courseResources demographics enrollments lineItemLearningObjectiveIds lineItems lineItemScoreScales orgs resources resultLearningObjectiveIds results resultScoreScales roles scoreScales userProfiles users'.split(
      ' ',
    ),
};

/** Rows the sandbox district should give each file: all records (delta) or the live ones (bulk). */
function expectedRows(version: Version, mode: 'bulk' | 'delta'): Record<string, number> {
  const d = seededDistrict(DISTRICT);
  const gone = (kind: 'student' | 'teacher' | 'admin', i: number) =>
    mode === 'bulk' && person(d.seed, kind, i).status === 'tobedeleted';
  let users = 0;
  let roles = 0;
  let students = 0;
  let enrollments = d.classes.length; // one teacher enrollment per class
  for (let i = 0; i < d.studentCount; i++) {
    if (gone('student', i)) continue;
    users++;
    roles++;
    students++;
    enrollments += SUBJECT_COUNT;
  }
  for (let t = 0; t < d.teacherCount; t++) {
    if (gone('teacher', t)) {
      enrollments -= d.teacherClassEnd[t]! - d.teacherClassStart[t]!;
      continue;
    }
    users++;
    roles += teacherSecondarySchool(d, t) === undefined ? 1 : 2;
  }
  for (let a = 0; a < ADMIN_COUNT; a++) {
    if (gone('admin', a)) continue;
    users++;
    roles++;
  }
  // Parents, guardians and relatives: one role per school their children attend.
  const fam = d.families;
  for (let g = 0; g < fam.guardianCount; g++) {
    if (mode === 'bulk' && fam.guardianDeleted[g]) continue;
    const f = fam.guardianFamily[g]!;
    const schools = new Set<number>();
    for (let i = fam.familyStudentStart[f]!; i < fam.familyStudentStart[f + 1]!; i++)
      schools.add(d.studentSchool[i]!);
    users++;
    roles += schools.size;
  }
  const rows: Record<string, number> = {
    'orgs.csv': countOf(d, 'org'),
    'academicSessions.csv': countOf(d, 'academicSession'),
    'courses.csv': countOf(d, 'course'),
    'classes.csv': countOf(d, 'class'),
    'users.csv': users,
    'enrollments.csv': enrollments,
    'demographics.csv': students,
  };
  if (mode === 'delta') {
    expect(users).toBe(countOf(d, 'user'));
    expect(enrollments).toBe(countOf(d, 'enrollment'));
  }
  if (version === '1.2') rows['roles.csv'] = roles;
  return rows;
}

/** RFC 4180 rows (quoted cells may hold commas, quotes and line breaks). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else cell += c;
  }
  expect(cell).toBe('');
  expect(row).toEqual([]);
  return rows;
}

const fixture = useSandbox({ oneroster: DISTRICT });
beforeEach(() => {
  fixture.sandbox.clearFaults();
  fixture.sandbox.setOptions({ latencyMs: 0 });
});

const env = () => demoEnv(fixture.sandbox);
const exportCli = (args: string[]) =>
  runCli(['roster', 'export', ...args], fixture.home, { env: env(), timeoutMs: 60_000 });
const csvFiles = (dir: string) => readdirSync(dir).filter((f) => f.endsWith('.csv'));
const read = (dir: string, file: string) => readFileSync(join(dir, file), 'utf8');
const listed = (collection: string) =>
  fixture.sandbox.requests.filter((r) => r.path.endsWith(`/${collection}`) && r.method === 'GET');

function manifestOf(dir: string): Map<string, string> {
  const rows = parseCsv(read(dir, 'manifest.csv'));
  expect(rows[0]).toEqual(['propertyName', 'value']);
  return new Map(rows.slice(1).map(([k, v]) => [k ?? '', v ?? '']));
}

/** Every file has the binding's header, the expected rows, well-formed cells; the manifest names them. */
function checkExport(dir: string, version: Version, mode: 'bulk' | 'delta', absent: string[] = []): void {
  const expected = expectedRows(version, mode);
  for (const name of absent) delete expected[name];
  expect(csvFiles(dir).sort()).toEqual([...Object.keys(expected), 'manifest.csv'].sort());
  for (const [name, rows] of Object.entries(expected)) {
    const text = read(dir, name);
    expect(text.split('\n', 1)[0], name).toBe(HEADERS[version][name]);
    const parsed = parseCsv(text);
    expect(parsed.length - 1, name).toBe(rows);
    const width = HEADERS[version][name]!.split(',').length;
    expect(
      parsed.every((r) => r.length === width),
      name,
    ).toBe(true);
    // Bulk files leave status and dateLastModified blank; delta files fill them.
    const filled = parsed.slice(1).filter((r) => r[1] !== '' || r[2] !== '').length;
    expect(filled, name).toBe(mode === 'bulk' ? 0 : rows);
    expect(statSync(join(dir, name)).mode & 0o777).toBe(0o600);
  }
  const manifest = manifestOf(dir);
  expect(manifest.get('manifest.version')).toBe('1.0');
  expect(manifest.get('oneroster.version')).toBe(version);
  expect(manifest.get('source.systemName')).toBe('roster');
  const files = MANIFEST_FILES[version];
  expect([...manifest.keys()].filter((k) => k.startsWith('file.'))).toEqual(files.map((f) => `file.${f}`));
  for (const f of files) expect(manifest.get(`file.${f}`), f).toBe(`${f}.csv` in expected ? mode : 'absent');
  expect(readdirSync(dir).filter((f) => f.endsWith('.partial'))).toEqual([]);
}

describe('roster roster export', () => {
  for (const version of VERSIONS) {
    it(`OneRoster ${version}: the binding's headers, the sandbox's counts, a manifest of exactly the files, --json`, async () => {
      const dir = join(fixture.home, 'out');
      const result = await exportCli(['--out', dir, '--oneroster', version, '--json']);
      expect(result.stderr).toContain(`Exported OneRoster ${version} (bulk) to ${dir}:`);
      expect(result.code).toBe(0);
      checkExport(dir, version, 'bulk');
      const json = JSON.parse(result.stdout) as {
        dir: string;
        version: string;
        files: { name: string; rows: number; status: string; omitted: number; total: number | null }[];
      };
      expect(json).toMatchObject({ dir, version, mode: 'bulk', zip: null });
      const expected = expectedRows(version, 'bulk');
      for (const file of json.files) {
        if (file.name !== 'manifest.csv') expect(file.rows, file.name).toBe(expected[file.name]);
        expect(file.status).toBe('written');
      }
      // X-Total-Count of each collection = rows written + records left out (tobedeleted and their rows).
      const d = seededDistrict(DISTRICT);
      const users = json.files.find((f) => f.name === 'users.csv');
      expect(users?.total).toBe(countOf(d, 'user'));
      expect((users?.rows ?? 0) + (users?.omitted ?? 0)).toBe(countOf(d, 'user'));
      const enrollments = json.files.find((f) => f.name === 'enrollments.csv');
      expect((enrollments?.rows ?? 0) + (enrollments?.omitted ?? 0)).toBe(countOf(d, 'enrollment'));
      // Each collection read once, page by page, from the version's own path.
      const prefix = `/v1/ims/oneroster/${version === '1.1' ? 'v1p1' : 'v1p2'}`;
      for (const c of [
        'orgs',
        'academicSessions',
        'courses',
        'classes',
        'users',
        'enrollments',
        'demographics',
      ]) {
        const pages = listed(c).map((r) => `${r.path}?${r.rawQuery}`);
        expect(pages[0]).toBe(`${prefix}/${c}?limit=1000`);
        expect(new Set(pages).size).toBe(pages.length);
      }
    });
  }

  it('--delta: every record with status and dateLastModified: row counts equal the totals', async () => {
    const dir = join(fixture.home, 'delta');
    const result = await exportCli(['--out', dir, '--oneroster', '1.2', '--delta', '--page-size', '97']);
    expect(result.code).toBe(0);
    checkExport(dir, '1.2', 'delta');
    expect(read(dir, 'users.csv')).toMatch(/\n[^,]+,tobedeleted,\d{4}-\d\d-\d\dT/);
  });

  it('cells: userIds as {type:identifier}, several values in one quoted cell, 1.1 role and orgs', async () => {
    const dir = join(fixture.home, 'cells');
    expect((await exportCli(['--out', dir])).code).toBe(0);
    const users = parseCsv(read(dir, 'users.csv'));
    const zoe = users.find((r) => r[0] === 'stu-000001');
    expect(zoe).toEqual([
      'stu-000001',
      '',
      '',
      'true',
      expect.stringMatching(/^org-sch-\d$/),
      'student',
      'zoe.akesson1',
      '{studentNumber:100001}',
      'Zoë',
      'Åkesson',
      expect.any(String),
      '100001',
      'zoe.akesson1@students.riverside.example',
      expect.any(String),
      '',
      'gdn-000001,gdn-000002', // agents: her parents
      expect.any(String),
      expect.any(String),
    ]);
    expect(read(dir, 'classes.csv')).toContain(`,"${SY.year}-t1,${SY.year}-t2",`);
    // A teacher at two schools: both orgs in one quoted cell.
    expect(read(dir, 'users.csv')).toMatch(/\ntch-\d+,,,(true|false),"org-sch-\d,org-sch-\d",teacher,/);
  });

  it('--zip: a valid archive whose entries are the manifest and the files, byte for byte', async () => {
    const dir = join(fixture.home, 'zip');
    const result = await exportCli(['--out', dir, '--oneroster', '1.2', '--zip']);
    expect(result.code).toBe(0);
    const zip = join(dir, 'oneroster-1.2.zip');
    expect(result.stderr).toContain(zip);
    const check = zipCheck(zip);
    expect(check.ok).toBe(true);
    expect(check.names.sort()).toEqual(csvFiles(dir).sort());
    for (const name of check.names) expect(check.contents[name], name).toBe(read(dir, name));
  });

  it('demographics answered 403: the file is absent in the manifest, a warning, exit 0', async () => {
    fixture.sandbox.injectFault({
      match: (req) => req.path.endsWith('/demographics'),
      status: 403,
      body: { imsx_codeMajor: 'failure', imsx_description: 'Not permitted: demographics' },
      times: 5,
    });
    const dir = join(fixture.home, 'no-demographics');
    const result = await exportCli(['--out', dir, '--oneroster', '1.2']);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/Warning: demographics\.csv left out: .*HTTP 403/);
    expect(result.stderr).toMatch(/demographics\.csv\s+absent/);
    checkExport(dir, '1.2', 'bulk', ['demographics.csv']);
  });

  it('a failure on a later collection: exit 1, and the re-run reads only what is missing', async () => {
    fixture.sandbox.injectFault({
      match: (req) => req.path.endsWith('/enrollments'),
      status: 400,
      body: { imsx_codeMajor: 'failure', imsx_description: 'Broken on purpose' },
    });
    const dir = join(fixture.home, 'fail');
    const first = await exportCli(['--out', dir]);
    expect(first.code).toBe(1);
    expect(first.stderr).toContain('Broken on purpose');
    expect(first.stderr).toContain('run the same command again to resume (5 complete files kept)');
    expect(csvFiles(dir).sort()).toEqual([
      'academicSessions.csv',
      'classes.csv',
      'courses.csv',
      'orgs.csv',
      'users.csv',
    ]);
    expect(readdirSync(dir).filter((f) => f.endsWith('.partial'))).toEqual([]);

    fixture.sandbox.requests.length = 0;
    const again = await exportCli(['--out', dir]);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('Resuming the export started');
    for (const c of ['orgs', 'academicSessions', 'courses', 'classes', 'users'])
      expect(listed(c), c).toEqual([]);
    // Parallel pages ask for a whole page: a short one is the server's own end, not only the total's.
    expect(listed('enrollments').map((r) => r.rawQuery)).toEqual(['limit=1000', 'limit=1000&offset=1000']);
    checkExport(dir, '1.1', 'bulk');
  });

  it.each([
    ['Ctrl-C', 'SIGINT'],
    ['SIGTERM', 'SIGTERM'],
  ] as const)(
    '%s after the first file: exit 130, complete files kept, the re-run resumes without reading them',
    async (_, signal) => {
      fixture.sandbox.setOptions({ latencyMs: 25 });
      const dir = join(fixture.home, signal.toLowerCase());
      const args = [
        '--oneroster',
        '1.2',
        'roster',
        'export',
        '--out',
        dir,
        '--page-size',
        '20',
        '--concurrency',
        '1',
      ];
      const first = start(args);
      const state = join(dir, '.roster-export.json');
      await until(() => existsSync(state) && 'orgs.csv' in JSON.parse(readFileSync(state, 'utf8')).files);
      first.child.kill(signal);
      const stopped = await first.done;
      expect(stopped.code).toBe(130);
      expect(stopped.stderr).toMatch(/Error: Export interrupted: \d+ complete files? kept/);
      const complete = Object.keys(JSON.parse(readFileSync(state, 'utf8')).files);
      expect(complete).toContain('orgs.csv');
      expect(complete).not.toContain('enrollments.csv');
      expect(readdirSync(dir).filter((f) => f.endsWith('.partial'))).toEqual([]);
      expect(existsSync(join(dir, 'manifest.csv'))).toBe(false);

      fixture.sandbox.setOptions({ latencyMs: 0 });
      fixture.sandbox.requests.length = 0;
      const again = await runCli(args, fixture.home, { env: env(), timeoutMs: 60_000 });
      expect(again.code).toBe(0);
      for (const name of complete) {
        const collection = name.replace('.csv', '');
        if (collection !== 'roles') expect(listed(collection), collection).toEqual([]);
      }
      checkExport(dir, '1.2', 'bulk');
    },
    60_000,
  );

  it('another version or base URL into the same directory is refused (exit 2) unless --force', async () => {
    const dir = join(fixture.home, 'mixed');
    expect((await exportCli(['--out', dir])).code).toBe(0);
    const refused = await exportCli(['--out', dir, '--oneroster', '1.2']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`${dir} holds an unfinished or earlier export from OneRoster 1.1`);
    expect(refused.stderr).toContain('--force');
    expect(read(dir, 'manifest.csv')).toContain('oneroster.version,1.1');
    const forced = await exportCli(['--out', dir, '--oneroster', '1.2', '--force']);
    expect(forced.code).toBe(0);
    checkExport(dir, '1.2', 'bulk');
    // The same command after a complete export is a fresh export, not a no-op.
    fixture.sandbox.requests.length = 0;
    const fresh = await exportCli(['--out', dir, '--oneroster', '1.2']);
    expect(fresh.code).toBe(0);
    expect(fresh.stderr).toContain('was complete: exporting afresh');
    expect(listed('users')).toHaveLength(1);
    checkExport(dir, '1.2', 'bulk');
    // Files of unknown origin are not overwritten either.
    const other = join(fixture.home, 'other');
    execFileSync('mkdir', ['-p', other]);
    execFileSync('cp', [join(dir, 'users.csv'), other]);
    const unknown = await exportCli(['--out', other]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('already holds users.csv');
  });

  it('--out is required; bad numbers are usage errors; nothing is sent', async () => {
    const none = await exportCli([]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('needs --out DIR');
    const bad = await exportCli(['--out', join(fixture.home, 'x'), '--page-size', '0']);
    expect(bad.code).toBe(2);
    expect(fixture.sandbox.requests).toEqual([]);
  });
});

const start = (args: string[]) => startCli(args, fixture.home, { env: env(), timeoutMs: 60_000 });

/** `unzip -t` when installed, else python3's zipfile: validity, entry names and contents. */
function zipCheck(path: string): { ok: boolean; names: string[]; contents: Record<string, string> } {
  const script = [
    'import json, sys, zipfile',
    'z = zipfile.ZipFile(sys.argv[1])',
    'bad = z.testzip()',
    'print(json.dumps({"ok": bad is None, "names": z.namelist(), "contents": {n: z.read(n).decode("utf-8") for n in z.namelist()}}))',
  ].join('\n');
  const result = JSON.parse(execFileSync('python3', ['-c', script, path], { encoding: 'utf8' }));
  try {
    const tested = execFileSync('unzip', ['-t', path], { encoding: 'utf8' });
    result.ok = result.ok && tested.includes('No errors detected');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') result.ok = false;
  }
  return result;
}
