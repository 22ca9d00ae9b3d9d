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

describe('Redactor on a secret in any encoding', () => {
  const secret = 'Sp3c+al/se:cr%et&x=y! zé';
  const r = new Redactor();
  r.add(secret);
  const hex = (text: string, lower: boolean) =>
    text.replace(/%[0-9A-F]{2}/g, (h) => (lower ? h.toLowerCase() : h.toUpperCase()));
  const form = new URLSearchParams({ s: secret }).toString().slice(2);

  it.each([
    ['URL-encoded, upper-case hex', encodeURIComponent(secret)],
    ['URL-encoded, lower-case hex', hex(encodeURIComponent(secret), true)],
    ['form-encoded (+ for a space)', form],
    ['form-encoded, lower-case hex', hex(form, true)],
    ['form-encoded with %20 for a space', form.replace(/\+/g, '%20')],
    ['mixed: some characters encoded, some not', 'Sp3c%2bal/se%3Acr%25et&x=y!%20z%C3%a9'],
    ['escaped in JSON', 'Sp3c\\u002Bal\\/se:cr%et&x=y! z\\u00e9'],
  ])('%s', (_name, echoed) => {
    expect(r.redact(`you sent "${echoed}".`)).toBe('you sent "[redacted]".');
  });

  it('a text cut short inside the secret: its beginning is redacted', () => {
    expect(r.redact(`you sent Sp3c%2Bal%2Fse…`)).toBe('you sent [redacted]…');
    expect(r.redact(`< {"got":"Sp3c+al`)).toBe('< {"got":"[redacted]');
    // Not in the middle of a text, and not below four characters.
    expect(r.redact('Sp3c+al is a word here')).toBe('Sp3c+al is a word here');
    expect(r.redact('ends with Sp3…')).toBe('ends with Sp3…');
  });

  it('the Basic credential (base64 of the form-encoded id:secret), with or without its prefix', () => {
    const credential = basicAuthorization({ clientId: 'id 1', clientSecret: secret }).slice('Basic '.length);
    const r2 = new Redactor();
    r2.add(credential);
    expect(r2.redact(`realm="${credential}"`)).toBe('realm="[redacted]"');
    expect(r2.redact(`got ${hex(encodeURIComponent(credential), true)}`)).toBe('got [redacted]');
    // base64 is case-sensitive: another case is another value.
    expect(r2.redact(credential.toLowerCase())).toBe(credential.toLowerCase());
  });
});

describe('Redactor on long secrets and long texts', () => {
  const secret = `eyJ${'Ab3-_x9.'.repeat(8192)}`; // 64 KB, a JWT's alphabet

  it('a 64 KB secret: whole, percent-encoded, cut short; its alphabet alone is left alone', () => {
    const r = new Redactor();
    r.add(secret);
    expect(r.redact(`a ${secret} b`)).toBe('a [redacted] b');
    expect(r.redact(`a ${encodeURIComponent(secret).replace(/\./g, '%2E')} b`)).toBe('a [redacted] b');
    expect(r.redact(`cut ${secret.slice(0, 40_000)}…`)).toBe('cut [redacted]…');
    const alphabet = 'Ab3-_x9.'.repeat(100_000); // 800 KB of the secret's characters, not the secret
    expect(r.redact(alphabet)).toBe(alphabet);
  });

  it('a secret that repeats itself inside a long run: every occurrence, and the cut beginning', () => {
    const r = new Redactor();
    r.add('AAAAAA');
    expect(r.redact(`x ${'A'.repeat(13)} y`)).toBe('x [redacted] y');
    expect(r.redact(`x ${'A'.repeat(300_000)}`)).toBe('x [redacted]');
    expect(r.redact('x AAAA…')).toBe('x [redacted]…');
  });
});

describe('Redactor on a secret that looks encoded itself', () => {
  it('a raw %41, \\u0041 or + in the secret: found raw, encoded, and cut short', () => {
    for (const secret of ['ab%41cd-x9+z', 'q\\u0041w/e+r t']) {
      const r = new Redactor();
      r.add(secret);
      expect(r.redact(`raw ${secret} end`)).toBe('raw [redacted] end');
      expect(r.redact(`url ${encodeURIComponent(secret)} end`)).toBe('url [redacted] end');
      expect(r.redact(`cut ${secret.slice(0, 7)}…`)).toBe('cut [redacted]…');
    }
  });
});

describe('Redactor.redactEchoes (stdout)', () => {
  const r = new Redactor();
  r.add(SECRET);
  r.add('tok-abcdef123456');
  const lines = [
    '{"id":"1","note":"Bearer abc and access_token=xyz stay: they are data"}',
    `{"id":"2","note":"${SECRET.replace(/\//g, '\\/')}"}`,
    `2,${encodeURIComponent(SECRET)},tok-abcdef123456`,
    'stu-3\tcut short: tok-abcd…',
  ];

  it('redacts the secrets in every line that holds them, in any encoding, and touches nothing else', () => {
    const out = r.redactEchoes(`${lines.join('\n')}\n`).split('\n');
    expect(out[0]).toBe(lines[0]);
    expect(out[1]).toBe('{"id":"2","note":"[redacted]"}');
    expect(out[2]).toBe('2,[redacted],[redacted]');
    expect(out[3]).toBe('stu-3\tcut short: [redacted]…');
    expect(out[4]).toBe('');
  });

  it('returns a text without them as it is, and any text when no secret is known', () => {
    const text = 'sourcedId\tgivenName\nstu-1\tZoë\n'.repeat(1000);
    expect(r.redactEchoes(text)).toBe(text);
    expect(new Redactor().redactEchoes(`${SECRET}\n`)).toBe(`${SECRET}\n`);
  });
});
