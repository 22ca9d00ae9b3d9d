import { describe, expect, it } from 'vitest';
import { isLoopbackHost, parseBaseUrl } from '../../src/base-url.js';
import { UsageError } from '../../src/errors.js';

const refusal = (input: string): UsageError => {
  try {
    parseBaseUrl(input, 'ROSTER_BASE_URL');
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return error as UsageError;
  }
  throw new Error(`accepted ${JSON.stringify(input)}`);
};

describe('isLoopbackHost', () => {
  it('knows the loopback names and addresses', () => {
    for (const host of [
      'localhost',
      'LOCALHOST',
      'api.localhost',
      '127.0.0.1',
      '127.1.2.3',
      '::1',
      '[::1]',
    ]) {
      expect(isLoopbackHost(host), host).toBe(true);
    }
    for (const host of ['example.com', '128.0.0.1', '10.0.0.1', 'localhost.example.com', '::2', '0.0.0.0']) {
      expect(isLoopbackHost(host), host).toBe(false);
    }
  });
});

describe('parseBaseUrl', () => {
  it('accepts https anywhere and strips trailing slashes', () => {
    expect(parseBaseUrl('https://api.district.example/v1')).toBe('https://api.district.example/v1');
    expect(parseBaseUrl('https://api.district.example/v1/')).toBe('https://api.district.example/v1');
    expect(parseBaseUrl('https://api.district.example/v1//')).toBe('https://api.district.example/v1');
    expect(parseBaseUrl('https://API.District.Example:8443/v1')).toBe('https://api.district.example:8443/v1');
    expect(parseBaseUrl('https://api.district.example/')).toBe('https://api.district.example');
  });

  it('accepts plain http only to loopback', () => {
    expect(parseBaseUrl('http://127.0.0.1:8080/v1/')).toBe('http://127.0.0.1:8080/v1');
    expect(parseBaseUrl('http://127.9.9.9/v1')).toBe('http://127.9.9.9/v1');
    expect(parseBaseUrl('http://localhost:3000/v1')).toBe('http://localhost:3000/v1');
    expect(parseBaseUrl('http://[::1]:3000/v1')).toBe('http://[::1]:3000/v1');
    const error = refusal('http://api.district.example/v1');
    expect(error.message).toBe(
      'Refusing plain http:// to api.district.example: credentials and tokens would travel unencrypted.',
    );
    expect(error.hint).toMatch(/https:\/\//);
    expect(refusal('http://10.0.0.5/v1').message).toMatch(/Refusing plain http/);
  });

  it('refuses other schemes, credentials, queries, fragments and control characters', () => {
    expect(refusal('ftp://api.example/v1').message).toBe(
      'Invalid base URL from ROSTER_BASE_URL: it must start with https://.',
    );
    expect(refusal('https://user:pw@api.example/v1').message).toMatch(/user name or password/);
    expect(refusal('https://user@api.example/v1').message).toMatch(/user name or password/);
    expect(refusal('https://api.example/v1?x=1').message).toMatch(/query string or fragment/);
    expect(refusal('https://api.example/v1#top').message).toMatch(/query string or fragment/);
    expect(refusal('https://api.example/v1\n').message).toMatch(/control characters/);
    expect(refusal('https://api.ex\tample/v1').message).toMatch(/control characters/);
    expect(refusal('https://api.example/ v1').message).toMatch(/spaces/);
    expect(refusal('api.example/v1').message).toMatch(/is not a URL/);
    expect(refusal('').message).toMatch(/is not a URL/);
  });

  it('never returns a base that would turn appended paths into a query or fragment', () => {
    // A bare "?" or "#" leaves url.search / url.hash empty; appending /oauth/token must still give a path.
    for (const input of ['https://api.example/v1?', 'https://api.example/v1#', 'https://api.example/v1/?']) {
      let base: string;
      try {
        base = parseBaseUrl(input);
      } catch {
        continue; // refusing is fine too
      }
      const url = new URL(`${base}/oauth/token`);
      expect(url.pathname, input).toBe('/v1/oauth/token');
      expect(url.search + url.hash, input).toBe('');
    }
  });
});
