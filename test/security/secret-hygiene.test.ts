// Secret hygiene across a full run of every command, each with --debug: the client secret (demo-special's,
// with + / : % & = ! and a space) and every bearer token the sandbox issued must appear in no stdout, no
// stderr or debug trace, no file roster wrote and no process argument list. Two exceptions, each asserted
// for what it must hold instead: `roster token` prints a token on stdout (its job), the token cache holds
// tokens (its job) but never the secret, and the --insecure-storage credentials file holds the secret (its
// job) with mode 0600. With ROSTER_TEST_KEYCHAIN=1 the secret goes to the real keychain instead.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuthorization } from '../../src/api/oauth.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';

const useKeychain = process.env.ROSTER_TEST_KEYCHAIN === '1';
/** Every token the sandbox issues looks like this, so even one never seen in a request is caught. */
const SANDBOX_TOKEN = /rst_[A-Za-z0-9_-]{20,}/g;

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ oneroster: { students: 50 } });
});
afterAll(() => sandbox.close());

interface Run {
  args: string[];
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Every file below a folder. */
const filesBelow = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile());

describe('secret hygiene: a full run of every command with --debug', () => {
  it(`finds the client secret and the bearer tokens nowhere they do not belong (${useKeychain ? 'keychain' : '--insecure-storage'})`, async () => {
    const client = sandbox.clients.find((c) => c.clientId === 'demo-special');
    const secret = client?.clientSecret ?? '';
    expect(secret).toMatch(/\+.*\/.*:.*%.*&.*=.*!.* /);
    const home = tempDir();
    const work = tempDir();
    const csv = join(work, 'invites.csv');
    writeFileSync(csv, 'email,schoolId\nhygiene-1@example.org,org-sch-2\nhygiene-2@example.org,org-sch-3\n');
    const env = {
      ROSTER_CLIENT_ID: undefined,
      ROSTER_CLIENT_SECRET: undefined,
      ROSTER_BASE_URL: undefined,
      ...(useKeychain ? {} : { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus' }),
    };
    const runs: Run[] = [];
    const roster = async (args: string[], input?: string) => {
      const full = ['--debug', ...args];
      const result: Run = { args: full, ...(await runCli(full, home, { env, input, timeoutMs: 30_000 })) };
      runs.push(result);
      expect(result.code, `${args.join(' ')}\n${result.stderr}`).toBe(0);
      return result;
    };

    await roster(
      [
        'login',
        '--base-url',
        sandbox.baseUrl,
        '--client-id',
        'demo-special',
        '--client-secret-stdin',
        '--sent-by-user-id',
        'adm-1',
        ...(useKeychain ? [] : ['--insecure-storage']),
      ],
      `${secret}\n`,
    );
    const token = await roster(['token']);
    const tokenJson = await roster(['token', '--json', '--refresh']);
    await roster(['status']);
    await roster(['status', '--json']);
    await roster(['attendance', 'check']);
    await roster(['attendance', 'check', '--json']);
    await roster(['invite', 'send', '--email', 'hygiene-0@example.org', '--school-id', 'org-sch-2', '--yes']);
    await roster([
      'invite',
      'send',
      '--email',
      'hygiene-0@example.org',
      '--school-id',
      'org-sch-2',
      '--dry-run',
    ]);
    await roster(['invite', 'send', '--file', csv, '--json']);
    await roster(['invite', 'list', '--json']);
    await roster(['invite', 'list', '--all', '--ndjson']);
    await roster(['roster', 'students', '--limit', '5']);
    await roster(['roster', 'students', '--all', '--ndjson']);
    await roster(['--oneroster', '1.2', 'roster', 'students', 'stu-000001', '--json']);
    await roster(['doctor']);
    await roster(['doctor', '--json']);
    await roster(['profiles']);
    await roster(['profiles', '--json']);
    await roster(['profiles', 'use', 'default']);
    // Files as they stand before logout removes the cache: scanned below, with those written later.
    const cacheBeforeLogout = filesBelow(join(home, '.cache')).map(
      (p) => [p, readFileSync(p, 'utf8')] as const,
    );
    await roster(['logout']);

    // Every bearer token the sandbox saw, and the Basic header value of the client credentials.
    const bearers = new Set<string>();
    for (const request of sandbox.requests) {
      const auth = String(request.headers.authorization ?? '');
      if (/^Bearer /i.test(auth)) bearers.add(auth.slice(7));
    }
    for (const run of runs)
      for (const found of `${run.stdout}${run.stderr}`.matchAll(SANDBOX_TOKEN)) bearers.add(found[0]);
    const printedToken = token.stdout.trim();
    const printedJsonToken = (JSON.parse(tokenJson.stdout) as { access_token: string }).access_token;
    bearers.add(printedToken);
    bearers.add(printedJsonToken);
    const basic = basicAuthorization({ clientId: 'demo-special', clientSecret: secret }).slice(6);
    const secretForms = [
      secret,
      encodeURIComponent(secret),
      new URLSearchParams({ s: secret }).toString().slice(2),
      basic,
      Buffer.from(secret).toString('base64'),
    ];
    expect(bearers.size).toBeGreaterThanOrEqual(4); // oauth, v1p1 and v1p2 tokens, and a refresh

    /** Which secret or token, if any, a text holds (named by kind, never printed whole). */
    const leaks = (text: string, tokens = true): string[] => [
      ...secretForms
        .filter((s) => text.includes(s))
        .map((s) => `client secret (${s === secret ? 'raw' : 'encoded'})`),
      ...(tokens ? [...bearers].filter((t) => text.includes(t)).map((t) => `token ${t.slice(0, 8)}…`) : []),
      ...(tokens && new RegExp(SANDBOX_TOKEN.source).test(text) ? ['a sandbox token'] : []),
    ];

    const findings: string[] = [];
    let scanned = 0;
    for (const run of runs) {
      const name = run.args.join(' ');
      // roster token's stdout is the token itself: that one token, nothing more, is allowed there.
      let stdout = run.stdout;
      if (run === token) {
        expect(stdout).toBe(`${printedToken}\n`);
        stdout = '';
      }
      if (run === tokenJson) stdout = stdout.replace(printedJsonToken, '');
      for (const [where, text] of [
        ['stdout', stdout],
        ['stderr', run.stderr],
        ['argv', run.args.join('\0')],
      ] as const) {
        scanned++;
        for (const leak of leaks(text)) findings.push(`${name}: ${where} holds ${leak}`);
      }
    }
    // The --debug traces really ran, and redacted what they met.
    const traces = runs.map((r) => r.stderr).join('\n');
    expect(traces).toMatch(/\[debug\] > authorization: Basic \[redacted\]/);
    expect(traces).toMatch(/\[debug\] > authorization: Bearer \[redacted\]/);

    const cacheDir = join(home, '.cache');
    for (const [path, text] of cacheBeforeLogout) {
      scanned++;
      // The token cache holds tokens (its job), never the secret.
      for (const leak of leaks(text, false)) findings.push(`${path} holds ${leak}`);
      expect(statSync(path, { throwIfNoEntry: false })?.mode ?? 0o100600).toBe(0o100600);
    }
    expect(cacheBeforeLogout.length).toBeGreaterThanOrEqual(3);
    const credentials = join(home, '.config', 'roster', 'credentials.json');
    for (const path of filesBelow(home)) {
      if (path === credentials) {
        // The opt-in secret file holds the secret (its job): private to the user.
        expect(statSync(path).mode & 0o777).toBe(0o600);
        continue;
      }
      scanned++;
      const text = readFileSync(path, 'utf8');
      for (const leak of leaks(text, !path.startsWith(cacheDir))) findings.push(`${path} holds ${leak}`);
    }
    if (useKeychain) expect(filesBelow(home)).not.toContain(credentials);
    console.log(
      `secret hygiene: ${runs.length} commands, ${scanned} texts scanned (stdout, stderr, argv, files), ${bearers.size} bearer tokens and ${secretForms.length} forms of the secret looked for, ${findings.length} found`,
    );
    expect(findings).toEqual([]);
  });
});
