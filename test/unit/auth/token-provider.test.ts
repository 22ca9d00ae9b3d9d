import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CachedToken } from '../../../src/api/access-token.js';
import { TokenCache, type TokenKey } from '../../../src/auth/token-cache.js';
import { EXPIRY_MARGIN_MS, TokenProvider, type TokenSource } from '../../../src/auth/token-provider.js';
import { tempDir } from '../../helpers/context.js';

const NOW = Date.UTC(2025, 0, 1);
const KEY: TokenKey = {
  profile: 'default',
  baseUrl: 'https://api.example/v1',
  clientId: 'c',
  endpoint: '/oauth/token',
};

function source(options: { delayMs?: number; fail?: boolean; lifetimeS?: number } = {}) {
  let fetches = 0;
  let clock = NOW;
  const src: TokenSource = {
    key: KEY,
    async fetch(): Promise<CachedToken> {
      fetches++;
      const n = fetches;
      if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs));
      if (options.fail) throw new Error('token endpoint down');
      const lifetime = options.lifetimeS ?? 3600;
      return {
        accessToken: `token-${n}`,
        tokenType: 'bearer',
        expiresIn: lifetime,
        expiresAt: clock + lifetime * 1000,
      };
    },
  };
  return {
    src,
    fetches: () => fetches,
    setClock: (t: number) => {
      clock = t;
    },
  };
}

function provider(cache = new TokenCache(join(tempDir(), 'tokens'))) {
  let now = NOW;
  const p = new TokenProvider(cache, () => now);
  return { p, cache, advance: (ms: number) => (now += ms) };
}

describe('TokenProvider', () => {
  it('fetches once, then serves the cached token from memory and from disk', async () => {
    const { p, cache } = provider();
    const s = source();
    expect((await p.get(s.src)).accessToken).toBe('token-1');
    expect((await p.get(s.src)).accessToken).toBe('token-1');
    expect(s.fetches()).toBe(1);
    // A second run of roster (a new provider) reads the file.
    const second = new TokenProvider(cache, () => NOW + 1000);
    expect((await second.get(s.src)).accessToken).toBe('token-1');
    expect(s.fetches()).toBe(1);
  });

  it(`treats a token as expired ${EXPIRY_MARGIN_MS / 1000} s early`, async () => {
    const { p, advance } = provider();
    const s = source();
    await p.get(s.src);
    advance(3600_000 - EXPIRY_MARGIN_MS - 1);
    expect((await p.get(s.src)).accessToken).toBe('token-1');
    advance(1);
    s.setClock(NOW + 3600_000);
    expect((await p.get(s.src)).accessToken).toBe('token-2');
    expect(s.fetches()).toBe(2);
  });

  it('keeps a quarter of a short lifetime as the margin, so a 60 s token is still used', async () => {
    const { p, advance } = provider();
    const s = source({ lifetimeS: 60 });
    await p.get(s.src);
    advance(44_999);
    expect((await p.get(s.src)).accessToken).toBe('token-1');
    advance(1);
    expect((await p.get(s.src)).accessToken).toBe('token-2');
    expect(s.fetches()).toBe(2);
  });

  it('shares one fetch among 10 concurrent callers', async () => {
    const { p } = provider();
    const s = source({ delayMs: 20 });
    const tokens = await Promise.all(Array.from({ length: 10 }, () => p.get(s.src)));
    expect(new Set(tokens.map((t) => t.accessToken))).toEqual(new Set(['token-1']));
    expect(s.fetches()).toBe(1);
  });

  it('shares one fetch even when the fetch is faster than some cache reads', async () => {
    // Cache reads that finish at different times: the last callers resume after the fetch has ended.
    const slowCache = new (class extends TokenCache {
      private reads = 0;
      override async read(key: TokenKey) {
        const n = this.reads++;
        const found = await super.read(key); // sees no file yet…
        await new Promise((r) => setTimeout(r, n * 5)); // …but hands its answer back late
        return found;
      }
    })(join(tempDir(), 'tokens'));
    const { p } = provider(slowCache);
    const s = source();
    await Promise.all(Array.from({ length: 10 }, () => p.get(s.src)));
    expect(s.fetches()).toBe(1);
  });

  it('forces a new token on refresh', async () => {
    const { p } = provider();
    const s = source();
    await p.get(s.src);
    expect((await p.get(s.src, { refresh: true })).accessToken).toBe('token-2');
    expect((await p.get(s.src)).accessToken).toBe('token-2');
  });

  it('drops a rejected token, but not a newer one that replaced it', async () => {
    const { p, cache } = provider();
    const s = source();
    await p.get(s.src);
    await p.get(s.src, { refresh: true }); // token-2 replaces token-1
    await p.invalidate(s.src, 'token-1'); // a late 401 for the old token
    expect((await p.get(s.src)).accessToken).toBe('token-2');
    expect(s.fetches()).toBe(2);
    await p.invalidate(s.src, 'token-2');
    expect(await cache.read(KEY)).toBeUndefined();
    expect((await p.get(s.src)).accessToken).toBe('token-3');
  });

  it('peeks without fetching', async () => {
    const { p } = provider();
    const s = source();
    expect(await p.peek(s.src)).toBeUndefined();
    await p.get(s.src);
    expect((await p.peek(s.src))?.accessToken).toBe('token-1');
    expect(s.fetches()).toBe(1);
  });

  it('still hands out the token when the cache cannot be written', async () => {
    const broken = new (class extends TokenCache {
      override async write(): Promise<void> {
        throw new Error('EACCES: permission denied');
      }
    })(join(tempDir(), 'tokens'));
    const { p } = provider(broken);
    const s = source();
    expect((await p.get(s.src)).accessToken).toBe('token-1');
    expect((await p.get(s.src)).accessToken).toBe('token-1'); // memory still serves it
    expect(s.fetches()).toBe(1);
  });

  it('passes a failed fetch to every waiting caller, and tries again next time', async () => {
    const { p } = provider();
    const s = source({ fail: true, delayMs: 5 });
    const results = await Promise.allSettled(Array.from({ length: 3 }, () => p.get(s.src)));
    expect(results.every((r) => r.status === 'rejected')).toBe(true);
    expect(s.fetches()).toBe(1);
    await expect(p.get(s.src)).rejects.toThrow('token endpoint down');
    expect(s.fetches()).toBe(2);
  });
});
