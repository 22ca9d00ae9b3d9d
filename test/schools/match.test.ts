// The rules that turn a typed school into a sourcedId (src/schools/match.ts), on a hand-made district.
import { describe, expect, it } from 'vitest';
import { describeSchool, matchSchool, refusal, type School } from '../../src/schools/match.js';
import { schoolChoices } from '../../src/schools/picker.js';

const school = (sourcedId: string, name: string, identifier = '', status = 'active'): School => ({
  sourcedId,
  name,
  identifier,
  status,
});
const DISTRICT = [
  school('s-1', 'Lincoln Elementary', 'NCES-1'),
  school('s-2', 'Lincoln Middle', 'NCES-2'),
  school('s-3', 'Twin Oaks', 'NCES-3'),
  school('s-4', 'twin  oaks', 'NCES-4'),
  // A name that spells another school's sourcedId: the sourcedId wins.
  school('s-5', 's-1', 'NCES-5'),
  school('s-6', 'Closed Academy', 'NCES-6', 'tobedeleted'),
  school('s-7', 'École Saint-Éloi', 'NCES-7'),
];

const found = (value: string) => {
  const match = matchSchool(value, DISTRICT);
  return match.kind === 'school' ? [match.school.sourcedId, match.by] : match.kind;
};

describe('matchSchool', () => {
  it('takes a sourcedId as given (exact, trimmed), before any name or identifier that spells it', () => {
    expect(found('s-1')).toEqual(['s-1', 'sourcedId']);
    expect(found(' s-2 ')).toEqual(['s-2', 'sourcedId']);
    // sourcedIds are case-sensitive: "S-1" is not s-1's sourcedId, but it is s-5's name.
    expect(found('S-1')).toEqual(['s-5', 'name']);
    expect(found('S-2')).toBe('unknown');
  });

  it('matches a name or identifier exactly, in any case, with runs of spaces as one', () => {
    expect(found('lincoln elementary')).toEqual(['s-1', 'name']);
    expect(found('  LINCOLN   Middle ')).toEqual(['s-2', 'name']);
    expect(found('nces-3')).toEqual(['s-3', 'identifier']);
    // Composed and decomposed accents are the same name.
    expect(found('e\u0301cole saint-e\u0301loi')).toEqual(['s-7', 'name']);
  });

  it('never matches by prefix or likeness', () => {
    expect(found('Lincoln')).toBe('unknown');
    expect(found('Lincoln Elementary School')).toBe('unknown');
  });

  it('refuses a name two schools share, listing both', () => {
    const match = matchSchool('Twin Oaks', DISTRICT);
    expect(match.kind).toBe('ambiguous');
    expect(match.kind === 'ambiguous' && refusal(match)).toBe(
      'matches 2 schools: Twin Oaks (identifier NCES-3, sourcedId s-3); twin  oaks (identifier NCES-4, sourcedId s-4)',
    );
  });

  it('leaves schools to be deleted out of names, but accepts their sourcedId', () => {
    expect(found('Closed Academy')).toBe('unknown');
    expect(found('s-6')).toEqual(['s-6', 'sourcedId']);
  });

  it('suggests the schools whose name contains an unknown value, at most five', () => {
    const match = matchSchool('lincoln', DISTRICT);
    expect(match.kind === 'unknown' && match.near.map((s) => s.sourcedId)).toEqual(['s-1', 's-2']);
    expect(matchSchool('', DISTRICT)).toEqual({ kind: 'unknown', near: [] });
  });

  it('prints hostile server text safely', () => {
    expect(describeSchool(school('x\u001b[31m', 'Evil\u001b]0;title\u0007', 'id\n2'))).toBe(
      'Evil\\u001b]0;title\\u0007 (identifier id\\n2, sourcedId x\\u001b[31m)',
    );
  });
});

describe('schoolChoices (the picker)', () => {
  const names = (typed: string) => schoolChoices(DISTRICT, typed).map((c) => c.name);

  it('offers every school for empty text, and the schools holding the text in a name, identifier or sourcedId, then the text', () => {
    expect(names('')).toHaveLength(DISTRICT.length);
    expect(names('middle')).toEqual(['Lincoln Middle  ·  NCES-2  ·  s-2', 'Use "middle" as typed']);
    expect(names('nces-4')).toEqual(['twin  oaks  ·  NCES-4  ·  s-4', 'Use "nces-4" as typed']);
    expect(names('nowhere')).toEqual(['Use "nowhere" as typed']);
    expect(schoolChoices(DISTRICT, ' s-3 ').at(-1)?.value).toBe('s-3');
  });
});
