import { describe, expect, it } from 'vitest';
import { streamList } from '../../src/campaign/read.js';
import { ApiError } from '../../src/errors.js';
import type { OneRosterService } from '../../src/oneroster/service.js';
import { fakeContext } from '../helpers/context.js';

/** A service of `n` users that refuses (400) any query holding one of `refuses`, after `okPages` pages. */
function service(n: number, refuses: string[], okPages = 0) {
  const queries: string[] = [];
  const svc: OneRosterService = {
    version: '1.2',
    baseUrl: 'https://or.example.org/v1',
    prefix: '/ims/oneroster/v1p2',
    async send(path, query) {
      queries.push(query);
      const params = new URLSearchParams(query);
      if (queries.length > okPages && refuses.some((name) => params.has(name)))
        throw new ApiError('api', 400, `Reading users failed (HTTP 400): invalid ${refuses.join(', ')}.`);
      const offset = Number(params.get('offset') ?? 0);
      const limit = Number(params.get('limit') ?? 100);
      const users = Array.from({ length: Math.max(0, Math.min(limit, n - offset)) }, (_, i) => ({
        sourcedId: `u${offset + i}`,
        email: `secret${offset + i}@example.org`,
      }));
      return {
        status: 200,
        headers: { 'x-total-count': String(n) },
        body: JSON.stringify({ users }),
        url: path,
      };
    },
  };
  return { svc, queries };
}

const read = { path: 'users', what: 'users', concurrency: 2 };

describe('streamList', () => {
  it('a 400 to fields= or the filter: asked once more without them, --debug says so, every record once', async () => {
    const { ctx, stderr } = fakeContext({ debug: true });
    const { svc, queries } = service(250, ['fields']);
    const seen: unknown[] = [];
    const n = await streamList(
      ctx,
      svc,
      { ...read, query: { limit: 100, filter: "status='active'", fields: ['sourcedId', 'email'] } },
      (r) => seen.push(r),
    );
    expect(n).toBe(250);
    expect(new Set(seen.map((r) => (r as { sourcedId: string }).sourcedId)).size).toBe(250);
    expect(queries[0]).toContain('fields=');
    expect(queries.slice(1).every((q) => !q.includes('fields=') && !q.includes('filter='))).toBe(true);
    expect(stderr()).toContain(
      'the server refused the filter and fields= (HTTP 400); asking again without them',
    );
    // Guardian records never reach the trace.
    expect(stderr()).not.toContain('secret');
  });

  it('a 400 without a filter or fields, or once pages were handed over, is the error', async () => {
    const plain = service(250, ['limit']);
    await expect(
      streamList(fakeContext().ctx, plain.svc, { ...read, query: { limit: 100 } }, () => {}),
    ).rejects.toThrow(/HTTP 400/);
    expect(plain.queries).toHaveLength(1);
    const late = service(250, ['fields'], 1);
    await expect(
      streamList(
        fakeContext().ctx,
        late.svc,
        { ...read, query: { limit: 100, fields: ['sourcedId'] } },
        () => {},
      ),
    ).rejects.toThrow(/HTTP 400/);
  });

  it('a server that refuses again is not asked a third time', async () => {
    const { svc, queries } = service(250, ['limit', 'fields']);
    await expect(
      streamList(fakeContext().ctx, svc, { ...read, query: { limit: 100, fields: ['sourcedId'] } }, () => {}),
    ).rejects.toThrow(/HTTP 400/);
    expect(queries).toHaveLength(2);
  });
});
