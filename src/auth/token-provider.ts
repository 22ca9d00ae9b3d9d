// The token strategy shared by every command: the cached token while it has at least a minute left,
// one shared in-flight request for concurrent callers, and invalidation on a 401. It is the only code
// that asks for client credentials, and it asks for them only when a new token is really needed.
import { type CachedToken, MAX_TOKEN_LIFETIME_S } from '../api/access-token.js';
import type { TokenCache, TokenKey } from './token-cache.js';

export const EXPIRY_MARGIN_MS = 60_000;

export interface TokenSource {
  /** Cache key parts of the token this source issues. */
  key: TokenKey;
  /** Fetches a new token from the token endpoint. */
  fetch(): Promise<CachedToken>;
}

export class TokenProvider {
  private readonly inFlight = new Map<string, Promise<CachedToken>>();
  private readonly memory = new Map<string, CachedToken>();

  constructor(
    private readonly cache: TokenCache,
    private readonly now: () => number,
  ) {}

  async get(source: TokenSource, options: { refresh?: boolean } = {}): Promise<CachedToken> {
    const id = keyId(source.key);
    if (!options.refresh) {
      const cached = this.memory.get(id) ?? (await this.cache.read(source.key));
      // Another caller may have fetched and stored a token while the cache was being read.
      const known = [this.memory.get(id), cached].find((t) => t !== undefined && this.isFresh(t));
      if (known) {
        this.memory.set(id, known);
        return known;
      }
    }
    let pending = this.inFlight.get(id);
    if (!pending) {
      pending = this.fetchAndStore(source, id).finally(() => this.inFlight.delete(id));
      this.inFlight.set(id, pending);
    }
    return pending;
  }

  /** The cached token of a source, if any, without fetching one. */
  async peek(source: TokenSource): Promise<CachedToken | undefined> {
    return this.memory.get(keyId(source.key)) ?? (await this.cache.read(source.key));
  }

  /** Drops a token the server rejected, unless a newer one has replaced it meanwhile. */
  async invalidate(source: TokenSource, rejected: string): Promise<void> {
    const id = keyId(source.key);
    const current = this.memory.get(id);
    if (current && current.accessToken !== rejected) return;
    this.memory.delete(id);
    await this.cache.remove(source.key);
  }

  /**
   * Fresh while a margin is left: a minute, or a quarter of a short lifetime (so a 60 s token is used). An
   * expiry further away than any lifetime roster accepts was not stored by roster (or the clock went back):
   * not fresh, so it is replaced.
   */
  isFresh(token: CachedToken): boolean {
    const lifetimeMs = Number.isFinite(token.expiresIn) ? token.expiresIn * 1000 : Number.POSITIVE_INFINITY;
    const left = token.expiresAt - this.now();
    return left > Math.min(EXPIRY_MARGIN_MS, lifetimeMs / 4) && left <= MAX_TOKEN_LIFETIME_S * 1000;
  }

  private async fetchAndStore(source: TokenSource, id: string): Promise<CachedToken> {
    const token = await source.fetch();
    this.memory.set(id, token);
    await this.cache.write(source.key, token).catch(() => {
      // A cache that cannot be written costs a token request next time; it must not fail the command.
    });
    return token;
  }
}

const keyId = (key: TokenKey) =>
  JSON.stringify([key.profile, key.baseUrl, key.clientId, key.endpoint, key.scope ?? '']);
