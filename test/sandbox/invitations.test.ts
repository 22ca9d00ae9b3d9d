import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { bearer, getToken } from './helpers.js';

let sandbox: Sandbox;
let outboxDir: string;
let token: string;
beforeAll(async () => {
  outboxDir = await mkdtemp(join(tmpdir(), 'roster-outbox-'));
  sandbox = await startSandbox({ seed: 3, outboxDir });
  token = await getToken(sandbox, 'demo-allowed', '/ims/oneroster/v1p1/token');
});
afterAll(async () => {
  await sandbox.close();
  await rm(outboxDir, { recursive: true, force: true });
});

/** The list body, loosely: a 400 has only `message`. */
interface ListBody {
  data: Array<{ id: string; email: string } & Record<string, unknown>>;
  meta: { page: number; perPage: number; total: number; totalPages: number };
  message?: string;
}

const valid = {
  email: 'parent@example.org',
  schoolId: 'sch-1',
  scopes: ['fillEnrollment'],
  studentCount: 2,
  sentByUserId: 'admin-7',
};

function post(body: unknown, auth = token, contentType = 'application/json') {
  return fetch(`${sandbox.baseUrl}/enrollment/invitations`, {
    method: 'POST',
    headers: { ...bearer(auth), 'Content-Type': contentType },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

async function list(query = '', auth = token) {
  const res = await fetch(`${sandbox.baseUrl}/enrollment/invitations${query}`, { headers: bearer(auth) });
  return { status: res.status, body: (await res.json()) as ListBody };
}

describe('POST /enrollment/invitations', () => {
  it('201 with success and message, records the invitation and the token endpoint used', async () => {
    const res = await post({ ...valid, schoolYearId: 'sy-2025', interestFormSubmissionId: 'ifs-9' });
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ success: true, message: 'Invitation sent to parent@example.org' });
    const record = sandbox.invitations().at(-1)!;
    expect(record).toMatchObject({
      ...valid,
      schoolYearId: 'sy-2025',
      interestFormSubmissionId: 'ifs-9',
      learningCenterId: null,
      status: 'sent',
      clientId: 'demo-allowed',
      tokenEndpoint: '/ims/oneroster/v1p1/token',
    });
    expect(record.id).toMatch(/^inv_/);
    expect(Date.parse(record.createdAt)).not.toBeNaN();
  });

  it('puts an e-mail with the enrollment link and guest token into the outbox and an .eml file', async () => {
    const before = sandbox.outbox.length;
    expect((await post({ ...valid, email: 'guardian@example.com' })).status).toBe(201);
    const mail = sandbox.outbox[before]!;
    const record = sandbox.invitations().at(-1)!;
    expect(mail).toMatchObject({ to: 'guardian@example.com', invitationId: record.id });
    expect(mail.subject).toContain('Riverside Unified School District');
    expect(mail.enrollmentLink).toMatch(
      new RegExp(`^${sandbox.origin}/enroll\\?token=gst_[A-Za-z0-9_-]{40,}$`),
    );
    expect(mail.text).toContain(mail.enrollmentLink);

    const files = await readdir(outboxDir);
    const eml = files.find((f) => f.endsWith(`${record.id}.eml`));
    expect(eml).toBeDefined();
    const text = await readFile(join(outboxDir, eml!), 'utf8');
    expect(text).toContain('To: <guardian@example.com>\r\n');
    expect(text).toContain(mail.enrollmentLink);
    expect((await stat(join(outboxDir, eml!))).mode & 0o777).toBe(0o600);

    // The guest token shows up in the outbox only: never in the list or the sandbox's records.
    const guest = mail.enrollmentLink.split('token=')[1]!;
    expect(JSON.stringify((await list()).body)).not.toContain(guest);
    expect(JSON.stringify(sandbox.invitations())).not.toContain(guest);

    const adminOutbox = (await (await fetch(`${sandbox.origin}/__sandbox/outbox`)).json()) as unknown[];
    expect(adminOutbox).toHaveLength(sandbox.outbox.length);
  });

  it('the enrollment link opens its invitation; an unknown guest token does not', async () => {
    expect((await post({ ...valid, email: 'link@example.com' })).status).toBe(201);
    const mail = sandbox.outbox.at(-1)!;
    const page = await fetch(mail.enrollmentLink);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toContain(mail.invitationId);
    expect((await fetch(`${sandbox.origin}/enroll?token=gst_nope`)).status).toBe(404);
  });

  it.each([
    [{ ...valid, email: 'not-an-address' }, /email/],
    [{ ...valid, email: 'Parent <p@example.org>' }, /email/],
    [{ ...valid, email: 'p@example' }, /email/],
    [{ ...valid, email: undefined }, /email is required/],
    [{ ...valid, schoolId: '' }, /schoolId/],
    [{ ...valid, schoolId: 12 }, /schoolId/],
    [{ ...valid, scopes: [] }, /scopes/],
    [{ ...valid, scopes: 'fillEnrollment' }, /scopes/],
    [{ ...valid, scopes: ['readEverything'] }, /scopes/],
    [{ ...valid, studentCount: 0 }, /studentCount/],
    [{ ...valid, studentCount: 21 }, /studentCount/],
    [{ ...valid, studentCount: 1.5 }, /studentCount/],
    [{ ...valid, studentCount: '2' }, /studentCount/],
    [{ ...valid, learningCenterId: 5 }, /learningCenterId/],
    [{ ...valid, schoolYearId: '' }, /schoolYearId/],
    [{ ...valid, interestFormSubmissionId: null }, /interestFormSubmissionId/],
    [{ ...valid, sentByUserId: undefined }, /sentByUserId is required/],
    [{ ...valid, sentByUserId: 'a\nb' }, /sentByUserId/],
    [{ ...valid, student_count: 2 }, /Unknown field "student_count"/],
    [[valid], /JSON object/],
  ])('400 naming the field for %j', async (body, message) => {
    const before = sandbox.outbox.length;
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toMatch(message);
    expect(sandbox.outbox.length).toBe(before);
  });

  it('400 for a body that is not JSON, or not sent as JSON', async () => {
    expect((await post('{"email": ')).status).toBe(400);
    expect((await post(JSON.stringify(valid), token, 'text/plain')).status).toBe(400);
  });

  it('401 without a token, 405 for other methods', async () => {
    const res = await fetch(`${sandbox.baseUrl}/enrollment/invitations`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(401);
    const del = await fetch(`${sandbox.baseUrl}/enrollment/invitations`, {
      method: 'DELETE',
      headers: bearer(token),
    });
    expect(del.status).toBe(405);
    expect(del.headers.get('allow')).toBe('GET, POST');
  });
});

describe('GET /enrollment/invitations', () => {
  let lister: Sandbox;
  let listToken: string;
  beforeAll(async () => {
    lister = await startSandbox({ seed: 4 });
    listToken = await getToken(lister, 'demo-allowed');
    for (let i = 1; i <= 7; i++) {
      const res = await fetch(`${lister.baseUrl}/enrollment/invitations`, {
        method: 'POST',
        headers: { ...bearer(listToken), 'Content-Type': 'application/json' },
        body: JSON.stringify({
          ...valid,
          email: i === 3 ? 'Mixed.Case@Example.org' : `p${i}@example.org`,
          schoolId: i % 2 === 0 ? 'sch-even' : 'sch-odd',
          sentByUserId: i <= 2 ? 'admin-a' : 'admin-b',
        }),
      });
      expect(res.status).toBe(201);
    }
  });
  afterAll(() => lister.close());

  const get = async (query = '', auth?: string) => {
    const res = await fetch(`${lister.baseUrl}/enrollment/invitations${query}`, {
      headers: bearer(auth ?? listToken),
    });
    return { status: res.status, body: (await res.json()) as ListBody };
  };

  it('defaults to page 1 of 25 in creation order, with the record fields', async () => {
    const { status, body } = await get();
    expect(status).toBe(200);
    expect(body.meta).toEqual({ page: 1, perPage: 25, total: 7, totalPages: 1 });
    expect(body.data.map((r) => r.email)).toEqual([
      'p1@example.org',
      'p2@example.org',
      'Mixed.Case@Example.org',
      'p4@example.org',
      'p5@example.org',
      'p6@example.org',
      'p7@example.org',
    ]);
    expect(Object.keys(body.data[0]!).sort()).toEqual(
      [
        'createdAt',
        'email',
        'id',
        'interestFormSubmissionId',
        'learningCenterId',
        'schoolId',
        'schoolYearId',
        'scopes',
        'sentByUserId',
        'status',
        'studentCount',
      ].sort(),
    );
  });

  it('pages with page and perPage; past the end is empty', async () => {
    const pages = await Promise.all([1, 2, 3, 4].map((p) => get(`?page=${p}&perPage=3`)));
    expect(pages.map((p) => p.body.data.length)).toEqual([3, 3, 1, 0]);
    expect(pages[2]!.body.meta).toEqual({ page: 3, perPage: 3, total: 7, totalPages: 3 });
    const ids = pages.flatMap((p) => p.body.data.map((r) => r.id));
    expect(new Set(ids).size).toBe(7);
  });

  it('filters by schoolId, email (case-insensitive) and sentByUserId', async () => {
    expect((await get('?schoolId=sch-even')).body.meta.total).toBe(3);
    const byEmail = await get('?email=mixed.case%40example.ORG');
    expect(byEmail.body.data.map((r) => r.email)).toEqual(['Mixed.Case@Example.org']);
    expect((await get('?sentByUserId=admin-a&schoolId=sch-odd')).body.meta.total).toBe(1);
    expect((await get('?schoolId=none')).body).toEqual({
      data: [],
      meta: { page: 1, perPage: 25, total: 0, totalPages: 0 },
    });
  });

  it.each([
    '?page=0',
    '?page=-1',
    '?page=abc',
    '?page=1.5',
    '?perPage=0',
    '?perPage=101',
    '?page=1&page=2',
    '?schoolId=',
  ])('400 for %s', async (query) => {
    const { status, body } = await get(query);
    expect(status).toBe(400);
    expect(body.message).toEqual(expect.any(String));
  });

  it('shows a client only its own district', async () => {
    const other = await getToken(lister, 'demo-special');
    expect((await get('', other)).body.meta.total).toBe(0);
    const admin = (await (await fetch(`${lister.origin}/__sandbox/invitations`)).json()) as unknown[];
    expect(admin).toHaveLength(7);
  });
});

it('list on the main sandbox round-trips what was created', async () => {
  const { body } = await list('?perPage=100');
  expect(body.data.map((r) => r.id)).toEqual(sandbox.invitations().map((r) => r.id));
});
