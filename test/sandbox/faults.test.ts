import { describe, expect, it } from 'vitest';
import { createPrng, Faults } from '../../src/sandbox/faults.js';
import { type Sandbox, type SandboxOptions, startSandbox } from '../../src/sandbox/server.js';
import { until } from '../helpers/cli.js';
import { bearer, getToken } from './helpers.js';

async function withSandbox(options: SandboxOptions, body: (sb: Sandbox, token: string) => Promise<void>) {
  const sb = await startSandbox({ seed: 7, ...options });
  try {
    // The token is fetched with faults off where needed by the caller; token endpoints are never failed.
    await body(sb, await getToken(sb, 'demo-allowed'));
  } finally {
    await sb.close();
  }
}

const invite = (sb: Sandbox, token: string, email = 'parent@example.org') =>
  fetch(`${sb.baseUrl}/enrollment/invitations`, {
    method: 'POST',
    headers: { ...bearer(token), 'Content-Type': 'application/json' },
    body: JSON.stringify({
      email,
      schoolId: 's1',
      scopes: ['fillEnrollment'],
      studentCount: 1,
      sentByUserId: 'u1',
    }),
  });

const attendance = (sb: Sandbox, token: string) =>
  fetch(`${sb.baseUrl}/attendance/status`, { headers: bearer(token) });

describe('PRNG and fault rolls', () => {
  it('is deterministic for a seed and different across seeds', () => {
    const a = createPrng(42);
    const b = createPrng(42);
    const c = createPrng(43);
    const seqA = Array.from({ length: 5 }, a);
    expect(Array.from({ length: 5 }, b)).toEqual(seqA);
    expect(Array.from({ length: 5 }, c)).not.toEqual(seqA);
    expect(seqA.every((x) => x >= 0 && x < 1)).toBe(true);
  });

  it('draws the same number per request, so enabling one fault does not shift another', () => {
    const one = new Faults({ failRate: 0.3 }, 9);
    const two = new Faults({ failRate: 0.3, dropRate: 0.5 }, 9);
    const fails = (f: Faults) => Array.from({ length: 50 }, () => f.rollResource().fail);
    expect(fails(one)).toEqual(fails(two));
  });

  it('delays by the latency plus a share of the jitter, never more', () => {
    const f = new Faults({ latencyMs: 60, jitterMs: 20 }, 5);
    const delays = Array.from({ length: 200 }, () => f.delayMs());
    expect(delays.every((ms) => ms >= 60 && ms <= 80)).toBe(true);
    expect(new Set(delays).size).toBeGreaterThan(1);
  });

  it('token bucket: capacity one second, refills at the rate', () => {
    const f = new Faults({ rateLimit: 2 }, 1);
    expect(f.rateLimited('a', 0)).toBeUndefined();
    expect(f.rateLimited('a', 0)).toBeUndefined();
    expect(f.rateLimited('a', 0)).toBe(1);
    expect(f.rateLimited('b', 0)).toBeUndefined();
    expect(f.rateLimited('a', 500)).toBeUndefined();
    expect(f.rateLimited('a', 500)).toBe(1);
  });
});

describe('fault options over HTTP', () => {
  // A lower bound only: a busy machine makes a response later, never sooner. How much jitter is added is the
  // Faults unit tests' question (delayMs), not a stopwatch's.
  it('latencyMs and jitterMs delay every response, token responses included', async () => {
    await withSandbox({ latencyMs: 60, jitterMs: 20 }, async (sb, token) => {
      let started = performance.now();
      await getToken(sb, 'demo-allowed');
      expect(performance.now() - started).toBeGreaterThanOrEqual(55);
      started = performance.now();
      await (await attendance(sb, token)).text();
      expect(performance.now() - started).toBeGreaterThanOrEqual(55);
    });
  });

  it('failRate answers failStatus with Retry-After before processing; token endpoints are spared', async () => {
    await withSandbox({ failRate: 1 }, async (sb, token) => {
      const res = await invite(sb, token);
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');
      expect(await res.json()).toEqual({ message: expect.any(String) });
      expect(sb.invitations()).toHaveLength(0);
      expect(sb.outbox).toHaveLength(0);

      sb.setOptions({ failStatus: 500 });
      const five = await attendance(sb, token);
      expect(five.status).toBe(500);
      expect(five.headers.get('retry-after')).toBeNull();

      sb.setOptions({ failRate: 0 });
      expect((await attendance(sb, token)).status).toBe(200);
    });
  });

  it('failRate is seeded: the same seed gives the same pattern', async () => {
    const pattern = async () => {
      const statuses: number[] = [];
      await withSandbox({ seed: 1234 }, async (sb, token) => {
        sb.setOptions({ failRate: 0.5 });
        for (let i = 0; i < 20; i++) statuses.push((await attendance(sb, token)).status);
      });
      return statuses;
    };
    const first = await pattern();
    expect(first).toEqual(await pattern());
    expect(first).toContain(200);
    expect(first).toContain(503);
  });

  it('dropRate processes the request, then cuts the connection mid-response', async () => {
    await withSandbox({ dropRate: 1 }, async (sb, token) => {
      // Status line and headers arrive; the body never completes.
      const res = await invite(sb, token);
      expect(res.status).toBe(201);
      await expect(res.text()).rejects.toThrow();
      // The invitation was created and "sent" even though the client never saw the answer.
      expect(sb.invitations()).toHaveLength(1);
      expect(sb.outbox).toHaveLength(1);
      const recorded = sb.requests.at(-1)!;
      expect(recorded).toMatchObject({ status: 201, dropped: true });
      sb.setOptions({ dropRate: 0 });
      expect((await attendance(sb, token)).status).toBe(200);
    });
  });

  it('rateLimit answers 429 with Retry-After for excess requests per client', async () => {
    const clock = 5_000_000;
    await withSandbox({ rateLimit: 2, now: () => clock }, async (sb, token) => {
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push(await attendance(sb, token));
      expect(statuses.map((r) => r.status)).toEqual([200, 200, 429]);
      expect(statuses[2]!.headers.get('retry-after')).toBe('1');
      // Another client has its own budget.
      expect((await attendance(sb, await getToken(sb, 'demo-special'))).status).toBe(200);
      sb.setOptions({ rateLimit: 0 });
      expect((await attendance(sb, token)).status).toBe(200);
    });
  });
});

describe('injectFault', () => {
  it('scripts a 503 with Retry-After on exactly the matching request, once by default', async () => {
    await withSandbox({}, async (sb, token) => {
      sb.injectFault({
        match: (req) => req.path === '/enrollment/invitations' && req.query.get('page') === '3',
        status: 503,
        headers: { 'Retry-After': '1' },
      });
      const page = (p: number) =>
        fetch(`${sb.baseUrl}/enrollment/invitations?page=${p}`, { headers: bearer(token) });
      expect((await page(1)).status).toBe(200);
      expect((await page(2)).status).toBe(200);
      const third = await page(3);
      expect(third.status).toBe(503);
      expect(third.headers.get('retry-after')).toBe('1');
      expect((await page(3)).status).toBe(200);
    });
  });

  it('honours times, custom bodies, and works on token endpoints', async () => {
    await withSandbox({}, async (sb) => {
      sb.injectFault({
        match: (req) => req.path === '/oauth/token',
        status: 500,
        body: { error: 'server_error', error_description: 'boom' },
        times: 2,
      });
      for (let i = 0; i < 2; i++) {
        const res = await fetch(`${sb.baseUrl}/oauth/token`, { method: 'POST' });
        expect(res.status).toBe(500);
        expect(await res.json()).toEqual({ error: 'server_error', error_description: 'boom' });
      }
      expect(await getToken(sb, 'demo-allowed')).toMatch(/^rst_/);
    });
  });

  it('clearFaults() drops the scripted faults still waiting', async () => {
    await withSandbox({}, async (sb, token) => {
      sb.injectFault({ match: (req) => req.path === '/attendance/status', status: 500, times: 5 });
      expect((await attendance(sb, token)).status).toBe(500);
      sb.clearFaults();
      expect((await attendance(sb, token)).status).toBe(200);
      expect((await attendance(sb, token)).status).toBe(200);
      // New faults work as before after a clear.
      sb.injectFault({ match: (req) => req.path === '/attendance/status', status: 503 });
      expect((await attendance(sb, token)).status).toBe(503);
    });
  });

  it('drop: true processes the request and cuts the connection', async () => {
    await withSandbox({}, async (sb, token) => {
      sb.injectFault({ match: (req) => req.method === 'POST', drop: true });
      const res = await invite(sb, token);
      expect(res.status).toBe(201);
      await expect(res.text()).rejects.toThrow();
      expect(sb.invitations()).toHaveLength(1);
      expect((await invite(sb, token, 'second@example.org')).status).toBe(201);
      expect(sb.invitations()).toHaveLength(2);
    });
  });
});

it('close() does not wait for a response held by latency, nor for keep-alive sockets', async () => {
  // The response is held for a minute: a close() that waited for it would lose the race below by far.
  const sb = await startSandbox({ latencyMs: 60_000 });
  const pending = fetch(`${sb.baseUrl}/attendance/status`).catch((err: unknown) => err);
  await until(() => sb.requests.length === 1);
  let timer: NodeJS.Timeout | undefined;
  const held = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve('still open after 20 s'), 20_000);
  });
  expect(await Promise.race([sb.close().then(() => 'closed'), held])).toBe('closed');
  clearTimeout(timer);
  expect(await pending).toBeInstanceOf(Error);
});
