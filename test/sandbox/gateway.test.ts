// The gateway-503 quirks over real HTTP: the invitation is processed (recorded, e-mailed), then a load
// balancer's 503 text/plain replaces the API's answer for a seeded fraction of the invitations.
import { afterEach, describe, expect, it } from 'vitest';
import { GATEWAY_503_TEXT } from '../../src/sandbox/gateway.js';
import { parseQuirks } from '../../src/sandbox/quirks.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { bearer, getToken } from './helpers.js';

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

const body = (email: string) => ({
  email,
  schoolId: 'sch-1',
  scopes: ['fillEnrollment'],
  studentCount: 1,
  sentByUserId: 'admin-7',
});

async function start(quirks: string, seed = 11) {
  sandbox = await startSandbox({ seed, quirks: parseQuirks(quirks) });
  const token = await getToken(sandbox, 'demo-allowed', '/ims/oneroster/v1p1/token');
  const s = sandbox;
  return {
    sandbox: s,
    post: (payload: unknown) =>
      fetch(`${s.baseUrl}/enrollment/invitations`, {
        method: 'POST',
        headers: { ...bearer(token), 'Content-Type': 'application/json' },
        body: JSON.stringify(payload),
      }),
    list: () => fetch(`${s.baseUrl}/enrollment/invitations`, { headers: bearer(token) }),
  };
}

describe('sandbox --quirks gateway-503', () => {
  it('answers 503 text/plain after the invitation was recorded and e-mailed; no Retry-After', async () => {
    const { sandbox, post } = await start('gateway-503');
    const res = await post(body('a@example.org'));
    expect(res.status).toBe(503);
    expect(res.headers.get('content-type')).toBe('text/plain');
    expect(res.headers.get('retry-after')).toBeNull();
    expect(await res.text()).toBe(GATEWAY_503_TEXT);
    expect(sandbox.outbox.map((m) => m.to)).toEqual(['a@example.org']);
    expect(sandbox.invitations().map((i) => i.email)).toEqual(['a@example.org']);
    expect(sandbox.requests.at(-1)?.status).toBe(503);
  });

  it('gateway-503-retry-after adds Retry-After: 1', async () => {
    const { sandbox, post } = await start('gateway-503-retry-after');
    const res = await post(body('b@example.org'));
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(sandbox.outbox).toHaveLength(1);
  });

  it("leaves the API's refusals and every other request alone", async () => {
    const { sandbox, post, list } = await start('gateway-503');
    const refused = await post({ ...body('c@example.org'), studentCount: 0 });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ message: expect.stringContaining('studentCount') });
    const listed = await list();
    expect(listed.status).toBe(200);
    expect(sandbox.outbox).toHaveLength(0);
  });

  it('hits the given fraction of invitations, the same ones for the same seed; 0 hits none', async () => {
    const pattern = async (quirks: string, seed: number) => {
      const { post } = await start(quirks, seed);
      const statuses: number[] = [];
      for (let i = 0; i < 40; i++) statuses.push((await post(body(`p${i}@example.org`))).status);
      await sandbox?.close();
      sandbox = undefined;
      return statuses;
    };
    const first = await pattern('gateway-503=0.25', 5);
    expect(first.filter((s) => s === 503).length).toBeGreaterThan(4);
    expect(first.filter((s) => s === 503).length).toBeLessThan(16);
    expect(first.filter((s) => s === 201).length).toBe(40 - first.filter((s) => s === 503).length);
    expect(await pattern('gateway-503=0.25', 5)).toEqual(first);
    expect(new Set(await pattern('gateway-503=0', 5))).toEqual(new Set([201]));
  });
});
