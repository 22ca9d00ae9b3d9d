// Where a OneRoster answer keeps its data: the standard's key, else the one named after the path; both or
// neither is refused.
import { describe, expect, it } from 'vitest';
import { describeKey, listWrapper, recordWrapper, unwrap } from '../../src/oneroster/wrappers.js';

const WHERE = 'Reading students: the server answered HTTP 200';

describe('listWrapper and recordWrapper', () => {
  it('name the list after the last path segment and the record after its singular', () => {
    expect(listWrapper('users', '/ims/oneroster/v1p1/students')).toEqual({
      spec: 'users',
      named: 'students',
      shape: 'list',
    });
    expect(listWrapper('users', '/v1p1/schools/org%2F1/students/').named).toBe('students');
    expect(listWrapper('academicSessions', '/x/terms/t1/gradingPeriods').named).toBe('gradingPeriods');
    expect(
      [
        'students',
        'teachers',
        'users',
        'schools',
        'orgs',
        'classes',
        'courses',
        'enrollments',
        'academicSessions',
        'terms',
        'gradingPeriods',
        'demographics',
      ].map((path) => recordWrapper('x', path).named),
    ).toEqual([
      'student',
      'teacher',
      'user',
      'school',
      'org',
      'class',
      'course',
      'enrollment',
      'academicSession',
      'term',
      'gradingPeriod',
      'demographic',
    ]);
  });
});

describe('unwrap', () => {
  const students = listWrapper('users', '/v1p1/students');
  const student = recordWrapper('user', 'students');

  it("takes the standard's key, else the one named after the path", () => {
    expect(unwrap({ users: [1] }, students, WHERE)).toEqual({ key: 'users', value: [1] });
    expect(unwrap({ students: [1], statusInfoSet: [] }, students, WHERE)).toEqual({
      key: 'students',
      value: [1],
    });
    expect(unwrap({ user: { a: 1 } }, student, WHERE)).toEqual({ key: 'user', value: { a: 1 } });
    expect(unwrap({ student: { a: 1 } }, student, WHERE)).toEqual({ key: 'student', value: { a: 1 } });
  });

  it('refuses a body with both keys, whatever their values', () => {
    for (const body of [
      { users: [], students: [1] },
      { users: [1], students: [] },
      { users: null, students: [1] },
    ]) {
      expect(() => unwrap(body, students, WHERE)).toThrow(
        'Reading students: the server answered HTTP 200 with both a "users" and a "students" list: roster cannot tell which one is the answer',
      );
    }
    expect(() => unwrap({ user: {}, student: {} }, student, WHERE)).toThrow(
      /with both a "user" and a "student" record/,
    );
  });

  it('refuses a body with neither, or the key holding the wrong shape, and says what it found', () => {
    const cases: [unknown, string][] = [
      [{ orgs: [] }, 'without a "users" or "students" list (keys: orgs)'],
      [{ students: {} }, 'without a "users" or "students" list (keys: students)'],
      [{ users: 'no' }, 'without a "users" or "students" list (keys: users)'],
      [{}, 'without a "users" or "students" list (keys: none)'],
      [undefined, 'without a "users" or "students" list (not JSON)'],
      [[], 'without a "users" or "students" list (a JSON array)'],
      [null, 'without a "users" or "students" list (a JSON null)'],
    ];
    for (const [body, message] of cases) {
      expect(() => unwrap(body, students, WHERE), JSON.stringify(body)).toThrow(`${WHERE} ${message}`);
    }
    expect(() => unwrap({ student: [] }, student, WHERE)).toThrow(
      'without a "user" or "student" record (keys: student)',
    );
    // A record list does not stand for a single read, nor the plural for the singular.
    expect(() => unwrap({ students: [{}] }, student, WHERE)).toThrow(/without a "user" or "student" record/);
  });

  it('names one key when the path is named like the standard (classes)', () => {
    const classes = listWrapper('classes', '/v1p1/schools/s1/classes');
    expect(unwrap({ classes: [] }, classes, WHERE).key).toBe('classes');
    expect(() => unwrap({ class: [] }, classes, WHERE)).toThrow(/without a "classes" list \(keys: class\)/);
  });

  it('describes the key for --debug', () => {
    expect(describeKey(students, 'users')).toBe('under "users"');
    expect(describeKey(students, 'students')).toBe(
      `under "students", named after the path (the standard's key is "users")`,
    );
  });
});
