// Cells from records of either version and of servers that bend the standard.
import { describe, expect, it } from 'vitest';
import { columnValues } from '../../src/oneroster/records.js';

const ref = (sourcedId: string, type = 'org') => ({ href: `https://h/${sourcedId}`, sourcedId, type });

const user11 = {
  sourcedId: 'stu-1',
  status: 'active',
  enabledUser: true,
  givenName: 'Zoë',
  familyName: 'Åkesson',
  middleName: null,
  role: 'student',
  userIds: [{ type: 'studentNumber', identifier: '100001' }],
  orgs: [ref('org-sch-1'), ref('org-sch-2')],
  agents: [ref('usr-9', 'user')],
  grades: ['02'],
  unknownKey: { anything: 1 },
};

const user12 = {
  sourcedId: 'stu-1',
  enabledUser: 'false',
  givenName: 'Zoë',
  preferredFirstName: 'Zo',
  roles: [
    { roleType: 'secondary', role: 'aide', org: ref('org-sch-2') },
    { roleType: 'primary', role: 'student', org: ref('org-sch-1') },
  ],
  primaryOrg: ref('org-sch-1'),
  userIds: [],
};

describe('columnValues', () => {
  it('reads 1.1 users: role, orgs, userIds as {type:identifier}, agents, nulls', () => {
    expect(columnValues(user11, 'enabledUser')).toEqual(['true']);
    expect(columnValues(user11, 'role')).toEqual(['student']);
    expect(columnValues(user11, 'orgSourcedIds')).toEqual(['org-sch-1', 'org-sch-2']);
    expect(columnValues(user11, 'userIds')).toEqual(['{studentNumber:100001}']);
    expect(columnValues(user11, 'agentSourcedIds')).toEqual(['usr-9']);
    expect(columnValues(user11, 'middleName')).toEqual([]);
    expect(columnValues(user11, 'orgs')).toEqual(['org-sch-1', 'org-sch-2']);
    expect(columnValues(user11, 'unknownKey')).toEqual(['{"anything":1}']);
    expect(columnValues(user11, 'nothingHere')).toEqual([]);
  });

  it('reads 1.2 users: enabledUser strings, roles[], primaryOrg, preferred names', () => {
    expect(columnValues(user12, 'enabledUser')).toEqual(['false']);
    expect(columnValues({ enabledUser: 'TRUE' }, 'enabledUser')).toEqual(['true']);
    expect(columnValues(user12, 'role')).toEqual(['student']);
    expect(columnValues(user12, 'orgSourcedIds')).toEqual(['org-sch-2', 'org-sch-1']);
    expect(columnValues(user12, 'primaryOrgSourcedId')).toEqual(['org-sch-1']);
    expect(columnValues(user12, 'preferredGivenName')).toEqual(['Zo']);
    expect(columnValues(user12, 'roles.role')).toEqual(['aide', 'student']);
    expect(columnValues(user12, 'userIds')).toEqual([]);
  });

  it('maps the CSV binding reference columns of other records', () => {
    const cls = {
      sourcedId: 'cls-1',
      course: ref('crs-1', 'course'),
      terms: [ref('t1'), ref('t2')],
      periods: '1',
    };
    expect(columnValues(cls, 'courseSourcedId')).toEqual(['crs-1']);
    expect(columnValues(cls, 'termSourcedIds')).toEqual(['t1', 't2']);
    expect(columnValues(cls, 'course')).toEqual(['crs-1']);
    expect(columnValues(cls, 'periods')).toEqual(['1']);
    expect(columnValues({ primary: 'TRUE' }, 'primary')).toEqual(['true']);
    expect(columnValues({ primary: false }, 'primary')).toEqual(['false']);
    expect(columnValues(null, 'sourcedId')).toEqual([]);
    expect(columnValues('text', 'sourcedId')).toEqual([]);
  });
});
