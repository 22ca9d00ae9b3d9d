import { describe, expect, it } from 'vitest';
import { decodeBasicCredentials, parseForm } from '../../src/sandbox/form.js';
import { isLoopbackHost } from '../../src/sandbox/http.js';
import { formEncode } from './helpers.js';

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

describe('decodeBasicCredentials (RFC 6749 §2.3.1)', () => {
  it('splits at the first colon and form-decodes each half', () => {
    const secret = 'Sp3c+al/se:cr%et&x=y! z';
    expect(decodeBasicCredentials(b64(`${formEncode('id:x')}:${formEncode(secret)}`))).toEqual({
      clientId: 'id:x',
      clientSecret: secret,
    });
    expect(decodeBasicCredentials(b64('a:b:c'))).toEqual({ clientId: 'a', clientSecret: 'b:c' });
    expect(decodeBasicCredentials(b64('a+b:c%2Bd'))).toEqual({ clientId: 'a b', clientSecret: 'c+d' });
    expect(decodeBasicCredentials(b64('caf%C3%A9:x'))).toEqual({ clientId: 'café', clientSecret: 'x' });
  });

  it.each(['%', '%zz', '%C3', 'ok%2'])('refuses the malformed secret %j', (secret) => {
    expect(() => decodeBasicCredentials(b64(`id:${secret}`))).toThrow(/percent/);
  });

  it('refuses non-base64, a missing colon and invalid UTF-8', () => {
    expect(() => decodeBasicCredentials('a b')).toThrow(/base64/);
    expect(() => decodeBasicCredentials('YWJj')).toThrow(/colon/);
    expect(() => decodeBasicCredentials(Buffer.from([0xff, 0x3a, 0x61]).toString('base64'))).toThrow(/UTF-8/);
  });
});

describe('parseForm', () => {
  it('decodes + and %XX, and refuses repeats and malformed sequences', () => {
    expect(Object.fromEntries(parseForm('a=1+2&b=%26%3D&c&&'))).toEqual({ a: '1 2', b: '&=', c: '' });
    expect(() => parseForm('a=1&a=2')).toThrow(/repeated/);
    expect(() => parseForm('a=%')).toThrow(/percent/);
  });
});

describe('isLoopbackHost', () => {
  it.each(['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1'])(
    'accepts %s',
    (host) => expect(isLoopbackHost(host)).toBe(true),
  );
  it.each(['0.0.0.0', '::', '10.0.0.1', '128.0.0.1', 'localhost.example.com', '', '::ffff:10.0.0.1'])(
    'refuses %j',
    (host) => expect(isLoopbackHost(host)).toBe(false),
  );
});
