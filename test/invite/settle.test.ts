// settle.ts's judgement of the server's list for one invitation: what settles it as sent, what settles
// nothing (last year's invitation, another school or year), and what makes the list unusable.
import { describe, expect, it } from 'vitest';
import { type Asked, judge } from '../../src/invite/settle.js';

const SINCE = Date.parse('2026-09-01T10:00:00Z');
const asked: Asked = { email: 'Parent@Example.org', schoolId: 'sch-1', schoolYearId: '2026', since: SINCE };
const record = (fields: Record<string, unknown>) => ({
  id: 'inv-1',
  email: 'parent@example.org',
  schoolId: 'sch-1',
  schoolYearId: '2026',
  createdAt: '2026-09-01T10:00:01Z',
  ...fields,
});

describe('judge', () => {
  it('settles an invitation listed for the e-mail (any case), school and year, created after the request', () => {
    expect(judge([record({})], asked, SINCE)).toEqual({
      kind: 'created',
      id: 'inv-1',
      createdAt: '2026-09-01T10:00:01.000Z',
    });
  });

  it("settles nothing with last year's invitation to the same family, or another school's or year's", () => {
    const older = record({ createdAt: '2025-09-01T10:00:00Z' });
    expect(judge([older], asked, SINCE)).toEqual({ kind: 'not-listed' });
    expect(judge([record({ schoolId: 'sch-2' })], asked, SINCE)).toEqual({ kind: 'not-listed' });
    expect(judge([record({ schoolYearId: '2025' })], asked, SINCE)).toEqual({ kind: 'not-listed' });
    expect(judge([], asked, SINCE)).toEqual({ kind: 'not-listed' });
  });

  it('takes a record without a creation time or a school year as it stands (the spec leaves them open)', () => {
    const bare = { email: 'parent@example.org', schoolId: 'sch-1' };
    expect(judge([bare], asked, SINCE)).toEqual({ kind: 'created' });
    expect(judge([record({ schoolYearId: null })], asked, SINCE).kind).toBe('created');
  });

  it('is unusable when the server ignores the e-mail filter or its records name no e-mail or school', () => {
    expect(judge([record({ email: 'other@example.org' })], asked, SINCE)).toEqual({
      kind: 'unusable',
      why: 'it ignores the email filter of its list: it listed other addresses',
    });
    expect(judge([{ id: 'x', status: 'sent' }], asked, SINCE)).toEqual({
      kind: 'unusable',
      why: 'its invitation records carry no e-mail or school (the spec leaves their fields open)',
    });
  });

  it('reads hostile fields as missing, never as a match', () => {
    expect(judge([record({ email: 'parent@example.org\u202e' })], asked, SINCE).kind).toBe('unusable');
    expect(judge([record({ schoolId: { toString: 'sch-1' } })], asked, SINCE).kind).toBe('unusable');
  });
});
