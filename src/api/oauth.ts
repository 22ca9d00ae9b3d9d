// The OAuth 2.0 client-credentials grant (spec §4.1–4.3, §5). The only module that ever sends client
// credentials, and only ever to a token endpoint.
import type { ClientAuth, TokenEndpointName } from '../config-file.js';
import { ApiError, AuthError, RosterError } from '../errors.js';
import {
  type CachedToken,
  DEFAULT_TOKEN_LIFETIME_S,
  isBearerToken,
  MAX_TOKEN_LIFETIME_S,
} from './access-token.js';
import { isRecord, messageOf, parseJson } from './errors.js';
import type { HttpResponse, Transport } from './transport.js';

export const TOKEN_ENDPOINTS: Record<TokenEndpointName, string> = {
  oauth: '/oauth/token',
  v1p1: '/ims/oneroster/v1p1/token',
  v1p2: '/ims/oneroster/v1p2/token',
};

export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
}

/** application/x-www-form-urlencoded, as RFC 6749 §2.3.1 asks of Basic credentials (space as +). */
export const formEncode = (value: string) => new URLSearchParams({ v: value }).toString().slice(2);

/** The credential of a Basic Authorization header: base64 of the form-encoded id:secret. */
export function basicCredential({ clientId, clientSecret }: ClientCredentials): string {
  return Buffer.from(`${formEncode(clientId)}:${formEncode(clientSecret)}`).toString('base64');
}

export function basicAuthorization(credentials: ClientCredentials): string {
  return `Basic ${basicCredential(credentials)}`;
}

export interface TokenRequest {
  url: string;
  credentials: ClientCredentials;
  clientAuth: ClientAuth;
  scope?: string;
  now: number;
  /** The next step when the server says the scope is missing or wrong: the caller knows which setting. */
  scopeHint?: string;
  /** The next step when nothing answers at the endpoint (404): the caller knows where its path came from. */
  notFoundHint?: string;
}

export async function requestToken(transport: Transport, request: TokenRequest): Promise<CachedToken> {
  const form = new URLSearchParams({ grant_type: 'client_credentials' });
  if (request.scope) form.set('scope', request.scope);
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded',
    accept: 'application/json',
  };
  if (request.clientAuth === 'basic') {
    headers.authorization = basicAuthorization(request.credentials);
  } else {
    form.set('client_id', request.credentials.clientId);
    form.set('client_secret', request.credentials.clientSecret);
  }
  const response = await transport.send({ method: 'POST', url: request.url, headers, body: form.toString() });
  return parseTokenResponse(response, request.now, request.scope, request.scopeHint, request.notFoundHint);
}

export function parseTokenResponse(
  response: HttpResponse,
  now: number,
  requestedScope?: string,
  scopeHint?: string,
  notFoundHint?: string,
): CachedToken {
  const body = parseJson(response.body);
  if (response.status !== 200) throw tokenError(response, body, scopeHint, notFoundHint);
  const unexpected = (why: string) =>
    new RosterError('unexpected', `The token endpoint answered 200 but ${why}.`, 'Check the base URL.');
  if (!isRecord(body)) throw unexpected('not with a JSON object');
  const { access_token: accessToken, token_type: tokenType, expires_in: rawExpiresIn, scope } = body;
  if (typeof accessToken !== 'string' || accessToken === '') throw unexpected('without an access_token');
  if (!isBearerToken(accessToken)) throw unexpected('with an access_token that is not a printable token');
  if (tokenType !== undefined && String(tokenType).toLowerCase() !== 'bearer') {
    throw unexpected(`with token_type "${String(tokenType).slice(0, 20)}" instead of bearer`);
  }
  const expiresIn = tokenLifetime(rawExpiresIn);
  return {
    accessToken,
    tokenType: 'bearer',
    expiresIn,
    expiresAt: now + expiresIn * 1000,
    scope: typeof scope === 'string' ? scope : requestedScope,
  };
}

/**
 * expires_in as a lifetime roster can keep: whole seconds clamped to 1 s … 24 h (MAX_TOKEN_LIFETIME_S), and
 * the spec's 3600 s when it is missing, negative, not a number or not finite. A server's absurd value must
 * never become a cache entry that breaks later runs (an expiry past what a Date can hold).
 */
export function tokenLifetime(raw: unknown): number {
  // Servers send a number or, sometimes, a numeric string.
  const seconds =
    typeof raw === 'number'
      ? raw
      : typeof raw === 'string' && /^\d+(\.\d+)?$/.test(raw.trim())
        ? Number(raw)
        : Number.NaN;
  if (!Number.isFinite(seconds) || seconds < 0) return DEFAULT_TOKEN_LIFETIME_S;
  return Math.min(MAX_TOKEN_LIFETIME_S, Math.max(1, Math.floor(seconds)));
}

/**
 * Whether an OAuth error is about the scope: `invalid_scope`, or another error whose description says
 * "scope" (servers answer a missing scope with `invalid_request` "scope is required").
 */
export function isScopeError(body: Record<string, unknown>): boolean {
  return (
    body.error === 'invalid_scope' ||
    (typeof body.error_description === 'string' && /\bscopes?\b/i.test(body.error_description))
  );
}

function tokenError(
  response: HttpResponse,
  body: unknown,
  scopeHint?: string,
  notFoundHint?: string,
): RosterError {
  const message = messageOf(body);
  const where = 'The token endpoint';
  // A failing server is not a credentials problem, whatever its body looks like; nor is an address with no
  // token endpoint (404, 405: a framework's {"error": "Not Found"} is not an OAuth refusal).
  const noEndpoint = response.status === 404 || response.status === 405;
  if (isRecord(body) && typeof body.error === 'string' && response.status < 500 && !noEndpoint) {
    const hint =
      body.error === 'invalid_client'
        ? 'Check the client id and secret (and --client-auth basic|post), or run `roster login`.'
        : isScopeError(body)
          ? (scopeHint ??
            'Check the scope settings of this profile: `roster config get scope`, `roster config get onerosterScope`.')
          : undefined;
    return new AuthError(
      `${where} refused the request (HTTP ${response.status}): ${message}`,
      hint,
      response.status,
      message,
    );
  }
  if (response.status === 401) {
    return new AuthError(
      `${where} refused the client credentials (HTTP 401)${message ? `: ${message}` : ''}.`,
      undefined,
      401,
      message,
    );
  }
  const what = message ?? (response.body.trim() ? 'an answer that is not an OAuth error' : 'an empty answer');
  const hint = response.status === 404 ? notFoundHint : undefined;
  return new ApiError('api', response.status, `${where} failed (HTTP ${response.status}): ${what}`, hint);
}
