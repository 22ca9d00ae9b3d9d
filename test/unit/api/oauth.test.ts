import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { basicAuthorization, formEncode, parseTokenResponse } from '../../../src/api/oauth.js';
import type { HttpResponse } from '../../../src/api/transport.js';
import { AuthError, exitCodeFor, RosterError } from '../../../src/errors.js';

const NOW = Date.UTC(2025, 0, 1);

const response = (status: number, body: unknown, headers: Record<string, string> = {}): HttpResponse => ({
  status,
  headers: { 'content-type': 'application/json', ...headers },
  body: typeof body === 'string' ? body : JSON.stringify(body),
  url: 'https://api.example/v1/oauth/token',
});

/** What a server does with the header: base64-decode, split at the first ':', form-decode each half. */
function decodeBasic(header: string): { id: string; secret: string } {
  const [scheme, value = ''] = header.split(' ');
  expect(scheme).toBe('Basic');
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const formDecode = (s: string) => new URLSearchParams(`v=${s}`).get('v') ?? '';
  return { id: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)) };
}

const thrown = (run: () => unknown): RosterError => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(RosterError);
    return error as RosterError;
  }
  throw new Error('did not throw');
};

describe('formEncode and basicAuthorization (RFC 6749 §2.3.1)', () => {
  it('form-encodes before base64: + / : % & = ! and space', () => {
    expect(formEncode('Sp3c+al/se:cr%et&x=y! z')).toBe('Sp3c%2Bal%2Fse%3Acr%25et%26x%3Dy%21+z');
    const header = basicAuthorization({ clientId: 'demo-special', clientSecret: 'Sp3c+al/se:cr%et&x=y! z' });
    expect(header).toBe(
      `Basic ${Buffer.from('demo-special:Sp3c%2Bal%2Fse%3Acr%25et%26x%3Dy%21+z').toString('base64')}`,
    );
  });

  it('round-trips any client id and secret, including ":" in either', () => {
    const text = fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.stringMatching(/^[:+%&= /!]*$/));
    fc.assert(
      fc.property(text, text, (id, secret) => {
        const header = basicAuthorization({ clientId: id, clientSecret: secret });
        expect(header).toMatch(/^Basic [A-Za-z0-9+/]*={0,2}$/);
        expect(decodeBasic(header)).toEqual({ id, secret });
      }),
      { numRuns: 500 },
    );
  });
});

describe('parseTokenResponse', () => {
  it('reads the spec §2.2 success body', () => {
    const token = parseTokenResponse(
      response(200, { access_token: 'tok', token_type: 'Bearer', expires_in: 3600, scope: 'attendance' }),
      NOW,
    );
    expect(token).toEqual({
      accessToken: 'tok',
      tokenType: 'bearer',
      expiresIn: 3600,
      expiresAt: NOW + 3600_000,
      scope: 'attendance',
    });
  });

  it('accepts expires_in as a numeric string, and a missing token_type', () => {
    const token = parseTokenResponse(response(200, { access_token: 'tok', expires_in: '1800' }), NOW, 'req');
    expect(token.expiresAt).toBe(NOW + 1800_000);
    expect(token.expiresIn).toBe(1800);
    expect(token.scope).toBe('req'); // the requested scope when the server does not echo one
  });

  it('defaults a missing expires_in to the spec 3600 s', () => {
    expect(parseTokenResponse(response(200, { access_token: 'tok' }), NOW).expiresAt).toBe(NOW + 3600_000);
  });

  it('clamps expires_in to 1 s … 24 h, and reads nonsense as the spec 3600 s', () => {
    const cases: [unknown, number][] = [
      [99_999_999_999_999, 86_400],
      ['99999999999999', 86_400],
      [86_401, 86_400],
      [1800.75, 1800],
      [' 1800 ', 1800],
      [0, 1],
      [0.4, 1],
      [-5, 3600],
      ['-5', 3600],
      ['soon', 3600],
      ['NaN', 3600],
      ['Infinity', 3600],
      ['0x10', 3600],
      ['', 3600],
      [true, 3600],
      [null, 3600],
      [Number.POSITIVE_INFINITY, 3600],
    ];
    for (const [expiresIn, lifetime] of cases) {
      const token = parseTokenResponse(response(200, { access_token: 'tok', expires_in: expiresIn }), NOW);
      expect(token.expiresIn, String(expiresIn)).toBe(lifetime);
      expect(token.expiresAt).toBe(NOW + lifetime * 1000);
    }
  });

  it('refuses a 200 that is not a usable bearer token', () => {
    const cases: [unknown, RegExp][] = [
      [{ access_token: 'tok', token_type: 'mac' }, /token_type "mac" instead of bearer/],
      [{ token_type: 'bearer' }, /without an access_token/],
      [{ access_token: '' }, /without an access_token/],
      [{ access_token: 42 }, /without an access_token/],
      ['<html><body>Login</body></html>', /not with a JSON object/],
      ['', /not with a JSON object/],
      [[{ access_token: 'tok' }], /not with a JSON object/],
    ];
    for (const [body, message] of cases) {
      const error = thrown(() => parseTokenResponse(response(200, body), NOW));
      expect(error.code, JSON.stringify(body)).toBe('unexpected');
      expect(error.message).toMatch(/^The token endpoint answered 200 but /);
      expect(error.message).toMatch(message);
    }
  });

  it.each([
    'invalid_request',
    'invalid_client',
    'invalid_grant',
    'unauthorized_client',
    'unsupported_grant_type',
    'invalid_scope',
  ])('turns OAuth error %s into an authentication error with the server description', (error) => {
    const status = error === 'invalid_client' ? 401 : 400;
    const e = thrown(() =>
      parseTokenResponse(response(status, { error, error_description: `Server says: ${error}` }), NOW),
    );
    expect(e).toBeInstanceOf(AuthError);
    expect(e.code).toBe('auth');
    expect(e.message).toBe(
      `The token endpoint refused the request (HTTP ${status}): Server says: ${error} (${error})`,
    );
    if (error === 'invalid_client') expect(e.hint).toMatch(/--client-auth basic\|post/);
    if (error === 'invalid_scope') expect(e.hint).toMatch(/scope/);
  });

  it.each([
    [{ error: 'invalid_request', error_description: 'scope is required' }, true],
    [{ error: 'invalid_request', error_description: 'The Scope parameter is missing' }, true],
    [{ error: 'invalid_scope' }, true],
    [{ error: 'invalid_request', error_description: 'The grant_type parameter is missing' }, false],
    [{ error: 'invalid_request', error_description: 'telescopes are not tokens' }, false],
  ])("a token error about the scope (%j: %s) gets the caller's scope hint, exit 4", (body, aboutScope) => {
    const e = thrown(() => parseTokenResponse(response(400, body), NOW, undefined, 'SCOPE HINT'));
    expect(e).toBeInstanceOf(AuthError);
    expect(exitCodeFor(e)).toBe(4);
    if (aboutScope) expect(e.hint).toBe('SCOPE HINT');
    else expect(e.hint).toMatch(/^Check the client id and secret/);
    // Without a caller's hint, a scope error still points at the scope settings.
    const bare = thrown(() => parseTokenResponse(response(400, body), NOW));
    if (aboutScope) expect(bare.hint).toMatch(/roster config get scope/);
  });

  it('shows the bare error code when there is no description', () => {
    const e = thrown(() => parseTokenResponse(response(400, { error: 'invalid_grant' }), NOW));
    expect(e.message).toBe('The token endpoint refused the request (HTTP 400): invalid_grant');
  });

  it('turns a non-OAuth 401 into an authentication error and a 5xx into an API error', () => {
    const e401 = thrown(() => parseTokenResponse(response(401, { message: 'Nope' }), NOW));
    expect(e401.code).toBe('auth');
    expect(e401.message).toBe('The token endpoint refused the client credentials (HTTP 401): Nope.');
    const e503 = thrown(() =>
      parseTokenResponse(
        {
          ...response(503, '<html><title>Bad gateway</title></html>'),
          headers: { 'content-type': 'text/html' },
        },
        NOW,
      ),
    );
    expect(e503.code).toBe('api');
    expect(e503.message).toBe('The token endpoint failed (HTTP 503): an answer that is not an OAuth error');
    const e500 = thrown(() => parseTokenResponse(response(500, ''), NOW));
    expect(e500.code).toBe('api');
    expect(e500.message).toBe('The token endpoint failed (HTTP 500): an empty answer');
    const e502 = thrown(() => parseTokenResponse(response(502, { message: 'upstream down' }), NOW));
    expect(e502.message).toBe('The token endpoint failed (HTTP 502): upstream down');
    // A failing server is exit 1, not an authentication problem, even with an OAuth-shaped body.
    const oauth503 = thrown(() =>
      parseTokenResponse(
        response(503, { error: 'temporarily_unavailable', error_description: 'try later' }),
        NOW,
      ),
    );
    expect(oauth503.code).toBe('api');
    expect(oauth503.message).toBe(
      'The token endpoint failed (HTTP 503): try later (temporarily_unavailable)',
    );
  });
});
