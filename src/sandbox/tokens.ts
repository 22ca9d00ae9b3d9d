// Token issuance (spec §4.1–4.3, §5, §7) and bearer-token checks for resource endpoints.
// Tokens are kept only as SHA-256 digests, so nothing in memory or on the admin endpoints can replay them.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { DemoClient } from './clients.js';
import { decodeBasicCredentials, FormDecodeError, parseForm, splitAuthorization } from './form.js';
import type { Caller, SandboxRequest, SandboxResponse } from './types.js';

/** The three token endpoints, below /v1. They behave alike; the caller remembers which one it used. */
export const TOKEN_ENDPOINTS: readonly string[] = [
  '/oauth/token',
  '/ims/oneroster/v1p1/token',
  '/ims/oneroster/v1p2/token',
];

/** Realm of the Basic challenge sent with every 401 from a token endpoint. */
export const BASIC_REALM = 'roster-sandbox';

interface IssuedToken extends Caller {
  expiresAt: number;
}

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();
const hashKey = (token: string): string => digest(token).toString('base64url');

export class TokenStore {
  private readonly tokens = new Map<string, IssuedToken>();

  constructor(private readonly now: () => number) {}

  /** A fresh random token; the `rst_` prefix lets secret scanners in tests spot a leaked one. */
  issue(caller: Caller, ttlSeconds: number): string {
    const token = `rst_${randomBytes(32).toString('base64url')}`;
    this.tokens.set(hashKey(token), { ...caller, expiresAt: this.now() + ttlSeconds * 1000 });
    return token;
  }

  /** The caller behind a live token; expired tokens are forgotten on sight. */
  resolve(token: string): Caller | undefined {
    const key = hashKey(token);
    const issued = this.tokens.get(key);
    if (!issued) return undefined;
    if (issued.expiresAt <= this.now()) {
      this.tokens.delete(key);
      return undefined;
    }
    const { expiresAt: _expiresAt, ...caller } = issued;
    return caller;
  }

  /** Revokes every token issued so far; returns how many were live. */
  revokeAll(): number {
    const now = this.now();
    const live = [...this.tokens.values()].filter((t) => t.expiresAt > now).length;
    this.tokens.clear();
    return live;
  }
}

/** Constant-time secret check: comparing equal-length digests hides both content and length. */
export function secretMatches(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

export interface TokenContext {
  clients: readonly DemoClient[];
  store: TokenStore;
  ttlSeconds: number;
  /** The `scope-required` quirk: a request must ask for every value of this scope (and may for the client's). */
  requiredScope?: string;
}

export interface TokenResult {
  response: SandboxResponse;
  /** The authenticated client, for the request log (never the secret). */
  clientId?: string;
}

const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

function oauthError(status: number, error: string, description: string, basicChallenge = false): TokenResult {
  const headers: Record<string, string> = { ...NO_STORE };
  if (basicChallenge) headers['WWW-Authenticate'] = `Basic realm="${BASIC_REALM}", charset="UTF-8"`;
  return { response: { status, headers, body: { error, error_description: description } } };
}

type Credentials = { clientId: string; clientSecret: string };
/** A step of the grant either yields what it read or the answer that ends the request. */
const isAnswer = (step: object): step is TokenResult => 'response' in step;

/** POST to one of TOKEN_ENDPOINTS: the client credentials grant. */
export function handleTokenRequest(req: SandboxRequest, endpoint: string, ctx: TokenContext): TokenResult {
  if (req.method !== 'POST') {
    return {
      response: { status: 405, headers: { Allow: 'POST' }, body: { message: `Use POST for ${endpoint}` } },
    };
  }
  const form = readForm(req);
  if (isAnswer(form)) return form;
  const basic = basicCredentials(req);
  if (basic && isAnswer(basic)) return basic;
  const refusal = checkCredentialForms(form, basic) ?? checkGrantType(form);
  if (refusal) return refusal;
  const client = authenticateClient(form, basic, ctx);
  if (isAnswer(client)) return client;
  const requested = (form.get('scope') ?? '').split(' ').filter((s) => s !== '');
  const scopeRefusal = checkScope(requested, client, ctx);
  if (scopeRefusal) return { ...scopeRefusal, clientId: client.clientId };
  return issueToken(requested, client, endpoint, ctx);
}

/** The body, optional as a whole (§4.1), and a form when present. */
function readForm(req: SandboxRequest): Map<string, string> | TokenResult {
  const contentType = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (req.body.length > 0 && contentType !== 'application/x-www-form-urlencoded') {
    return oauthError(400, 'invalid_request', 'The request body must be application/x-www-form-urlencoded');
  }
  try {
    return parseForm(req.body.toString('utf8'));
  } catch (err) {
    const why = err instanceof FormDecodeError ? err.message : 'unreadable form';
    return oauthError(400, 'invalid_request', `The request body is not a valid form: ${why}`);
  }
}

/** The client's id and secret from HTTP Basic, if it sent an Authorization header. */
function basicCredentials(req: SandboxRequest): Credentials | TokenResult | undefined {
  const auth = splitAuthorization(req.headers.authorization);
  if (!auth) return undefined;
  if (auth.scheme !== 'basic') {
    return oauthError(400, 'invalid_request', 'Authenticate the client with HTTP Basic or form fields');
  }
  try {
    return decodeBasicCredentials(auth.value);
  } catch (err) {
    const why = err instanceof FormDecodeError ? err.message : 'unreadable';
    return oauthError(
      400,
      'invalid_request',
      `Malformed HTTP Basic credentials (${why}); encode client id and secret as application/x-www-form-urlencoded before base64 (RFC 6749 section 2.3.1)`,
    );
  }
}

/** RFC 6749 §2.3: a client must not use more than one authentication method per request. */
function checkCredentialForms(
  form: Map<string, string>,
  basic: Credentials | undefined,
): TokenResult | undefined {
  if (!basic || (form.get('client_id') === undefined && form.get('client_secret') === undefined))
    return undefined;
  return oauthError(
    400,
    'invalid_request',
    'Send client credentials either with HTTP Basic or as form fields, not both',
  );
}

function checkGrantType(form: Map<string, string>): TokenResult | undefined {
  const grantType = form.get('grant_type');
  if (grantType === undefined || grantType === '') {
    return oauthError(400, 'invalid_request', 'The grant_type parameter is missing');
  }
  if (grantType !== 'client_credentials') {
    return oauthError(400, 'unsupported_grant_type', 'Only grant_type=client_credentials is supported');
  }
  return undefined;
}

/** The demo client these credentials (Basic, else the form's) belong to, if it may have a token. */
function authenticateClient(
  form: Map<string, string>,
  basic: Credentials | undefined,
  ctx: TokenContext,
): DemoClient | TokenResult {
  const formId = form.get('client_id');
  const formSecret = form.get('client_secret');
  const credentials =
    basic ?? (formId !== undefined ? { clientId: formId, clientSecret: formSecret } : undefined);
  if (!credentials || credentials.clientSecret === undefined) {
    return oauthError(401, 'invalid_client', 'No client credentials were sent', true);
  }
  const client = ctx.clients.find((c) => c.clientId === credentials.clientId);
  // Compare against a dummy for unknown ids too, so timing does not reveal which ids exist.
  const secretOk = secretMatches(credentials.clientSecret, client?.clientSecret ?? '\u0000no-such-client');
  if (!client || !secretOk) {
    return oauthError(
      401,
      'invalid_client',
      'Client authentication failed: unknown client or wrong secret',
      true,
    );
  }
  if (client.suspended) {
    return {
      ...oauthError(
        400,
        'invalid_grant',
        'This API client is suspended; ask the service operator to reinstate it',
      ),
      clientId: client.clientId,
    };
  }
  return client;
}

/** The scopes asked for against the client's own and those the endpoint requires (the `scope-required` quirk). */
function checkScope(requested: string[], client: DemoClient, ctx: TokenContext): TokenResult | undefined {
  const required = ctx.requiredScope?.split(' ') ?? [];
  if (required.length > 0 && requested.length === 0) {
    return oauthError(400, 'invalid_request', 'scope is required');
  }
  const missing = required.filter((s) => !requested.includes(s));
  const refused = requested.filter((s) => !client.scopes.includes(s) && !required.includes(s));
  if (refused.length === 0 && missing.length === 0) return undefined;
  const why =
    refused.length > 0
      ? `Scope not allowed for this client: ${refused.join(' ')}`
      : `This token endpoint requires the scope ${missing.join(' ')}`;
  return oauthError(400, 'invalid_scope', why);
}

function issueToken(
  requested: string[],
  client: DemoClient,
  endpoint: string,
  ctx: TokenContext,
): TokenResult {
  const scope = requested.length > 0 ? requested.join(' ') : undefined;
  const caller: Caller = { clientId: client.clientId, label: client.label, tokenEndpoint: endpoint };
  if (scope !== undefined) caller.scope = scope;
  const accessToken = ctx.store.issue(caller, ctx.ttlSeconds);
  const body: Record<string, unknown> = {
    access_token: accessToken,
    token_type: 'bearer',
    expires_in: ctx.ttlSeconds,
  };
  if (scope !== undefined) body.scope = scope;
  return { response: { status: 200, headers: { ...NO_STORE }, body }, clientId: client.clientId };
}

/** The caller of a resource endpoint, or the 401 to answer (spec §5.3: Basic is for token endpoints only). */
export function authenticateBearer(
  req: SandboxRequest,
  store: TokenStore,
): { caller: Caller } | { response: SandboxResponse } {
  const deny = (error: 'invalid_token' | 'invalid_request', message: string) => ({
    response: { status: 401, headers: { 'WWW-Authenticate': `Bearer error="${error}"` }, body: { message } },
  });
  const auth = splitAuthorization(req.headers.authorization);
  if (!auth) return deny('invalid_token', 'An access token is required: send Authorization: Bearer <token>');
  if (auth.scheme === 'basic') {
    return deny('invalid_request', 'HTTP Basic is accepted at token endpoints only; send a Bearer token');
  }
  if (auth.scheme !== 'bearer' || !/^[A-Za-z0-9\-._~+/]+=*$/.test(auth.value)) {
    return deny('invalid_request', 'Malformed Authorization header: expected Bearer <token>');
  }
  const caller = store.resolve(auth.value);
  if (!caller) return deny('invalid_token', 'The access token is invalid, expired or revoked');
  return { caller };
}
