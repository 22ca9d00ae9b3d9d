// Answers roster cannot use: a proxy's HTML page, malformed JSON, a 200 without the expected fields, an
// empty body. Each is one line naming the status and what was expected: exit 1, never a stack trace. The
// server is an HttpMock; `roster attendance check` runs in this process.
import { describe, expect, it } from 'vitest';
import { type Reply, tokenReply, useHttpMock } from '../../helpers/http-mock.js';
import { rosterInProcess } from '../../helpers/main.js';

const mock = useHttpMock();
const env = {
  ROSTER_BASE_URL: 'https://api.test/v1',
  ROSTER_CLIENT_ID: 'demo-allowed',
  ROSTER_CLIENT_SECRET: 'riverside-secret-2024',
};
const html = '<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>';
const TOKEN = '/v1/oauth/token';
const STATUS = '/v1/attendance/status';

const cases: [string, string, Reply, RegExp][] = [
  [
    'an HTML error page from a proxy',
    STATUS,
    { status: 502, headers: { 'content-type': 'text/html' }, body: html },
    /HTTP 502\): an HTML page "502 Bad Gateway" \(a proxy or gateway\?\)/,
  ],
  [
    'an HTML page with 200',
    STATUS,
    { status: 200, headers: { 'content-type': 'text/html' }, body: html },
    /unexpected answer \(HTTP 200, an HTML page .*expected a JSON body with success and clientLabel/,
  ],
  [
    'malformed JSON',
    STATUS,
    { status: 200, headers: { 'content-type': 'application/json' }, body: '{"success": tru' },
    /HTTP 200, an application\/json body that is not JSON\); expected/,
  ],
  [
    'a 200 without the expected fields',
    STATUS,
    { status: 200, body: { ok: true } },
    /HTTP 200, an application\/json body without a message\); expected a JSON body with success and clientLabel/,
  ],
  [
    'an empty body',
    STATUS,
    { status: 200, headers: { 'content-type': 'application/json' }, body: '' },
    /HTTP 200, an empty body\); expected/,
  ],
  [
    'a token endpoint answering HTML',
    TOKEN,
    { status: 200, headers: { 'content-type': 'text/html' }, body: html },
    /The token endpoint answered 200 but not with a JSON object/,
  ],
  [
    'a token without access_token',
    TOKEN,
    { status: 200, body: { token_type: 'bearer', expires_in: 3600 } },
    /The token endpoint answered 200 but without an access_token/,
  ],
  [
    'a token endpoint failing with an empty 500',
    TOKEN,
    { status: 500, headers: { 'content-type': 'text/plain' }, body: '' },
    /The token endpoint failed \(HTTP 500\): an empty answer/,
  ],
];

describe('unexpected responses', () => {
  it.each(cases)('%s: one line, exit 1', async (_name, path, answer, message) => {
    // Every try gets the answer (a 502 is tried again).
    if (path === STATUS) mock.http.register({ method: 'POST', path: TOKEN }, tokenReply('tok-unexpected'));
    mock.http.register({ method: path === TOKEN ? 'POST' : 'GET', path }, answer, { times: Infinity });
    const result = await rosterInProcess(['attendance', 'check', '--timeout', '5'], {
      env,
      transport: mock.http,
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^Error: /);
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
