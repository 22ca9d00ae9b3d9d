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

describe('a server echoing the token and the secret in what roster prints on stdout', () => {
  const TOKEN = 'tok-Echo-9f8e7d6c5b4a';
  const ECHO = `label ${TOKEN} / ${SECRET} / ${encodeURIComponent(SECRET)} / end`;
  let echoing: ScriptedServer;
  beforeAll(async () => {
    echoing = await startScriptedServer((request) => {
      if (request.path.endsWith('/token'))
        return { body: { access_token: TOKEN, token_type: 'bearer', expires_in: 3600 } };
      if (request.path.endsWith('/attendance/status')) return { body: { success: true, clientLabel: ECHO } };
      if (request.path.endsWith('/enrollment/invitations'))
        return {
          body: {
            data: [{ id: 'inv-1', email: 'p@example.org', note: ECHO }],
            meta: { page: 1, totalPages: 1 },
          },
        };
      const user = { sourcedId: 's-1', givenName: ECHO, familyName: 'Okafor' };
      return { body: request.path.endsWith('/s-1') ? { user } : { users: [user] } };
    });
  });
  afterAll(() => echoing.close());

  const run = (args: string[]) =>
    runCli(args, tempDir(), {
      env: { ROSTER_BASE_URL: echoing.baseUrl, ROSTER_CLIENT_ID: CLIENT_ID, ROSTER_CLIENT_SECRET: SECRET },
    });

  it.each([
    [['attendance', 'check']],
    [['attendance', 'check', '--json']],
    [['roster', 'students']],
    [['roster', 'students', '--json']],
    [['roster', 'students', '--ndjson']],
    [['roster', 'students', '--csv']],
    [['roster', 'students', 's-1']],
    [['invite', 'list']],
    [['invite', 'list', '--json']],
    [['invite', 'list', '--all', '--json']],
    [['invite', 'list', '--ndjson']],
  ])('roster %j: the echo is printed, the token and the secret are not', async (args) => {
    const result = await run(args);
    expect(result.stderr).not.toMatch(/Error/);
    expect(result.code).toBe(0);
    // The record or label did reach stdout…
    expect(result.stdout).toContain('label [redacted]');
    expect(result.stdout).toContain('/ end');
    // …without the token or the secret in any form.
    const output = result.stdout + result.stderr;
    expect(output).not.toContain(TOKEN);
    expect(output).not.toContain('Echo-9f8e');
    for (const [name, value] of Object.entries(FORMS)) {
      expect(output.includes(value), `${name}: ${value}`).toBe(false);
    }
    expect(output).not.toContain('Sp3c');
  });

  it('roster token still prints the token: the one output that is a secret on purpose', async () => {
    const result = await run(['token']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${TOKEN}\n`);
  });
});

describe('a client secret holding a quote, echoed into a record', () => {
  // CSV doubles the quote (quo""te), JSON escapes it (quo\"te): neither form may reach stdout.
  const QUOTED = 'Quo"te-Secret-7788';
  let echoing: ScriptedServer;
  beforeAll(async () => {
    echoing = await startScriptedServer((request) => {
      if (request.path.endsWith('/token'))
        return { body: { access_token: 'tok-quoted-1234', token_type: 'bearer', expires_in: 3600 } };
      return {
        body: { users: [{ sourcedId: 's-1', givenName: `label ${QUOTED} end`, familyName: 'Okafor' }] },
      };
    });
  });
  afterAll(() => echoing.close());

  it.each([[['--csv']], [['--json']], [['--ndjson']], [[]]])('roster roster students %j', async (args) => {
    const result = await runCli(['roster', 'students', ...args], tempDir(), {
      env: { ROSTER_BASE_URL: echoing.baseUrl, ROSTER_CLIENT_ID: CLIENT_ID, ROSTER_CLIENT_SECRET: QUOTED },
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('label [redacted] end');
    expect(result.stdout).not.toMatch(/Quo|te-Secret/);
  });
});
