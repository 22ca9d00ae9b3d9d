import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CachedToken } from '../../../src/api/access-token.js';
import { TokenCache, type TokenKey } from '../../../src/auth/token-cache.js';
import { tempDir } from '../../helpers/context.js';

const key = (over: Partial<TokenKey> = {}): TokenKey => ({
  profile: 'default',
  baseUrl: 'https://api.example/v1',
  clientId: 'district-42',
  endpoint: '/oauth/token',
  ...over,
});
const token = (accessToken: string): CachedToken => ({
  accessToken,
  tokenType: 'bearer',
  expiresAt: Date.UTC(2030, 0, 1),
  expiresIn: 3600,
});
const files = (dir: string) => readdirSync(dir).filter((n) => n.endsWith('.json'));

describe('TokenCache', () => {
  it('keeps one private file per key and reads each back', async () => {
    const dir = join(tempDir(), 'tokens');
    const cache = new TokenCache(dir);
    await cache.write(key(), token('t-oauth'));
    await cache.write(key({ endpoint: '/ims/oneroster/v1p1/token' }), token('t-v1p1'));
    await cache.write(key({ scope: 'attendance' }), token('t-scoped'));
    expect(files(dir)).toHaveLength(3);
    for (const name of files(dir)) expect(statSync(join(dir, name)).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect((await cache.read(key()))?.accessToken).toBe('t-oauth');
    expect((await cache.read(key({ endpoint: '/ims/oneroster/v1p1/token' })))?.accessToken).toBe('t-v1p1');
    expect((await cache.read(key({ scope: 'attendance' })))?.accessToken).toBe('t-scoped');
    expect(await cache.read(key({ scope: 'other' }))).toBeUndefined();
    expect(await cache.read(key({ clientId: 'someone-else' }))).toBeUndefined();
  });

  it('ignores (and removes) a cached token that is not a printable b64token', async () => {
    const dir = join(tempDir(), 'tokens');
    const cache = new TokenCache(dir);
    await cache.write(key(), token('t-ok'));
    const [name = ''] = files(dir);
    const entry = JSON.parse(readFileSync(join(dir, name), 'utf8'));
    entry.token.accessToken = 'abc\u001b]52;c;cm0gLXJm\u0007';
    writeFileSync(join(dir, name), JSON.stringify(entry));
    expect(await cache.read(key())).toBeUndefined();
    expect(files(dir)).toEqual([]);
  });

  it('answers undefined when nothing was cached, even without a directory', async () => {
    expect(await new TokenCache(join(tempDir(), 'missing')).read(key())).toBeUndefined();
  });

  it('discards a corrupt file and writes a good one again', async () => {
    const dir = join(tempDir(), 'tokens');
    const cache = new TokenCache(dir);
    await cache.write(key(), token('t1'));
    const [name] = files(dir);
    const path = join(dir, name as string);
    for (const junk of ['{not json', '{}', '{"key":{"baseUrl":"x"},"token":{"accessToken":""}}', '']) {
      writeFileSync(path, junk);
      expect(await cache.read(key())).toBeUndefined();
    }
    expect(files(dir)).toEqual([]);
    await cache.write(key(), token('t2'));
    expect((await cache.read(key()))?.accessToken).toBe('t2');
  });

  it('stores the key and token but nothing else', async () => {
    const dir = join(tempDir(), 'tokens');
    await new TokenCache(dir).write(key(), token('t1'));
    const stored = JSON.parse(readFileSync(join(dir, files(dir)[0] as string), 'utf8'));
    expect(stored).toEqual({ key: key(), token: token('t1') });
  });

  it('removes one key, or every token of one profile', async () => {
    const dir = join(tempDir(), 'tokens');
    const cache = new TokenCache(dir);
    await cache.write(key(), token('a'));
    await cache.write(key({ endpoint: '/ims/oneroster/v1p2/token' }), token('b'));
    await cache.write(key({ clientId: 'other-client' }), token('c'));
    await cache.write(key({ baseUrl: 'https://other.example/v1' }), token('d'));
    await cache.remove(key({ endpoint: '/ims/oneroster/v1p2/token' }));
    expect(await cache.read(key({ endpoint: '/ims/oneroster/v1p2/token' }))).toBeUndefined();
    await cache.write(key({ endpoint: '/ims/oneroster/v1p2/token' }), token('b'));

    // Another profile of the same client at the same base URL keeps its own tokens.
    await cache.write(key({ profile: 'kc' }), token('e'));

    expect(await cache.removeProfile('default')).toBe(4);
    expect(await cache.read(key())).toBeUndefined();
    expect(await cache.read(key({ clientId: 'other-client' }))).toBeUndefined();
    expect((await cache.read(key({ profile: 'kc' })))?.accessToken).toBe('e');
    expect(await new TokenCache(join(tempDir(), 'none')).removeProfile('x')).toBe(0);
  });

  it('a token of one profile never answers for another of the same client and base URL', async () => {
    const cache = new TokenCache(join(tempDir(), 'tokens'));
    await cache.write(key({ profile: 'kc' }), token('kc-token'));
    expect(await cache.read(key({ profile: 'ks' }))).toBeUndefined();
  });

  it("removing a profile's tokens takes those cached before tokens were per profile, for its client only", async () => {
    const dir = join(tempDir(), 'tokens');
    const cache = new TokenCache(dir);
    await cache.write(key({ profile: 'ks' }), token('ks-token'));
    // An entry as roster wrote it before: no profile in its key.
    const legacy = (clientId: string) => {
      const { profile: _p, ...old } = key({ clientId });
      return JSON.stringify({ key: old, token: token(`old-${clientId}`) });
    };
    writeFileSync(join(dir, 'legacy1.json'), legacy('district-42'), { mode: 0o600 });
    writeFileSync(join(dir, 'legacy2.json'), legacy('other-client'), { mode: 0o600 });
    const client = { baseUrl: 'https://api.example/v1', clientId: 'district-42' };
    expect(await cache.removeProfile('kc', client)).toBe(1);
    expect(readdirSync(dir).sort()).toEqual([expect.stringMatching(/^[0-9a-f]{16}\.json$/), 'legacy2.json']);
    expect((await cache.read(key({ profile: 'ks' })))?.accessToken).toBe('ks-token');
  });
});
