// A sandbox district that changes: POST /__sandbox/churn over HTTP, the changes as OneRoster reads see
// them, filters comparing dateLastModified as instants, and the Date header every answer carries.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChurnChange } from '../../src/sandbox/oneroster/churn.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { bearer, getToken } from './helpers.js';
import { client, enc, rows } from './oneroster-helpers.js';

let sandbox: Sandbox;
let clock = Date.UTC(2026, 10, 23, 9, 0, 0, 250);
let token: string;
beforeAll(async () => {
  sandbox = await startSandbox({ seed: 3, now: () => clock, oneroster: { students: 40 } });
  token = await getToken(sandbox, 'demo-allowed', '/ims/oneroster/v1p1/token');
});
afterAll(() => sandbox.close());

const read = async (path: string, query = '') => {
  const res = await fetch(`${sandbox.baseUrl}/ims/oneroster/v1p1${path}${query ? `?${query}` : ''}`, {
    headers: bearer(token),
  });
  return { res, body: (await res.json()) as Record<string, Record<string, unknown>[]> };
};
const churn = async (n: string) => fetch(`${sandbox.origin}/__sandbox/churn?n=${n}`, { method: 'POST' });

describe('POST /__sandbox/churn', () => {
  it('makes K changes at once, stamped with the sandbox clock, and reads show exactly them', async () => {
    const since = new Date(clock - 1).toISOString();
    clock += 60_000;
    const res = await churn('25');
    expect(res.status).toBe(200);
    const { changes } = (await res.json()) as { changes: ChurnChange[] };
    // 25 changes; a new student's also lists its new guardians (and a known one a sibling joined).
    const family = new Set(['new-guardian', 'new-child']);
    expect(changes.filter((c) => !family.has(c.change))).toHaveLength(25);
    const kinds = new Set(changes.map((c) => c.change));
    for (const kind of ['name', 'grade', 'new-student', 'new-guardian', 'new-enrollment', 'tobedeleted'])
      expect(kinds).toContain(kind);
    const stamp = new Date(clock).toISOString();
    expect(changes.every((c) => c.dateLastModified === stamp)).toBe(true);

    const filter = `filter=${enc(`dateLastModified>'${since}'`)}&limit=1000`;
    const users = (await read('/users', filter)).body.users ?? [];
    const enrollments = (await read('/enrollments', filter)).body.enrollments ?? [];
    const got = [
      ...users.map((u) => `users/${u.sourcedId}`),
      ...enrollments.map((e) => `enrollments/${e.sourcedId}`),
    ];
    expect(got.sort()).toEqual([...new Set(changes.map((c) => `${c.collection}/${c.sourcedId}`))].sort());
    for (const record of [...users, ...enrollments]) expect(record.dateLastModified).toBe(stamp);
    const deleted = changes.filter((c) => c.change === 'tobedeleted').map((c) => c.sourcedId);
    for (const record of [...users, ...enrollments].filter((r) => deleted.includes(String(r.sourcedId)))) {
      expect(record.status).toBe('tobedeleted');
    }
  });

  it('new students appear in users and students and read by sourcedId; their enrollments name them', async () => {
    clock += 1000;
    const { changes } = (await (await churn('30')).json()) as { changes: ChurnChange[] };
    const added = changes.find((c) => c.change === 'new-student');
    expect(added).toBeDefined();
    const one = await read(`/students/${added?.sourcedId}`);
    expect(one.res.status).toBe(200);
    expect(one.body.user).toMatchObject({ sourcedId: added?.sourcedId, role: 'student' });
    const students = (await read('/students', 'limit=10000')).body.users ?? [];
    expect(students.map((s) => s.sourcedId)).toContain(added?.sourcedId);
    const enrollment = changes.find((c) => c.change === 'new-enrollment');
    const enrolled = await read(`/enrollments/${enrollment?.sourcedId}`);
    expect(enrolled.res.status).toBe(200);
    expect(
      String((enrolled.body.enrollment as unknown as { user: { sourcedId: string } }).user.sourcedId),
    ).toMatch(/^stu-n/);
  });

  it.each(['0', '10001', 'x', ''])('refuses n=%j with 400 and changes nothing', async (n) => {
    const before = (await read('/users', 'limit=1')).res.headers.get('x-total-count');
    const res = await churn(n);
    expect(res.status).toBe(400);
    expect((await read('/users', 'limit=1')).res.headers.get('x-total-count')).toBe(before);
  });

  it('answers 405 to GET', async () => {
    expect((await fetch(`${sandbox.origin}/__sandbox/churn?n=1`)).status).toBe(405);
  });

  it('every answer carries a Date header from the sandbox clock', async () => {
    const { res } = await read('/orgs');
    expect(res.headers.get('date')).toBe(new Date(clock).toUTCString());
  });
});

describe('filters on dateLastModified compare instants', () => {
  const v11 = client('1.1', { students: 40 });
  const count = async (filter: string) =>
    Number((await v11('/students', `filter=${enc(filter)}&limit=1`)).headers?.['X-Total-Count']);
  const first = async () => rows(await v11('/students', 'limit=1'), 'users')[0]?.dateLastModified as string;

  it('> >= < <= agree on one moment written with or without milliseconds', async () => {
    // Compared character by character, '…12.000Z' would sort before '…12Z' and >= would miss the record.
    const at = await first(); // e.g. 2025-09-14T10:11:12.000Z
    const short = at.replace('.000Z', 'Z');
    expect(short).not.toBe(at);
    for (const moment of [at, short]) {
      expect(
        (await count(`dateLastModified>'${moment}'`)) + (await count(`dateLastModified<='${moment}'`)),
      ).toBe(40);
      expect(await count(`dateLastModified>='${moment}'`)).toBe(
        (await count(`dateLastModified>'${moment}'`)) + 1,
      );
      expect(
        (await count(`dateLastModified<'${moment}'`)) + (await count(`dateLastModified>='${moment}'`)),
      ).toBe(40);
    }
  });

  it('a date alone is its midnight UTC, an offset is honoured', async () => {
    expect(await count("dateLastModified>'2025-10-01'")).toBe(
      await count("dateLastModified>'2025-10-01T00:00:00Z'"),
    );
    expect(await count("dateLastModified>'2025-10-01T02:00:00+02:00'")).toBe(
      await count("dateLastModified>'2025-10-01T00:00:00Z'"),
    );
  });

  it('answers 400 for a value that is not a date-time', async () => {
    const res = await v11('/students', `filter=${enc("dateLastModified>'yesterday'")}`);
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain('not an ISO 8601 date');
  });
});
