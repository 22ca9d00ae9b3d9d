import { describe, expect, it } from 'vitest';
import { basicAuthorization } from '../../src/api/oauth.js';
import { Redactor } from '../../src/redact.js';

const SECRET = 'Sp3c+al/se:cr%et&x=y! z';

describe('Redactor', () => {
  it('redacts a registered secret raw, URL-encoded and form-encoded', () => {
    const r = new Redactor();
    r.add(SECRET);
    const raw = `the secret is ${SECRET}.`;
    const uri = `q=${encodeURIComponent(SECRET)}`;
    const form = `secret=${new URLSearchParams({ s: SECRET }).toString().slice(2)}&x=1`;
    for (const text of [raw, uri, form]) {
      const out = r.redact(text);
      expect(out).toContain('[redacted]');
      expect(out).not.toContain(SECRET);
      expect(out).not.toContain(encodeURIComponent(SECRET));
      expect(out).not.toContain('Sp3c');
    }
  });

  it('leaves ordinary text and too-short values alone', () => {
    const r = new Redactor();
    r.add('abc'); // too short to redact safely
    r.add(undefined);
    r.add('');
    expect(r.redact('abc def')).toBe('abc def');
    expect(r.redact('Attendance check failed (HTTP 403): not enabled')).toBe(
      'Attendance check failed (HTTP 403): not enabled',
    );
  });

  it('redacts Bearer and Basic values it was never told about', () => {
    const r = new Redactor();
    const basic = basicAuthorization({ clientId: 'id', clientSecret: SECRET });
    expect(r.redact(`authorization: ${basic}`)).toBe('authorization: Basic [redacted]');
    expect(r.redact('authorization: Bearer eyJhbGciOi.J9x_y-z~1+/=')).toBe(
      'authorization: Bearer [redacted]',
    );
    expect(r.redact('authorization: bearer abcDEF123456')).toBe('authorization: bearer [redacted]');
  });

  it('redacts token and secret fields in JSON and form bodies', () => {
    const r = new Redactor();
    expect(r.redact('{"access_token":"tok-123","token_type":"bearer"}')).toBe(
      '{"access_token":"[redacted]","token_type":"bearer"}',
    );
    expect(r.redact('{"client_secret" : "x y", "refresh_token":"r"}')).toBe(
      '{"client_secret" : "[redacted]", "refresh_token":"[redacted]"}',
    );
    expect(r.redact('grant_type=client_credentials&client_id=a&client_secret=p%2Bq&access_token=t')).toBe(
      'grant_type=client_credentials&client_id=a&client_secret=[redacted]&access_token=[redacted]',
    );
  });

  it("keeps a server's ordinary words after Bearer or Basic readable", () => {
    const r = new Redactor();
    expect(r.redact('HTTP Basic is accepted at token endpoints only; send a Bearer token')).toBe(
      'HTTP Basic is accepted at token endpoints only; send a Bearer token',
    );
    expect(r.redact('Authenticate the client with HTTP Basic or form fields')).toBe(
      'Authenticate the client with HTTP Basic or form fields',
    );
  });
});

describe('Redactor on challenges', () => {
  it('keeps auth-params of a WWW-Authenticate challenge readable', () => {
    const r = new Redactor();
    expect(r.redact('< www-authenticate: Bearer error="invalid_token"')).toBe(
      '< www-authenticate: Bearer error="invalid_token"',
    );
    expect(r.redact('< www-authenticate: Basic realm="roster-sandbox", charset="UTF-8"')).toBe(
      '< www-authenticate: Basic realm="roster-sandbox", charset="UTF-8"',
    );
    // …while a quoted credential is still redacted whole.
    expect(r.redact('{"authorization":"Bearer abc123"}')).toBe('{"authorization":"Bearer [redacted]"}');
    expect(r.redact('Basic YWJjZA==')).toBe('Basic [redacted]');
  });
});
