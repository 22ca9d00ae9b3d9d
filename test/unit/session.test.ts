// Which token endpoint serves which purpose, and what the token cache is keyed by.
import { describe, expect, it } from 'vitest';
import type { Profile } from '../../src/config-file.js';
import { endpointPath, notFoundHint, Session } from '../../src/session.js';
import {
  DEFAULT_MAX_RECORDS,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_TIMEOUT_MS,
  type Settings,
} from '../../src/settings.js';
import { fakeContext } from '../helpers/context.js';

const BASE = 'https://api.example/v1';

function settings(over: Partial<Settings> = {}, profile: Profile = {}): Settings {
  return {
    profileName: 'default',
    profile,
    config: { profiles: { default: profile } },
    configFile: '/nowhere/config.json',
    baseUrl: BASE,
    clientId: 'district-42',
    clientAuth: 'basic',
    oneroster: '1.1',
    scopes: {
      general: undefined,
      invitations: undefined,
      'oneroster-1.1': undefined,
      'oneroster-1.2': undefined,
    },
    timeoutMs: DEFAULT_TIMEOUT_MS,
    maxResponseBytes: DEFAULT_MAX_RESPONSE_BYTES,
    maxRecords: DEFAULT_MAX_RECORDS,
    ...over,
  };
}

const session = (s: Settings) => new Session(fakeContext().ctx, s);

describe('Session.tokenSource', () => {
  it('picks the token endpoint of each purpose', () => {
    const s = session(settings());
    expect(s.tokenSource('general').key.endpoint).toBe('/oauth/token');
    expect(s.tokenSource('invitations').key.endpoint).toBe('/ims/oneroster/v1p1/token');
    expect(s.tokenSource('oneroster-1.1').key.endpoint).toBe('/ims/oneroster/v1p1/token');
    expect(s.tokenSource('oneroster-1.2').key.endpoint).toBe('/ims/oneroster/v1p2/token');
  });

  it('lets a profile override endpoints and scopes, and an explicit choice override the profile', () => {
    const s = session(
      settings(
        {
          scopes: {
            general: 'attendance',
            invitations: 'attendance',
            'oneroster-1.1': 'roster.readonly',
            'oneroster-1.2': 'roster.readonly',
          },
        },
        { tokenEndpoints: { general: 'v1p2', invitations: '/custom/token' } },
      ),
    );
    expect(s.tokenSource('general').key).toMatchObject({
      endpoint: '/ims/oneroster/v1p2/token',
      scope: 'attendance',
    });
    expect(s.tokenSource('invitations').key.endpoint).toBe('/custom/token');
    expect(s.tokenSource('oneroster-1.2').key.scope).toBe('roster.readonly');
    expect(s.tokenSource('general', { endpoint: 'oauth', scope: 'x' }).key).toMatchObject({
      endpoint: '/oauth/token',
      scope: 'x',
    });
  });

  it('keys tokens of environment credentials by a fingerprint of the secret, never the secret', () => {
    const env = (secret: string) =>
      session(
        settings({ envCredentials: { clientId: 'ci-client', clientSecret: secret }, clientId: 'ci-client' }),
      );
    const a = env('first-secret-value').tokenSource('general').key;
    const b = env('second-secret-value').tokenSource('general').key;
    const a2 = env('first-secret-value').tokenSource('general').key;
    // The first 12 hex digits of SHA-256 over "roster-token-cache\0<id>\0<secret>": tokens cached by
    // earlier versions keep their key.
    expect(a.clientId).toBe('ci-client#c2fe18753cd5');
    expect(a.clientId).not.toBe(b.clientId);
    expect(a.clientId).toBe(a2.clientId);
    expect(JSON.stringify([a, b])).not.toContain('secret-value');
    // A saved profile keys by its plain client id.
    expect(session(settings()).tokenSource('general').key.clientId).toBe('district-42');
  });

  it('needs a base URL', () => {
    expect(() => session(settings({ baseUrl: undefined }))).toThrow(/No base URL for profile "default"/);
  });
});

describe('endpointPath', () => {
  it('maps names to paths and accepts a path below the base URL', () => {
    expect(endpointPath('oauth')).toBe('/oauth/token');
    expect(endpointPath('v1p1')).toBe('/ims/oneroster/v1p1/token');
    expect(endpointPath('v1p2')).toBe('/ims/oneroster/v1p2/token');
    expect(endpointPath('/vendor/oauth2/token')).toBe('/vendor/oauth2/token');
  });

  it('refuses anything else as a usage error', () => {
    for (const bad of [
      'token',
      'https://evil.example/token',
      '/a?b=1',
      '/a#b',
      '/a b',
      '',
      'toString',
      'constructor',
      '__proto__',
    ]) {
      expect(() => endpointPath(bad), bad).toThrow(/Invalid token endpoint/);
    }
  });
});

describe('notFoundHint (a token endpoint that answers 404)', () => {
  it("names the profile's endpoint setting when the profile chose the path", () => {
    expect(
      notFoundHint('https://api.example.org/v1', 'oneroster-1.1', '/custom/token', '/custom/token'),
    ).toBe(
      "This profile sends OneRoster 1.1 tokens' requests to /custom/token: check it (`roster config get tokenEndpoints.oneroster-1.1`).",
    );
  });

  it('blames a base URL without the service path (/v1), naming the address', () => {
    for (const base of ['https://api.example.org', 'https://api.example.org/api'])
      expect(notFoundHint(base, 'general', '/oauth/token', undefined)).toBe(
        `Check the base URL, which includes the service's path (as in https://api.example.org/v1): nothing answers at ${base}/oauth/token.`,
      );
  });

  it('with a base URL ending in /v1 and the default path, points to the other endpoints', () => {
    expect(
      notFoundHint('https://api.example.org/v1', 'invitations', '/ims/oneroster/v1p1/token', undefined),
    ).toBe(
      'If this server gives invitation tokens at another address, name it: `roster config set tokenEndpoints.invitations oauth` (or v1p1, v1p2, a /path).',
    );
  });
});
