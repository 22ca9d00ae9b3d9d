import { describe, expect, it } from 'vitest';
import { parseCsv } from '../../src/invite/csv.js';
import { invitationKey } from '../../src/invite/invitation.js';
import { inviteCsv, keyHash, readInviteFile } from '../../src/invite/invite-file.js';

const fill = { scopes: 'fillEnrollment', studentCount: '1' };

describe('readInviteFile', () => {
  it('maps header names loosely, fills absent columns and empty cells from the per-run values', async () => {
    const text = '\ufeffEmail,school_id,Student Count,sentByUserId\r\na@x.org,s1,2,\r\nb@x.org,,,u9\r\n\r\n';
    const result = await readInviteFile(text, { ...fill, schoolId: 'default-school', sentByUserId: 'u1' });
    expect(result).toEqual({
      ok: true,
      rows: [
        {
          line: 2,
          body: {
            email: 'a@x.org',
            schoolId: 's1',
            scopes: ['fillEnrollment'],
            studentCount: 2,
            sentByUserId: 'u1',
          },
        },
        {
          line: 3,
          body: {
            email: 'b@x.org',
            schoolId: 'default-school',
            scopes: ['fillEnrollment'],
            studentCount: 1,
            sentByUserId: 'u9',
          },
        },
      ],
    });
  });

  it('reports every bad row with its line number, duplicates included', async () => {
    const text = [
      'email,schoolId,studentCount,sentByUserId',
      'good@x.org,s1,1,u1',
      'bad-address,s1,1,u1',
      '"multi',
      'line@x.org",s1,1,u1',
      'good@x.org,s2,1,u1',
      'GOOD@x.org,s1,1,u1',
      'c@x.org,s1,0,u1',
      'd@x.org,s1',
      '',
    ].join('\n');
    const result = await readInviteFile(text, fill);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems.map((p) => p.line)).toEqual([3, 4, 7, 8, 9]);
    expect(result.problems.find((p) => p.line === 7)?.reason).toBe(
      'duplicate of line 2 (same email GOOD@x.org and schoolId s1)',
    );
    expect(result.problems.find((p) => p.line === 9)?.reason).toBe('2 fields, but the header has 4');
  });

  it('rows whose keys share a hash are told apart: only the same e-mail and school is a duplicate', async () => {
    // Two addresses whose keys collide (a 30-bit hash: one pair in tens of thousands is expected).
    const seen = new Map<number, string>();
    let pair: [string, string] | undefined;
    for (let i = 0; !pair; i++) {
      const email = `p${i}@x.org`;
      const hash = keyHash(invitationKey(email, 's1'));
      const other = seen.get(hash);
      if (other) pair = [other, email];
      else seen.set(hash, email);
    }
    const [a, b] = pair;
    const text = `email,schoolId,studentCount,sentByUserId\n${a},s1,1,u1\n${b},s1,1,u1\n${b},s1,2,u1\n`;
    const result = await readInviteFile(text, fill);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems).toEqual([
      { line: 4, reason: `duplicate of line 3 (same email ${b} and schoolId s1)` },
    ]);
    const apart = await readInviteFile(text.split('\n').slice(0, 3).join('\n'), fill);
    expect(apart.ok && apart.rows.map((r) => r.body.email)).toEqual([a, b]);
  });

  it('a missing required column is said once, and the rows are still checked', async () => {
    const result = await readInviteFile('email,schoolId,oops\na@x.org,s1,1\nbad,s1,1\n', fill);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems).toEqual([
      { line: 1, reason: expect.stringContaining('unknown column "oops"') },
      { line: 1, reason: 'no sentByUserId column and no --sent-by-user-id given' },
      { line: 3, reason: 'email "bad" is not a valid e-mail address' },
    ]);
  });

  it('an empty file or a header alone is refused', async () => {
    expect(await readInviteFile('', fill)).toEqual({
      ok: false,
      problems: [{ line: 1, reason: 'the file is empty' }],
    });
    expect(await readInviteFile('email,schoolId,sentByUserId\n', fill)).toEqual({
      ok: false,
      problems: [{ line: 1, reason: 'no rows after the header' }],
    });
  });

  it('inviteCsv writes rows that read back to the same bodies', async () => {
    const body = {
      email: 'a@x.org',
      schoolId: 's,1',
      scopes: ['fillEnrollment'],
      studentCount: 2,
      schoolYearId: '"2026"',
      sentByUserId: 'u1',
    };
    const text = inviteCsv([body]);
    expect((await parseCsv(text)).records[0]?.fields).toEqual([
      'email',
      'schoolId',
      'scopes',
      'interestFormSubmissionId',
      'studentCount',
      'learningCenterId',
      'schoolYearId',
      'sentByUserId',
    ]);
    expect(await readInviteFile(text, fill)).toEqual({ ok: true, rows: [{ line: 2, body }] });
  });

  it("inviteCsv (the failed-rows CSV) shows a server's control characters escaped in every name, never raw", () => {
    const hostile = '\u001b]52;c;eA==\u0007\u001b[2J\u009b31m';
    const shown = '\\u001b]52;c;eA==\\u0007\\u001b[2J\\u009b31m';
    const body = {
      email: 'a@x.org',
      schoolId: 'sch-1',
      scopes: ['fillEnrollment'],
      studentCount: 1,
      sentByUserId: 'u1',
    };
    const info = {
      guardianNames: `Mum${hostile}`,
      schoolName: `Alder${hostile}`,
      studentNames: `Kid${hostile}`,
    };
    const text = inviteCsv([body], ['guardianNames', 'schoolName', 'studentNames'], [info]);
    expect(text.split('\r\n')[1]).toBe(
      `a@x.org,sch-1,fillEnrollment,,1,,,u1,Mum${shown},Alder${shown},Kid${shown}`,
    );
    expect(text).not.toMatch(/[\u0000-\u0009\u000b\u000c\u000e-\u001f\u007f-\u009f]/);
  });
});
