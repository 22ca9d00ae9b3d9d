// An access token as roster holds one: what a token endpoint granted, and the limits roster believes.

/** The spec's token lifetime, used when a server sends none (or nonsense). */
export const DEFAULT_TOKEN_LIFETIME_S = 3600;
/** The longest lifetime roster believes (a day): a longer one is clamped, a cache entry beyond it ignored. */
export const MAX_TOKEN_LIFETIME_S = 86_400;

/**
 * A token as RFC 6750 §2.1 writes one (b64token): it goes into headers, scripts and terminals, so a token
 * with anything else (a space, an escape sequence) is refused, never cached or printed.
 */
export function isBearerToken(token: string): boolean {
  return /^[A-Za-z0-9\-._~+/]+=*$/.test(token);
}

export interface CachedToken {
  accessToken: string;
  tokenType: string;
  /** Epoch milliseconds. */
  expiresAt: number;
  expiresIn: number;
  scope?: string;
}
