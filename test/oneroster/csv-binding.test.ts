// The export's view of the OneRoster CSV binding: files per version, cells, roles.csv, the manifest.
import { describe, expect, it } from 'vitest';
import { exportTasks, manifestRows, roleRecords } from '../../src/oneroster/csv-binding.js';
import { csvLine } from '../../src/output/csv.js';

const files = (version: '1.1' | '1.2') =>
  exportTasks(version, 'bulk').flatMap((t) => t.files.map((f) => f.name));
const file = (version: '1.1' | '1.2', mode: 'bulk' | 'delta', name: string) => {
  const found = exportTasks(version, mode)
    .flatMap((t) => t.files)
    .find((f) => f.name === name);
  if (!found) throw new Error(name);
  return found;
};

describe('exportTasks', () => {
  it('writes referenced records first; 1.2 adds roles.csv in the users pass; demographics is optional', () => {
    expect(files('1.1')).toEqual([
      'orgs.csv',
      'academicSessions.csv',
      'courses.csv',
      'classes.csv',
      'users.csv',
      'enrollments.csv',
      'demographics.csv',
    ]);
    expect(files('1.2')).toEqual([
      'orgs.csv',
      'academicSessions.csv',
      'courses.csv',
      'classes.csv',
      'users.csv',
      'roles.csv',
      'enrollments.csv',
      'demographics.csv',
    ]);
    expect(
      exportTasks('1.2', 'bulk')
        .filter((t) => t.optional)
        .map((t) => t.collection.path),
    ).toEqual(['demographics']);
  });

  const user11 = {
    sourcedId: 'tch-1',
    status: 'active',
    dateLastModified: '2025-07-01T10:00:00.000Z',
    enabledUser: true,
    username: 'ann',
    userIds: [
      { type: 'staffNumber', identifier: 'T1' },
      { type: 'ldap', identifier: 'ann' },
    ],
    givenName: 'Ann "Annie"',
    familyName: 'Lee, Jr',
    role: 'teacher',
    orgs: [{ sourcedId: 'org-1' }, { sourcedId: 'org-2' }],
    agents: [],
  };

  it('bulk: status and dateLastModified blank; several values joined in one cell that csvLine quotes', () => {
    const users = file('1.1', 'bulk', 'users.csv');
    const [row] = users.rows(user11);
    expect(csvLine(row ?? [])).toBe(
      'tch-1,,,true,"org-1,org-2",teacher,ann,"{staffNumber:T1},{ldap:ann}","Ann ""Annie""","Lee, Jr",,,,,,,,\n',
    );
  });

  it('delta: status and dateLastModified as served; dates cut to the day', () => {
    const [row] = file('1.1', 'delta', 'users.csv').rows(user11);
    expect(row?.slice(0, 3)).toEqual(['tch-1', 'active', '2025-07-01T10:00:00.000Z']);
    const [session] = file('1.2', 'delta', 'academicSessions.csv').rows({
      sourcedId: 'as-1',
      startDate: '2025-08-25T00:00:00.000Z',
      endDate: '2026-06-12',
      parent: { sourcedId: 'as-0' },
    });
    expect(session).toEqual(['as-1', '', '', '', '', '2025-08-25', '2026-06-12', 'as-0', '']);
  });

  it('enrollments and demographics name the references that follow a left-out record', () => {
    const enrollments = file('1.1', 'bulk', 'enrollments.csv');
    expect(enrollments.requires.map((i) => enrollments.header[i])).toEqual([
      'classSourcedId',
      'userSourcedId',
      'schoolSourcedId',
    ]);
    const demographics = file('1.2', 'bulk', 'demographics.csv');
    expect(demographics.requires.map((i) => demographics.header[i])).toEqual(['sourcedId']);
  });
});

describe('roleRecords (roles.csv from a 1.2 user)', () => {
  it('one row per role, with a stable sourcedId from user, org and role', () => {
    const user = {
      sourcedId: 'tch-9',
      status: 'active',
      roles: [
        { roleType: 'primary', role: 'teacher', org: { sourcedId: 'org-sch-1' }, beginDate: '2025-08-25' },
        { roleType: 'secondary', role: 'teacher', org: { sourcedId: 'org-sch-2' }, userProfile: 'up-1' },
        { roleType: 'secondary', role: 'teacher', org: { sourcedId: 'org-sch-2' } },
      ],
    };
    const roles = file('1.2', 'bulk', 'roles.csv');
    expect(roles.rows(user).map((r) => csvLine(r))).toEqual([
      'tch-9-org-sch-1-teacher,,,tch-9,primary,teacher,2025-08-25,,org-sch-1,\n',
      'tch-9-org-sch-2-teacher,,,tch-9,secondary,teacher,,,org-sch-2,up-1\n',
      'tch-9-org-sch-2-teacher-2,,,tch-9,secondary,teacher,,,org-sch-2,\n',
    ]);
    expect(roleRecords({ sourcedId: 'x' })).toEqual([]);
    expect(roleRecords(null)).toEqual([]);
  });
});

describe('manifestRows', () => {
  it('every file property of the version, bulk for the files written and absent for the rest', () => {
    const rows = manifestRows('1.1', new Set(['orgs.csv', 'users.csv']), 'bulk');
    expect(rows.slice(0, 2)).toEqual([
      ['manifest.version', '1.0'],
      ['oneroster.version', '1.1'],
    ]);
    const fileRows = rows.filter(([k]) => k.startsWith('file.'));
    expect(fileRows).toHaveLength(13);
    expect(fileRows.filter(([, v]) => v === 'bulk').map(([k]) => k)).toEqual(['file.orgs', 'file.users']);
    expect(rows.slice(-2)).toEqual([
      ['source.systemName', 'roster'],
      ['source.systemCode', 'roster'],
    ]);
    const v12 = manifestRows('1.2', new Set(['roles.csv']), 'delta');
    expect(v12.filter(([, v]) => v === 'delta')).toEqual([['file.roles', 'delta']]);
    expect(v12.filter(([k]) => k.startsWith('file.'))).toHaveLength(20);
  });
});
