// The foundation as a script uses it: the built CLI in a real process against the sandbox over HTTP.

import { spawn, spawnSync } from 'node:child_process';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { createProgram, loadCommands } from '../../src/main.js';
import { type CliOptions, cliEnv, ROSTER_BIN, runCli } from '../helpers/cli.js';
import { fakeContext } from '../helpers/context.js';
import { demoClient, demoEnv, useSandbox } from '../helpers/sandbox.js';

const fixture = useSandbox();
const client = (id: string) => demoClient(fixture.sandbox, id);
const envFor = (id: string, extra: Record<string, string> = {}) => demoEnv(fixture.sandbox, id, extra);
const roster = (args: string[], options: CliOptions = {}) => runCli(args, fixture.home, options);
const tokenRequests = () => fixture.sandbox.requests.filter((r) => r.path.endsWith('/token'));
const resourceRequests = () => fixture.sandbox.requests.filter((r) => !r.path.endsWith('/token'));
/** A shell line, run while the test's sandbox (in this process) goes on answering. */
function bash(line: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string }> {
  const child = spawn('bash', ['-c', line], { env, stdio: ['ignore', 'pipe', 'ignore'] });
  let stdout = '';
  child.stdout.on('data', (d) => (stdout += d));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout })));
}
const has = (tool: string) => spawnSync(tool, ['--version']).status === 0;

describe('roster token and attendance check with environment credentials', () => {
  it('prints a token, then three attendance checks reuse it: one request each, no token request', async () => {
    const env = envFor('demo-allowed');
    const token = await roster(['token'], { env });
    expect(token.code).toBe(0);
    expect(token.stdout).toMatch(/^\S{16,}\n$/);
    expect(token.stderr).toBe('');
    expect(tokenRequests()).toHaveLength(1);

    const json = await roster(['token', '--json'], { env });
    const parsed = JSON.parse(json.stdout);
    expect(Object.keys(parsed).sort()).toEqual(['access_token', 'expires_at', 'expires_in', 'token_type']);
    expect(parsed.access_token).toBe(token.stdout.trim());
    expect(parsed.token_type).toBe('bearer');
    expect(parsed.expires_in).toBeGreaterThan(3500);
    expect(Date.parse(parsed.expires_at) - Date.now()).toBeGreaterThan(3500_000);

    for (let i = 0; i < 3; i++) {
      const check = await roster(['attendance', 'check'], { env });
      expect(check.code).toBe(0);
      expect(check.stdout).toBe(
        '✓ Token authentication works for attendance-daily (client label: Riverside Unified School District).\n',
      );
    }
    expect(tokenRequests()).toHaveLength(1);
    expect(resourceRequests().map((r) => `${r.method} ${r.path}`)).toEqual(
      Array(3).fill('GET /v1/attendance/status'),
    );
    expect(resourceRequests().every((r) => r.headers.authorization === `Bearer ${parsed.access_token}`)).toBe(
      true,
    );
  });

  it('--json prints the server body', async () => {
    const result = await roster(['attendance', 'check', '--json'], { env: envFor('demo-allowed') });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      success: true,
      clientLabel: 'Riverside Unified School District',
    });
  });

  it('--scope is sent and echoed in --json', async () => {
    const scope = 'https://purl.imsglobal.org/spec/or/v1p1/scope/roster-core.readonly';
    const result = await roster(['token', '--endpoint', 'v1p1', '--scope', scope, '--json'], {
      env: envFor('demo-allowed'),
    });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).scope).toBe(scope);
    const sent = tokenRequests()[0];
    expect(sent?.path).toBe('/v1/ims/oneroster/v1p1/token');
    expect(new URLSearchParams(sent?.body).get('scope')).toBe(scope);
  });

  it('--refresh gets a new token even when one is cached', async () => {
    const env = envFor('demo-allowed');
    const first = await roster(['token'], { env });
    const second = await roster(['token', '--refresh'], { env });
    expect(second.code).toBe(0);
    expect(second.stdout).not.toBe(first.stdout);
    expect(tokenRequests()).toHaveLength(2);
  });
});

describe('client authentication', () => {
  const secret = () => client('demo-special').clientSecret;

  it('the demo secret really has the awkward characters', () => {
    for (const ch of ['+', '/', ':', '%', '&', '=', '!', ' ']) expect(secret()).toContain(ch);
  });

  it('basic: RFC 6749 §2.3.1 encoding, Basic only on the token endpoint', async () => {
    const result = await roster(['attendance', 'check', '--client-auth', 'basic'], {
      env: envFor('demo-special'),
    });
    expect(result.code).toBe(0);
    const [token] = tokenRequests();
    const decoded = Buffer.from(
      String(token?.headers.authorization).replace(/^Basic /, ''),
      'base64',
    ).toString();
    expect(decoded).toBe(`demo-special:${new URLSearchParams({ s: secret() }).toString().slice(2)}`);
    expect(token?.body).not.toContain('client_secret');
  });

  it('post: form fields, no Authorization header', async () => {
    const result = await roster(['attendance', 'check'], {
      env: envFor('demo-special', { ROSTER_CLIENT_AUTH: 'post' }),
    });
    expect(result.code).toBe(0);
    const [token] = tokenRequests();
    expect(token?.headers.authorization).toBeUndefined();
    const form = new URLSearchParams(token?.body);
    expect(form.get('grant_type')).toBe('client_credentials');
    expect(form.get('client_id')).toBe('demo-special');
    expect(form.get('client_secret')).toBe(secret());
  });

  it('a wrong secret: exit 4 with the server error_description', async () => {
    const result = await roster(['token'], {
      env: { ...envFor('demo-allowed'), ROSTER_CLIENT_SECRET: 'wrong-secret' },
    });
    expect(result.code).toBe(4);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^Error: The token endpoint refused the request \(HTTP 401\): .+\(invalid_client\)/,
    );
    expect(result.stderr).not.toContain('wrong-secret');
  });

  it('a wrong secret is not answered from the cache of a right one', async () => {
    expect((await roster(['token'], { env: envFor('demo-allowed') })).code).toBe(0);
    const wrong = await roster(['token'], {
      env: { ...envFor('demo-allowed'), ROSTER_CLIENT_SECRET: 'wrong-secret' },
    });
    expect(wrong.code).toBe(4);
  });

  it('a suspended client: exit 4 with invalid_grant', async () => {
    const result = await roster(['token'], { env: envFor('demo-suspended') });
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('(invalid_grant)');
  });
});

describe('errors from the attendance check', () => {
  it('403: exit 3 with the server message', async () => {
    const result = await roster(['attendance', 'check'], { env: envFor('demo-refused') });
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^Error: Attendance check failed \(HTTP 403\): .*attendance-daily is not enabled/,
    );
  });

  // The verdict's behaviour is test/unit/commands/json-verdicts.test.ts's; here a script's pipe reads it.
  it.runIf(has('jq'))('--json | jq -r .success reads false, and pipefail keeps the exit code 3', async () => {
    const env = cliEnv(fixture.home, envFor('demo-refused'));
    const line = `"${process.execPath}" "${ROSTER_BIN}" attendance check --json | jq -r .success`;
    expect(await bash(line, env)).toEqual({ code: 0, stdout: 'false\n' });
    expect(await bash(`set -o pipefail; ${line}`, env)).toEqual({ code: 3, stdout: 'false\n' });
  });

  it('a token revoked server-side: the next command refreshes once and succeeds', async () => {
    const env = envFor('demo-allowed');
    expect((await roster(['attendance', 'check'], { env })).code).toBe(0);
    fixture.sandbox.revokeAllTokens();
    fixture.sandbox.requests.length = 0;
    const result = await roster(['attendance', 'check'], { env });
    expect(result.code).toBe(0);
    expect(fixture.sandbox.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      'GET /v1/attendance/status 401',
      'POST /v1/oauth/token 200',
      'GET /v1/attendance/status 200',
    ]);
  });

  it('a server that rejects every token: exit 4 after exactly one replay', async () => {
    fixture.sandbox.injectFault({
      match: (req) => req.path === '/attendance/status',
      status: 401,
      headers: { 'www-authenticate': 'Bearer error="invalid_token"' },
      body: { message: 'token rejected' },
      times: 10,
    });
    const result = await roster(['attendance', 'check'], { env: envFor('demo-allowed') });
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('token rejected');
    expect(resourceRequests()).toHaveLength(2);
    expect(tokenRequests()).toHaveLength(2);
  });

  it('the server is down: exit 1 with a clear message', async () => {
    const result = await roster(['attendance', 'check'], {
      env: { ...envFor('demo-allowed'), ROSTER_BASE_URL: 'http://127.0.0.1:9/v1' },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^Error: Could not connect to http:\/\/127\.0\.0\.1:9\/v1\/oauth\/token: connection refused/,
    );
  });
});

describe('secrets stay secret', () => {
  it('Basic goes to token endpoints only; no output or --debug trace holds the secret or a token', async () => {
    const env = envFor('demo-special');
    const runs = [
      await roster(['token', '--debug'], { env }),
      await roster(['token', '--json', '--debug', '--refresh'], { env }),
      await roster(['attendance', 'check', '--debug'], { env }),
      await roster(['status', '--debug'], { env }),
      await roster(['attendance', 'check', '--debug'], { env: envFor('demo-refused') }),
      await roster(['token', '--debug'], {
        env: { ...env, ROSTER_CLIENT_SECRET: `${client('demo-special').clientSecret}x` },
      }),
    ];
    for (const request of fixture.sandbox.requests) {
      if (!request.path.endsWith('/token'))
        expect(request.headers.authorization ?? '').not.toMatch(/^Basic/i);
    }
    const issued = fixture.sandbox.requests
      .filter((r) => !r.path.endsWith('/token'))
      .map((r) => String(r.headers.authorization).replace(/^Bearer /, ''));
    expect(issued.length).toBeGreaterThan(0);
    const secrets = [client('demo-special').clientSecret, client('demo-refused').clientSecret, ...issued];
    const debugOutput = runs.map((r) => r.stderr).join('\n');
    expect(debugOutput).toContain('[debug] > authorization: Basic [redacted]');
    expect(debugOutput).toContain('[debug] > authorization: Bearer [redacted]');
    for (const run of runs.slice(2)) {
      for (const secret of secrets) {
        expect(run.stdout).not.toContain(secret);
        expect(run.stderr).not.toContain(secret);
      }
    }
    // `roster token` prints the token on stdout by design, but never in its --debug trace.
    for (const run of runs.slice(0, 2))
      for (const secret of secrets) expect(run.stderr).not.toContain(secret);
  });
});

describe('usage errors: exit 2, nothing sent', () => {
  const cases: [string, string[], Record<string, string>, RegExp][] = [
    [
      'login without a terminal',
      ['login'],
      { ROSTER_BASE_URL: '' },
      /Missing --base-url, --client-id, --client-secret-stdin/,
    ],
    [
      'http:// to another host',
      ['token'],
      { ROSTER_BASE_URL: 'http://api.example.org/v1' },
      /Refusing plain http:\/\/ to api\.example\.org/,
    ],
    ['a bad --client-auth', ['token', '--client-auth', 'digest'], {}, /'digest' is invalid/],
    ['a bad ROSTER_CLIENT_AUTH', ['token'], { ROSTER_CLIENT_AUTH: 'digest' }, /ROSTER_CLIENT_AUTH/],
    ['an unknown command', ['frobnicate'], {}, /unknown command/],
    ['a bad --timeout', ['token', '--timeout', 'soon'], {}, /Invalid timeout "soon"/],
    [
      'half the environment credentials',
      ['token'],
      { ROSTER_CLIENT_SECRET: 'x' },
      /ROSTER_CLIENT_SECRET is set but ROSTER_CLIENT_ID is not/,
    ],
    ['a bad token endpoint', ['token', '--endpoint', 'https://evil.example'], {}, /Invalid token endpoint/],
    ['a bad profile name', ['token', '--profile', '../etc'], {}, /Invalid profile name/],
    [
      'a base URL with control characters',
      ['token'],
      { ROSTER_BASE_URL: 'https://api.exa\nmple.org/v1' },
      /control characters/,
    ],
  ];
  it.each(cases)('%s', async (_name, args, env, message) => {
    const result = await roster(args, { env: { ROSTER_BASE_URL: fixture.sandbox.baseUrl, ...env } });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe('');
    expect(fixture.sandbox.requests).toHaveLength(0);
  });

  it('login with no terminal and nothing given never waits for input', async () => {
    // stdin stays open and empty: a run that waited for it would be killed after 20 s (exit code null).
    const result = await roster(['login', '--client-id', 'demo-allowed'], {
      env: { ROSTER_BASE_URL: fixture.sandbox.baseUrl },
      stdinOpen: true,
      timeoutMs: 20_000,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--client-secret-stdin');
    expect(result.stderr).not.toContain('--client-id,');
  });
});

describe('help', () => {
  it('roster --help lists every command group of the contract', async () => {
    const top = await roster(['--help']);
    expect(top.code).toBe(0);
    for (const name of ['login', 'logout', 'token', 'status', 'invite', 'attendance', 'roster', 'sandbox']) {
      expect(top.stdout).toMatch(new RegExp(`^  ${name}\\b`, 'm'));
    }
  });

  it('every command, walked from the program itself, has a summary and an example', async () => {
    const paths: string[][] = [];
    const walk = (command: Command, path: string[]) => {
      for (const sub of command.commands) {
        if (sub.name().startsWith('__') || sub.name() === 'help') continue;
        expect(sub.summary() || sub.description(), `summary of ${[...path, sub.name()].join(' ')}`).not.toBe(
          '',
        );
        paths.push([...path, sub.name()]);
        walk(sub, [...path, sub.name()]);
      }
    };
    walk(createProgram(fakeContext().ctx, await loadCommands()), []);
    expect(paths.length).toBeGreaterThan(25);
    // Four processes at a time: forty at once on a busy 2-core machine ran into the test's timeout.
    const helps: Awaited<ReturnType<typeof roster>>[] = [];
    for (let i = 0; i < paths.length; i += 4) {
      helps.push(...(await Promise.all(paths.slice(i, i + 4).map((path) => roster([...path, '--help'])))));
    }
    helps.forEach((help, i) => {
      const name = paths[i]?.join(' ');
      expect(help.code, name).toBe(0);
      expect(help.stdout, name).toContain('Examples:');
      expect(help.stdout, name).toMatch(/\n {2}(# .*\n {2})?roster /);
    });
  }, 120_000);

  it('--version prints the version', async () => {
    const result = await roster(['--version']);
    expect(result).toEqual({ code: 0, stdout: '0.1.0\n', stderr: '' });
  });
});
