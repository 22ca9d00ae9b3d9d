// A hostile token endpoint on 127.0.0.1 echoes the client secret back in every encoding roster sends it
// in, and in the ones a server might re-encode it to: raw, the Basic credential without its "Basic "
// prefix, percent-encoded in upper and lower case hex (URL and form encoding, a space as + or %20), and
// escaped inside JSON (\/, \u002B). Under --debug (which traces headers and error bodies) none of them
// reaches stdout or stderr, with either client authentication method.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuthorization } from '../../src/api/oauth.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { type ScriptedServer, startScriptedServer } from '../helpers/scripted-server.js';

const CLIENT_ID = 'client 9+x';
const SECRET = 'Sp3c+al/se:cr%et&x=y! zé~*';
const lowerHex = (text: string) => text.replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase());
const form = (text: string) => new URLSearchParams({ v: text }).toString().slice(2);
const jsonEscaped = (text: string) => text.replace(/\//g, '\\/').replace(/\+/g, '\\u002B');
const basic = basicAuthorization({ clientId: CLIENT_ID, clientSecret: SECRET }).slice('Basic '.length);

/** Every form the server echoes; none may be seen. */
const FORMS: Record<string, string> = {
  raw: SECRET,
  basic,
  'basic, percent-encoded': encodeURIComponent(basic),
  'basic, JSON-escaped': jsonEscaped(basic),
  'URL-encoded': encodeURIComponent(SECRET),
  'URL-encoded, lower-case hex': lowerHex(encodeURIComponent(SECRET)),
  'form-encoded': form(SECRET),
  'form-encoded, lower-case hex': lowerHex(form(SECRET)),
  'form-encoded, space as %20': form(SECRET).replace(/\+/g, '%20'),
  'every byte percent-encoded': [...Buffer.from(SECRET)].map((b) => `%${b.toString(16)}`).join(''),
  'JSON-escaped': jsonEscaped(SECRET),
};

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer(() => {
    const echoed = Object.values(FORMS).join(' | ');
    // Written by hand: JSON.stringify would neither escape / nor +.
    const body = `{"error":"invalid_client","error_description":"you sent ${echoed.replace(/"/g, '\\"')}"}`;
    return {
      status: 401,
      headers: {
        'content-type': 'application/json',
        'www-authenticate': `Basic realm="${basic}", error="${lowerHex(form(SECRET))}"`,
      },
      body,
    };
  });
});
afterAll(() => server.close());

describe('a server echoing the credentials back', () => {
  it.each(['basic', 'post'])('--client-auth %s --debug: no encoding of the secret is shown', async (auth) => {
    const result = await runCli(['attendance', 'check', '--debug', '--client-auth', auth], tempDir(), {
      env: { ROSTER_BASE_URL: server.baseUrl, ROSTER_CLIENT_ID: CLIENT_ID, ROSTER_CLIENT_SECRET: SECRET },
    });
    expect(result.code).toBe(4);
    // The echo did reach the message and the trace…
    expect(result.stderr).toMatch(
      /^Error: The token endpoint refused the request \(HTTP 401\): you sent \[redacted\]/m,
    );
    expect(result.stderr).toMatch(/< www-authenticate: Basic realm="\[redacted\]", error="\[redacted\]"/);
    // …and nothing of the secret in any of its forms.
    const output = result.stdout + result.stderr;
    for (const [name, value] of Object.entries(FORMS)) {
      expect(output.includes(value), `${name}: ${value}`).toBe(false);
      expect(output.toLowerCase().includes(value.toLowerCase()), `${name}, any case`).toBe(false);
    }
    expect(output).not.toContain('Sp3c');
  });
});

describe('a server issuing a huge token (a JWT full of claims, or hostile)', () => {
  it('a 64 KB token echoed back, whole and cut short: redacted, never a crash', async () => {
    const token = `eyJ${'Ab3-_x9.'.repeat(8192)}`;
    const huge = await startScriptedServer((request) =>
      request.path.endsWith('/oauth/token')
        ? { body: { access_token: token, token_type: 'bearer', expires_in: 3600 } }
        : {
            status: 403,
            headers: { 'content-type': 'application/json' },
            body: { message: `token ${token} is not allowed here; you sent ${token.slice(0, 30_000)}…` },
          },
    );
    try {
      const result = await runCli(['attendance', 'check', '--debug'], tempDir(), {
        env: { ROSTER_BASE_URL: huge.baseUrl, ROSTER_CLIENT_ID: 'c', ROSTER_CLIENT_SECRET: 'secret-value' },
      });
      // Before: V8 ran out of memory building the redaction pattern (SIGABRT, exit 134, a native trace).
      expect(result.code).toBe(3);
      // The message is cut short inside the token: its beginning is redacted too.
      expect(result.stderr).toMatch(/^Error: Attendance check failed \(HTTP 403\): token \[redacted\]…/m);
      expect(result.stdout + result.stderr).not.toContain('Ab3-_x9.Ab3-');
    } finally {
      await huge.close();
    }
  });
});
