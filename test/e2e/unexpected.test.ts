// Answers roster cannot use: a proxy's HTML page, malformed JSON, a 200 without the expected fields, an
// empty body. Each is one line naming the status and what was expected: exit 1, never a stack trace.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { demoEnv } from '../helpers/sandbox.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());

const env = () => demoEnv(sandbox);
const html = '<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>';

const cases: [string, string, { status: number; headers?: Record<string, string>; body: unknown }, RegExp][] =
  [
    [
      'an HTML error page from a proxy',
      '/attendance/status',
      { status: 502, headers: { 'content-type': 'text/html' }, body: html },
      /HTTP 502\): an HTML page "502 Bad Gateway" \(a proxy or gateway\?\)/,
    ],
    [
      'an HTML page with 200',
      '/attendance/status',
      { status: 200, headers: { 'content-type': 'text/html' }, body: html },
      /unexpected answer \(HTTP 200, an HTML page .*expected a JSON body with success and clientLabel/,
    ],
    [
      'malformed JSON',
      '/attendance/status',
      { status: 200, headers: { 'content-type': 'application/json' }, body: '{"success": tru' },
      /HTTP 200, an application\/json body that is not JSON\); expected/,
    ],
    [
      'a 200 without the expected fields',
      '/attendance/status',
      { status: 200, body: { ok: true } },
      /HTTP 200, an application\/json body without a message\); expected a JSON body with success and clientLabel/,
    ],
    [
      'an empty body',
      '/attendance/status',
      { status: 200, headers: { 'content-type': 'application/json' }, body: '' },
      /HTTP 200, an empty body\); expected/,
    ],
    [
      'a token endpoint answering HTML',
      '/oauth/token',
      { status: 200, headers: { 'content-type': 'text/html' }, body: html },
      /The token endpoint answered 200 but not with a JSON object/,
    ],
    [
      'a token without access_token',
      '/oauth/token',
      { status: 200, body: { token_type: 'bearer', expires_in: 3600 } },
      /The token endpoint answered 200 but without an access_token/,
    ],
    [
      'a token endpoint failing with an empty 500',
      '/oauth/token',
      { status: 500, headers: { 'content-type': 'text/plain' }, body: '' },
      /The token endpoint failed \(HTTP 500\): an empty answer/,
    ],
  ];

describe('unexpected responses', () => {
  it.each(cases)('%s: one line, exit 1', async (_name, path, fault, message) => {
    sandbox.injectFault({ match: (req) => req.path === path, ...fault, times: fault.status === 502 ? 4 : 1 });
    const result = await runCli(['attendance', 'check', '--timeout', '5'], tempDir(), { env: env() });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^Error: /);
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
