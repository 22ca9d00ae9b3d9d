// The sandbox's academic sessions over HTTP: the school year containing today by the sandbox's own clock
// (its `clock` quirk included), its terms and grading periods inside it, whatever the day. What is expected
// is docs/sandbox.md's rule (July 1 to June 30, named after its years), computed here, never by the sandbox.
import { afterEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { sandboxSchoolYear } from '../helpers/sandbox.js';
import { getToken } from './helpers.js';

interface Session {
  sourcedId: string;
  type: string;
  startDate: string;
  endDate: string;
  parent?: { sourcedId: string };
  schoolYear: string;
}

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

async function sessions(sb: Sandbox, version: 'v1p1' | 'v1p2'): Promise<Session[]> {
  const token = await getToken(sb, 'demo-allowed', `/ims/oneroster/${version}/token`);
  const res = await fetch(`${sb.baseUrl}/ims/oneroster/${version}/academicSessions`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { academicSessions: Session[] }).academicSessions;
}

/** Every session ends after it starts and lies inside its parent; one school year contains `day`. */
function expectConsistent(list: Session[], day: string): void {
  const byId = new Map(list.map((s) => [s.sourcedId, s]));
  const years = list.filter((s) => s.type === 'schoolYear');
  expect(years).toHaveLength(1);
  expect(years[0]!.startDate <= day && day <= years[0]!.endDate).toBe(true);
  expect(list.filter((s) => s.type === 'term')).toHaveLength(2);
  expect(list.filter((s) => s.type === 'gradingPeriod')).toHaveLength(4);
  for (const s of list) {
    expect(s.startDate < s.endDate, s.sourcedId).toBe(true);
    if (s.type === 'schoolYear') continue;
    const parent = byId.get(s.parent?.sourcedId ?? '');
    expect(parent?.type, s.sourcedId).toBe(s.type === 'term' ? 'schoolYear' : 'term');
    expect(parent!.startDate <= s.startDate && s.endDate <= parent!.endDate, s.sourcedId).toBe(true);
  }
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

describe('the sandbox school year', () => {
  it('is the one containing today, in 1.1 and 1.2, its terms and grading periods inside it', async () => {
    sandbox = await startSandbox({ oneroster: { students: 10 } });
    const today = day(Date.now());
    const { year } = sandboxSchoolYear(today);
    for (const version of ['v1p1', 'v1p2'] as const) {
      const list = await sessions(sandbox, version);
      expect(list.map((s) => s.sourcedId)).toEqual([
        year,
        `${year}-t1`,
        `${year}-t2`,
        `${year}-gp1`,
        `${year}-gp2`,
        `${year}-gp3`,
        `${year}-gp4`,
      ]);
      expectConsistent(list, today);
    }
  });

  it("follows the sandbox's clock (the clock quirk): 400 days ahead, the school year of that day", async () => {
    const ahead = 400 * 86_400_000;
    sandbox = await startSandbox({ oneroster: { students: 10 }, quirks: { clockOffsetMs: ahead } });
    const then = day(Date.now() + ahead);
    const list = await sessions(sandbox, 'v1p2');
    expect(list[0]?.sourcedId).toBe(sandboxSchoolYear(then).year);
    expect(list[0]?.sourcedId).not.toBe(sandboxSchoolYear(day(Date.now())).year);
    expectConsistent(list, then);
  });

  it.each(['2027-01-01', '2027-06-30', '2027-07-01', '2028-02-29', '2028-12-31'])(
    'on %s: a school year containing it, consistent inside',
    async (today) => {
      sandbox = await startSandbox({ oneroster: { students: 10, today } });
      const list = await sessions(sandbox, 'v1p1');
      expect(list[0]?.sourcedId).toBe(sandboxSchoolYear(today).year);
      // 1.1 schoolYear: the year the school year ends in.
      expect(new Set(list.map((s) => s.schoolYear))).toEqual(new Set([list[0]!.endDate.slice(0, 4)]));
      expectConsistent(list, today);
    },
  );
});
