// serverInvitedIdentities over real HTTP: every page of the sandbox's GET /enrollment/invitations, and a
// hostile server whose records lack e-mails, carry odd values, refuse perPage, repeat pages or refuse us.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverInvitedIdentities } from '../../src/invite/server-invited.js';
import { invitationIdentity } from '../../src/invite/store/index.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { Session } from '../../src/session.js';
import { resolveSettings } from '../../src/settings.js';
import { fakeContext, tempDir } from '../helpers/context.js';
import { type Hostile, json, startHostile } from '../helpers/hostile.js';
import { demoEnv } from '../helpers/sandbox.js';
import { roster } from './helpers.js';

async function sessionFor(env: Record<string, string>): Promise<Session> {
  const { ctx } = fakeContext({ env });
  return new Session(ctx, await resolveSettings({}, ctx.env, ctx.paths.configDir));
}

describe('serverInvitedIdentities against the sandbox', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ seed: 3 });
  });
  afterAll(() => sandbox.close());

  it('reads every page (130 invitations, pages of 100) into identities: e-mail in any case, school, school year', async () => {
    const rows = Array.from(
      { length: 130 },
      (_, i) => `Parent${i}@Example.org,org-sch-${(i % 3) + 1},1,${i % 2 ? '2026-27' : ''}`,
    );
    const file = join(tempDir(), 'invites.csv');
    writeFileSync(file, `email,schoolId,studentCount,schoolYearId\n${rows.join('\n')}\n`);
    const sent = await roster(sandbox, ['invite', 'send', '--file', file, '--sent-by-user-id', 'usr-1']);
    expect(sent.code, sent.stderr).toBe(0);
    sandbox.requests.length = 0;

    const result = await serverInvitedIdentities(await sessionFor(demoEnv(sandbox)));
    if (!('identities' in result)) throw new Error(result.unavailable);
    expect({ records: result.records, unusable: result.unusable, size: result.identities.size }).toEqual({
      records: 130,
      unusable: 0,
      size: 130,
    });
    expect(result.identities.has(invitationIdentity('parent1@example.org', 'org-sch-2', '2026-27'))).toBe(
      true,
    );
    expect(result.identities.has(invitationIdentity('PARENT0@example.org', 'org-sch-1'))).toBe(true);
    expect(result.identities.has(invitationIdentity('parent0@example.org', 'org-sch-1', '2026-27'))).toBe(
      false,
    );
    const lists = sandbox.requests.filter((r) => r.path.endsWith('/enrollment/invitations'));
    expect(lists.map((r) => r.rawQuery)).toEqual(['perPage=100&page=1', 'perPage=100&page=2']);
  });
});

describe('serverInvitedIdentities against a hostile server', () => {
  let hostile: Hostile;
  beforeAll(async () => {
    hostile = await startHostile();
  });
  afterAll(() => hostile.close());
  const session = () => sessionFor({ ROSTER_BASE_URL: hostile.baseUrl, ROSTER_TOKEN: 'a-ready-token' });
  const lists = () => hostile.requests.filter((r) => r.path === '/v1/enrollment/invitations');

  it('records without e-mail or school: unavailable, saying why', async () => {
    hostile.requests.length = 0;
    hostile.handle((_, res) =>
      json(res, 200, {
        data: [
          { id: 'inv-1', status: 'sent' },
          { id: 'inv-2', createdAt: 'x' },
        ],
        meta: { totalPages: 1 },
      }),
    );
    expect(await serverInvitedIdentities(await session())).toEqual({
      unavailable: 'its 2 invitation records carry no e-mail and school (the spec leaves their fields open)',
    });
  });

  it('odd values: numbers as ids, null years, control characters, nested objects, non-records: the usable ones only', async () => {
    hostile.handle((request, res) =>
      json(res, 200, {
        meta: { totalPages: 1, page: Number(request.query.get('page')) },
        data: [
          { email: ' Mixed@Case.ORG ', schoolId: 42, schoolYearId: null },
          { email: 'year@x.org', schoolId: 'sch-1', schoolYearId: 2026 },
          { email: 'evil@x.org\u001b[31m', schoolId: 'sch-1' },
          { email: 'obj@x.org', schoolId: { id: 'sch-1' } },
          { email: 'no-at-sign', schoolId: 'sch-1' },
          { email: 'long@x.org', schoolId: 'x'.repeat(5000) },
          'a string',
          null,
          [1, 2],
        ],
      }),
    );
    const result = await serverInvitedIdentities(await session());
    if (!('identities' in result)) throw new Error(result.unavailable);
    expect([...result.identities].sort()).toEqual(
      [invitationIdentity('mixed@case.org', '42'), invitationIdentity('year@x.org', 'sch-1', '2026')].sort(),
    );
    expect({ records: result.records, unusable: result.unusable }).toEqual({ records: 9, unusable: 7 });
  });

  it('a server that refuses perPage (400) is asked again without it, once', async () => {
    hostile.requests.length = 0;
    hostile.handle((request, res) =>
      request.query.has('perPage')
        ? json(res, 400, { message: 'unknown parameter perPage' })
        : json(res, 200, {
            data: request.query.get('page') === '1' ? [{ email: 'a@x.org', schoolId: 's' }] : [],
          }),
    );
    const result = await serverInvitedIdentities(await session());
    expect('identities' in result && [...result.identities]).toEqual([invitationIdentity('a@x.org', 's')]);
    expect(lists().map((r) => r.query.toString())).toEqual(['perPage=100&page=1', 'page=1', 'page=2']);
  });

  it('a server that ignores the page parameter, one that refuses us, one that answers garbage: unavailable, never a loop', async () => {
    hostile.handle((_, res) => json(res, 200, { data: [{ email: 'a@x.org', schoolId: 's' }] }));
    expect(await serverInvitedIdentities(await session())).toEqual({
      unavailable: expect.stringMatching(/page 2 repeats an earlier page/),
    });
    hostile.handle((_, res) => json(res, 403, { status: 403, message: 'not for this client' }));
    expect(await serverInvitedIdentities(await session())).toEqual({
      unavailable: expect.stringMatching(/403/),
    });
    hostile.handle((_, res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html>sign in</html>'),
    );
    expect(await serverInvitedIdentities(await session())).toEqual({ unavailable: expect.any(String) });
  });

  it('an empty list is a list: no identities, available', async () => {
    hostile.handle((_, res) => json(res, 200, { data: [], meta: { totalPages: 0 } }));
    expect(await serverInvitedIdentities(await session())).toEqual({
      identities: new Set(),
      records: 0,
      unusable: 0,
    });
  });
});
