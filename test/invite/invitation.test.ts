import { describe, expect, it } from 'vitest';
import { isValidEmail, validateInvitation } from '../../src/invite/invitation.js';

const base = {
  email: 'parent@example.org',
  schoolId: 'sch-1',
  scopes: 'fillEnrollment',
  studentCount: '1',
  sentByUserId: 'usr-1',
};

describe('validateInvitation', () => {
  it('builds the body with the spec names and JSON types, optional fields left out', () => {
    const result = validateInvitation({ ...base, studentCount: '3', schoolYearId: ' 2026 ' });
    expect(result).toEqual({
      ok: true,
      body: {
        email: 'parent@example.org',
        schoolId: 'sch-1',
        scopes: ['fillEnrollment'],
        studentCount: 3,
        schoolYearId: '2026',
        sentByUserId: 'usr-1',
      },
    });
  });

  it('reports every bad field at once', () => {
    const result = validateInvitation({ email: 'nope', scopes: 'fillEnrollment, admin', studentCount: '0' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems.map((p) => p.field)).toEqual([
      'email',
      'schoolId',
      'sentByUserId',
      'scopes',
      'studentCount',
    ]);
    expect(result.problems.find((p) => p.field === 'scopes')?.reason).toContain('"admin"');
  });

  it.each(['0', '-1', 'abc', '1.5', '', '1e3', '99999999999'])(
    'studentCount %j is refused',
    (studentCount) => {
      expect(validateInvitation({ ...base, studentCount }).ok).toBe(false);
    },
  );

  it('refuses control characters in identifiers', () => {
    expect(validateInvitation({ ...base, learningCenterId: 'a\nb' }).ok).toBe(false);
  });

  it.each([
    ['parent@example.org', true],
    ['first.last+tag@school.k12.us', true],
    ['no-at-sign', false],
    ['two@@example.org', false],
    ['trailing.dot.@example.org', false],
    ['Name <a@example.org>', false],
    ['a@localhost', false],
  ])('isValidEmail(%j) is %s', (email, valid) => {
    expect(isValidEmail(email)).toBe(valid);
  });
});
