// A server that serves new records forever (every page full, with a next link, of records never served
// before) is read up to --max-records / ROSTER_MAX_RECORDS, then the read stops with an error that names the
// ceiling and how to raise it (exit 1). The server is an HttpMock whose lists never end; the requests are
// counted there. Each run is in this process.
import { describe, expect, it } from 'vitest';
import type { HttpRequest } from '../../../src/api/transport.js';
import { tempDir } from '../../helpers/context.js';
import { json, type Reply, useHttpMock } from '../../helpers/http-mock.js';
import { rosterInProcess } from '../../helpers/main.js';
import { CLIENT, DISTRICT, tokenEndpoints } from '../../helpers/mock-district.js';

const mock = useHttpMock();
const ONEROSTER = '/v1/ims/oneroster/v1p1';
const env = (extra: Record<string, string> = {}) => ({
  ROSTER_BASE_URL: DISTRICT,
  ROSTER_CLIENT_ID: CLIENT.id,
  ROSTER_CLIENT_SECRET: CLIENT.secret,
  ...extra,
});
const roster = (argv: string[], extra: Record<string, string> = {}) =>
  rosterInProcess(argv, { env: env(extra), transport: mock.http });
const reads = (path: string) => mock.http.requests.filter((r) => r.method === 'GET' && r.url.includes(path));
const lines = (text: string) => text.split('\n').filter((line) => line !== '');

/** A OneRoster page of records n … n+limit-1 (record(i)), with a next link when `more`. */
function page(request: HttpRequest, key: string, record: (i: number) => object, more: boolean): Reply {
  const url = new URL(request.url);
  const offset = Number(url.searchParams.get('offset') ?? 0);
  const limit = Number(url.searchParams.get('limit') ?? 100);
  const next = new URL(url);
  next.searchParams.set('offset', String(offset + limit));
  const rows = Array.from({ length: limit }, (_, i) => record(offset + i));
  return json({ [key]: rows }, 200, more ? { link: `<${next.href}>; rel="next"` } : {});
}

/** `collection` (a path below OneRoster 1.1's) serves new records forever. */
function endless(collection: string | RegExp, key: string, record: (i: number) => object): void {
  const path = typeof collection === 'string' ? `${ONEROSTER}/${collection}` : collection;
  mock.http.register({ method: 'GET', path }, (r) => page(r, key, record, true), { times: Infinity });
}

/** The server's invitation list never ends either: every page full, its meta always one page more. */
function endlessInvitations(): void {
  mock.http.register(
    { method: 'GET', path: '/v1/enrollment/invitations' },
    (r) => {
      const query = new URL(r.url).searchParams;
      const number = Number(query.get('page') ?? 1);
      const perPage = Number(query.get('perPage') ?? 20);
      const data = Array.from({ length: perPage }, (_, i) => {
        const n = (number - 1) * perPage + i;
        return {
          id: `inv-${n}`,
          email: `family-${n}@endless.example`,
          schoolId: 'org-sch-1',
          status: 'sent',
        };
      });
      return json({ data, meta: { page: number, perPage, total: (number + 1) * perPage } });
    },
    { times: Infinity },
  );
}

const student = (i: number) => ({
  sourcedId: `stu-${i}`,
  status: 'active',
  givenName: 'Pat',
  familyName: `Endless${i}`,
  role: 'student',
});
const org = (i: number) => ({ sourcedId: `org-${i}`, status: 'active', name: `Org ${i}`, type: 'school' });

describe('a list that never ends', () => {
  it('roster students --all stops at ROSTER_MAX_RECORDS: exactly that many written, one page more asked, exit 1', async () => {
    tokenEndpoints(mock.http);
    endless('students', 'users', student);
    const result = await roster(['roster', 'students', '--all', '--page-size', '100', '--ndjson'], {
      ROSTER_MAX_RECORDS: '500',
    });
    expect(result.code).toBe(1);
    const ids = lines(result.stdout).map((line) => JSON.parse(line).sourcedId);
    expect(ids).toHaveLength(500);
    expect(new Set(ids).size).toBe(500);
    // Five full pages, then the sixth shows the list goes on.
    expect(reads('/students')).toHaveLength(6);
    expect(result.stderr).toContain(
      'Reading students: stopped at 500 records, the ceiling of one read, and the server still serves more',
    );
    expect(result.stderr).toMatch(/raise the ceiling with --max-records N or ROSTER_MAX_RECORDS=N/);
  });

  it('--max-records wins over the variable', async () => {
    tokenEndpoints(mock.http);
    endless('students', 'users', student);
    const result = await roster(
      ['roster', 'students', '--all', '--page-size', '100', '--json', '--max-records', '200'],
      { ROSTER_MAX_RECORDS: '500' },
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('stopped at 200 records');
    expect(reads('/students')).toHaveLength(3);
    // The JSON array is left open: an incomplete read cannot pass for a complete one.
    expect(() => JSON.parse(result.stdout)).toThrow();
  });

  it('a list exactly as long as the ceiling is complete (the read ends on the empty page after it)', async () => {
    tokenEndpoints(mock.http);
    mock.http.register(
      { method: 'GET', path: `${ONEROSTER}/students` },
      (r) => {
        const offset = Number(new URL(r.url).searchParams.get('offset') ?? 0);
        return json({ users: offset < 120 ? Array.from({ length: 60 }, (_, i) => student(offset + i)) : [] });
      },
      { times: Infinity },
    );
    const result = await roster([
      'roster',
      'students',
      '--all',
      '--page-size',
      '60',
      '--ndjson',
      '--max-records',
      '120',
    ]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(lines(result.stdout)).toHaveLength(120);
  });

  it('roster invite list --all stops at the ceiling too: exit 1, the message, pages counted', async () => {
    tokenEndpoints(mock.http);
    endlessInvitations();
    const result = await roster(['invite', 'list', '--all', '--per-page', '100', '--ndjson'], {
      ROSTER_MAX_RECORDS: '300',
    });
    expect(result.code).toBe(1);
    expect(lines(result.stdout)).toHaveLength(300);
    expect(reads('/enrollment/invitations')).toHaveLength(4);
    expect(result.stderr).toContain('Reading invitations: stopped at 300 records');
    expect(result.stderr).not.toMatch(/repeats/);
  });

  it('roster roster export stops at the first collection that reaches it, exit 1', async () => {
    tokenEndpoints(mock.http);
    endless(/\/ims\/oneroster\/v1p1\/\w+\?/, 'orgs', org);
    const result = await roster(['roster', 'export', '--out', tempDir(), '--page-size', '100'], {
      ROSTER_MAX_RECORDS: '250',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/stopped at 250 records, the ceiling of one read/);
    expect(reads('/ims/oneroster/')).toHaveLength(3);
  });

  it('roster roster audit stops at it too (it read up to the default ten million before), exit 1', async () => {
    tokenEndpoints(mock.http);
    endless('orgs', 'orgs', org);
    const result = await roster(['roster', 'audit', '--check', 'org-cycle', '--page-size', '100'], {
      ROSTER_MAX_RECORDS: '250',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/Reading orgs: stopped at 250 records, the ceiling of one read/);
    expect(reads('/orgs')).toHaveLength(3);
  });

  it('invite plan: the students read stops at the ceiling, and so do the schools and invitations it checks', async () => {
    tokenEndpoints(mock.http);
    endless('schools', 'orgs', (i) => (i === 0 ? { ...org(0), sourcedId: 'org-sch-1' } : org(i)));
    endless('schools/org-sch-1/students', 'users', student);
    endlessInvitations();
    const result = await roster(['invite', 'plan', '--school', 'org-sch-1'], { ROSTER_MAX_RECORDS: '300' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'Error: Reading the students of org-sch-1: stopped at 300 records, the ceiling of one read',
    );
    // The schools directory and the server's invitation list are checks: each stops at the ceiling too
    // and the plan says what it could not check.
    expect(result.stderr).toMatch(/could not read the district's schools .*stopped at 300 records/);
    expect(result.stdout).toBe('');
    for (const path of ['/schools?', '/enrollment/invitations']) {
      expect(reads(path).length, path).toBeLessThanOrEqual(301);
    }
    expect(mock.http.requests.filter((r) => r.method === 'POST' && !r.url.endsWith('/token'))).toEqual([]);
  });

  it.each([
    ['0', 'ROSTER_MAX_RECORDS'],
    ['ten', 'ROSTER_MAX_RECORDS'],
    ['1e6', 'ROSTER_MAX_RECORDS'],
  ])('ROSTER_MAX_RECORDS=%s is a usage error naming %s, nothing sent', async (value, source) => {
    const result = await roster(['roster', 'students', '--all'], { ROSTER_MAX_RECORDS: value });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`Invalid record ceiling "${value}" from ${source}`);
    expect(mock.http.requests).toHaveLength(0);
  });
});
