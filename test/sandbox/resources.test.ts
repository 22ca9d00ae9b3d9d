import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { basicHeader, bearer, getToken } from './helpers.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ seed: 2 });
});
afterAll(() => sandbox.close());

const status = (token: string) => fetch(`${sandbox.baseUrl}/attendance/status`, { headers: bearer(token) });

describe('startSandbox', () => {
  it('serves under /v1 on 127.0.0.1 with an ephemeral port', () => {
    expect(sandbox.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(sandbox.baseUrl).toBe(`${sandbox.origin}/v1`);
  });

  it.each(['0.0.0.0', '192.168.1.10', '::', 'example.com', ''])(
    'refuses the non-loopback host %j',
    async (host) => {
      await expect(startSandbox({ host })).rejects.toThrow(/loopback/);
    },
  );

  it('accepts ::1 and localhost', async () => {
    for (const host of ['::1', 'localhost']) {
      const other = await startSandbox({ host }).catch((err: NodeJS.ErrnoException) => err);
      // A machine without IPv6 cannot bind ::1; that is not what this test is about.
      if (other instanceof Error) {
        expect(other.code).toMatch(/EADDRNOTAVAIL|EAFNOSUPPORT/);
        continue;
      }
      await other.close();
    }
  });

  it('refuses nonsense fault options', async () => {
    await expect(startSandbox({ failRate: 2 })).rejects.toThrow(/failRate/);
    await expect(startSandbox({ tokenTtlSeconds: 0 })).rejects.toThrow(/tokenTtlSeconds/);
  });

  it('keeps connections alive', async () => {
    const res = await fetch(`${sandbox.baseUrl}/nothing`);
    await res.text();
    expect(res.headers.get('connection')).toBe('keep-alive');
    expect(res.headers.get('keep-alive')).toMatch(/timeout=30/);
  });
});

describe('bearer authentication on resource endpoints', () => {
  it('401 invalid_token without a token, with an unknown token', async () => {
    for (const headers of [{}, bearer('rst_unknown')]) {
      const res = await fetch(`${sandbox.baseUrl}/attendance/status`, { headers });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
      expect(await res.json()).toEqual({ message: expect.any(String) });
    }
  });

  it('401 invalid_request when Basic is sent to a resource endpoint', async () => {
    const c = sandbox.clients[0]!;
    const res = await fetch(`${sandbox.baseUrl}/attendance/status`, {
      headers: { Authorization: basicHeader(c.clientId, c.clientSecret) },
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer error="invalid_request"');
    expect(((await res.json()) as { message: string }).message).toMatch(/token endpoints only/);
  });

  it('tokens expire after tokenTtlSeconds', async () => {
    // On the sandbox's injected clock: a second passes without waiting one.
    let clock = 5_000_000;
    const short = await startSandbox({ tokenTtlSeconds: 1, now: () => clock });
    try {
      const token = await getToken(short, 'demo-allowed');
      clock += 999;
      const ok = await fetch(`${short.baseUrl}/attendance/status`, { headers: bearer(token) });
      expect(ok.status).toBe(200);
      clock += 1;
      const late = await fetch(`${short.baseUrl}/attendance/status`, { headers: bearer(token) });
      expect(late.status).toBe(401);
      expect(late.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    } finally {
      await short.close();
    }
  });

  it('expiry follows the injected clock, and expires_in follows setOptions', async () => {
    let clock = 1_000_000;
    const timed = await startSandbox({ now: () => clock });
    try {
      timed.setOptions({ tokenTtlSeconds: 60 });
      const res = await fetch(`${timed.baseUrl}/oauth/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials&client_id=demo-allowed&client_secret=riverside-secret-2024',
      });
      const body = (await res.json()) as { access_token: string; expires_in: number };
      expect(body.expires_in).toBe(60);
      clock += 59_000;
      expect(
        (await fetch(`${timed.baseUrl}/attendance/status`, { headers: bearer(body.access_token) })).status,
      ).toBe(200);
      clock += 1_000;
      expect(
        (await fetch(`${timed.baseUrl}/attendance/status`, { headers: bearer(body.access_token) })).status,
      ).toBe(401);
    } finally {
      await timed.close();
    }
  });

  it('revokeAllTokens() and POST /__sandbox/revoke-tokens revoke every token', async () => {
    const first = await getToken(sandbox, 'demo-allowed');
    sandbox.revokeAllTokens();
    expect((await status(first)).status).toBe(401);

    const second = await getToken(sandbox, 'demo-allowed');
    expect((await status(second)).status).toBe(200);
    const revoke = await fetch(`${sandbox.origin}/__sandbox/revoke-tokens`, { method: 'POST' });
    expect(await revoke.json()).toEqual({ revoked: 1 });
    expect((await status(second)).status).toBe(401);
  });
});

describe('GET /attendance/status', () => {
  it('200 with the client label for an allowed client', async () => {
    const res = await status(await getToken(sandbox, 'demo-allowed'));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true, clientLabel: 'Riverside Unified School District' });
  });

  it('200 for the client with the special-character secret', async () => {
    expect((await status(await getToken(sandbox, 'demo-special'))).status).toBe(200);
  });

  it('403 with status and message for a refused client', async () => {
    const res = await status(await getToken(sandbox, 'demo-refused'));
    expect(res.status).toBe(403);
    const body = (await res.json()) as { status: number; message: string };
    expect(body.status).toBe(403);
    expect(body.message).toContain('attendance-daily is not enabled for this API client');
  });

  it('405 for another method', async () => {
    const token = await getToken(sandbox, 'demo-allowed');
    const res = await fetch(`${sandbox.baseUrl}/attendance/status`, {
      method: 'POST',
      headers: bearer(token),
    });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET');
  });
});

describe('paths', () => {
  it('404 JSON for an unknown path under /v1 (with a token) and outside /v1', async () => {
    const token = await getToken(sandbox, 'demo-allowed');
    const inside = await fetch(`${sandbox.baseUrl}/no/such/thing`, { headers: bearer(token) });
    expect(inside.status).toBe(404);
    expect(await inside.json()).toEqual({ message: expect.any(String) });
    const outside = await fetch(`${sandbox.origin}/oauth/token`, { method: 'POST' });
    expect(outside.status).toBe(404);
    expect(((await outside.json()) as { message: string }).message).toMatch(/\/v1/);
  });

  it('413 for an enormous body', async () => {
    const res = await fetch(`${sandbox.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'x'.repeat(2 * 1024 * 1024),
    });
    expect(res.status).toBe(413);
  });

  it('records every /v1 request with raw headers and the status answered, admin calls left out', async () => {
    const before = sandbox.requests.length;
    const token = await getToken(sandbox, 'demo-allowed');
    await (await fetch(`${sandbox.baseUrl}/attendance/status?x=%20y`, { headers: bearer(token) })).text();
    await (await fetch(`${sandbox.origin}/__sandbox/outbox`)).text();
    const recorded = sandbox.requests.slice(before);
    expect(recorded.map((r) => [r.method, r.path, r.status])).toEqual([
      ['POST', '/v1/oauth/token', 200],
      ['GET', '/v1/attendance/status', 200],
    ]);
    expect(recorded[0]!.body).toContain('grant_type=client_credentials');
    expect(recorded[1]!.rawQuery).toBe('x=%20y');
    expect(recorded[1]!.headers.authorization).toBe(`Bearer ${token}`);
    expect(recorded[1]!.clientId).toBe('demo-allowed');
  });

  it('record: false keeps no requests', async () => {
    const quiet = await startSandbox({ record: false });
    try {
      await (await fetch(`${quiet.baseUrl}/attendance/status`)).text();
      expect(quiet.requests).toEqual([]);
    } finally {
      await quiet.close();
    }
  });
});
