// Start-up stays near `node`'s own because the commands that need no network never load the HTTP stack:
// the built CLI runs with a preloaded tracer that records every module URL it resolves (a module.register
// resolve hook) and every Node built-in it loaded (process.moduleLoadList), and the lists are checked.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { insecureLogin } from '../helpers/sandbox.js';

const TRACER = `
import { appendFileSync, writeFileSync } from 'node:fs';
import { register } from 'node:module';
const file = process.env.ROSTER_TRACE_FILE;
writeFileSync(file, '');
const hook = "import{appendFileSync}from'node:fs';export async function resolve(s,c,n){const r=await n(s,c);appendFileSync(" + JSON.stringify(file) + ",r.url+'\\\\n');return r;}";
register('data:text/javascript,' + encodeURIComponent(hook));
process.on('exit', () => {
  const builtins = process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => 'builtin:' + m.slice(13));
  appendFileSync(file, builtins.join('\\n') + '\\n');
});
`;

/** Parts of the HTTP stack: our HTTP client with undici (their own chunk in dist/), Node's HTTP. */
const HTTP = [
  /\/chunks\/http-client-/,
  /node_modules\/undici\//,
  /^(node:|builtin:)(http|https|http2|_http_client|_http_agent|tls|dns)$/,
];

let sandbox: Sandbox;
let home: string;
let tracer: string;

beforeAll(async () => {
  sandbox = await startSandbox();
  home = tempDir();
  tracer = join(home, 'tracer.mjs');
  writeFileSync(tracer, TRACER);
});
afterAll(() => sandbox.close());

const credentials = () => {
  const client = sandbox.clients.find((c) => c.clientId === 'demo-allowed');
  return {
    ROSTER_BASE_URL: sandbox.baseUrl,
    ROSTER_CLIENT_ID: 'demo-allowed',
    ROSTER_CLIENT_SECRET: client?.clientSecret ?? '',
  };
};

/** Runs the built CLI under the tracer; resolves with its exit code and the modules it loaded. */
async function traced(args: string[], env: Record<string, string> = {}, cwdHome = home) {
  const file = join(home, `trace-${Math.random().toString(36).slice(2)}.txt`);
  const result = await runCli(args, cwdHome, {
    env: { ...env, NODE_OPTIONS: `--import=${tracer}`, ROSTER_TRACE_FILE: file },
  });
  const loaded = [...new Set(readFileSync(file, 'utf8').split('\n').filter(Boolean))];
  return { ...result, loaded, http: loaded.filter((url) => HTTP.some((pattern) => pattern.test(url))) };
}

describe('commands that need no network load no HTTP library', () => {
  it('the tracer sees the HTTP stack when a command does use the network', async () => {
    const run = await traced(['attendance', 'check'], credentials());
    expect(run.code).toBe(0);
    expect(run.http).toEqual(expect.arrayContaining(['builtin:http']));
    // The sandbox is plain http on loopback: node:https never loads for it (node:tls does: undici's HTTP/2
    // client loads node:http2 with the module).
    expect(run.loaded).not.toContain('builtin:https');
    expect(run.http.some((url) => url.includes('/chunks/http-client-'))).toBe(true);
  });

  it('roster --version', async () => {
    const run = await traced(['--version']);
    expect(run.code).toBe(0);
    expect(run.http).toEqual([]);
    expect(run.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    // Answered by bin/roster.js before the program loads: nothing of dist/ at all.
    expect(run.loaded.filter((url) => url.includes('/dist/'))).toEqual([]);
  });

  it('roster --help and roster help', async () => {
    for (const args of [['--help'], ['help', 'invite', 'send'], ['token', '--help']]) {
      const run = await traced(args);
      expect(run.code).toBe(0);
      expect(run.http).toEqual([]);
    }
    // The top-level help comes from the build's listing (dist/commands.json): of the commands' modules
    // only help's own loads, where the whole program loads them all.
    const commandModules = (loaded: string[]) =>
      loaded.filter((url) =>
        /\/chunks\/(login|logout|status|check|index|doctor|profiles|sandbox|completion)-/.test(url),
      );
    expect(commandModules((await traced(['--help'])).loaded)).toEqual([]);
    expect(commandModules((await traced(['help'])).loaded).length).toBeGreaterThanOrEqual(9);
  });

  it('roster config: its own chunk only, and no HTTP library', async () => {
    const fresh = tempDir();
    const { args, input } = insecureLogin(sandbox);
    expect((await runCli(args, fresh, { input })).code).toBe(0);
    for (const args of [
      ['config', 'set', 'scope', 'attendance'],
      ['config', 'get', 'scope'],
      ['config', 'list'],
    ]) {
      const run = await traced(args, {}, fresh);
      expect(run.code).toBe(0);
      expect(run.http).toEqual([]);
      expect(run.loaded.some((url) => /\/chunks\/config-/.test(url))).toBe(true);
      expect(run.loaded.filter((url) => /\/chunks\/(login|doctor|index|sandbox)-/.test(url))).toEqual([]);
    }
  });

  it('usage errors (no command at all prints the help as one)', async () => {
    for (const args of [
      [],
      ['--bogus'],
      ['tokn'],
      ['invite', 'send', '--email'],
      ['invite', 'plan'],
      ['invite', 'plan', '--school', 'org-sch-1', '--roles', 'teacher'],
      ['roster', 'students', '--limit', 'x'],
    ]) {
      const run = await traced(args, credentials());
      expect(run.code).toBe(2);
      expect(run.http).toEqual([]);
    }
  });

  it('school id completion at TAB time: from the cache, no request and no HTTP library', async () => {
    const fresh = tempDir();
    const sent = await traced(
      ['invite', 'send', '--email', 'tab@example.org', '--school-id', 'org-sch-1', '--sent-by-user-id', 'u1'],
      credentials(),
      fresh,
    );
    expect(sent.code).toBe(0); // cached the district's schools
    const before = sandbox.requests.length;
    const tab = await traced(
      ['__complete', 'schools', '--', 'invite', 'send', '--school-id'],
      credentials(),
      fresh,
    );
    expect(tab.code).toBe(0);
    expect(tab.stdout.split('\n')[0]).toBe('org-sch-1\tAlder Elementary School');
    expect(sandbox.requests.length).toBe(before);
    expect(tab.http).toEqual([]);
  });

  it('roster token with a cached token', async () => {
    const fresh = tempDir(); // nothing cached yet
    const first = await traced(['token'], credentials(), fresh);
    expect(first.code).toBe(0);
    expect(first.http).not.toEqual([]); // the first run fetched the token
    const before = sandbox.requests.length;
    const cached = await traced(['token'], credentials(), fresh);
    expect(cached.code).toBe(0);
    expect(cached.stdout).toBe(first.stdout);
    expect(sandbox.requests.length).toBe(before);
    expect(cached.http).toEqual([]);
    // Only the token command's module, not the others'.
    expect(
      cached.loaded.filter((url) => /\/chunks\/(login|invite|roster|doctor|sandbox)-/.test(url)),
    ).toEqual([]);
  });

  it('a cached token loads neither node:crypto nor node:child_process (a saved profile or environment credentials)', async () => {
    const fresh = tempDir();
    const { args, input } = insecureLogin(sandbox);
    const login = await runCli(args, fresh, { input });
    expect(login.code).toBe(0);
    // Cache a token for each: the saved profile, and environment credentials, which key the cache by a
    // SHA-256 fingerprint of the secret (@noble/hashes: node:crypto would cost every such run ~3 ms).
    expect((await traced(['token'], {}, fresh)).code).toBe(0);
    expect((await traced(['token'], credentials(), fresh)).code).toBe(0);
    const runs = [await traced(['token'], {}, fresh), await traced(['token'], credentials(), fresh)];
    for (const run of runs) {
      expect(run.code).toBe(0);
      expect(run.http).toEqual([]);
      expect(run.loaded).not.toContain('builtin:crypto');
      // commander requires it for executable subcommands, which roster has none of: loaded on first use.
      expect(run.loaded).not.toContain('builtin:child_process');
    }
    // Nor do help and usage errors.
    for (const args of [['--help'], ['invite', 'send', '--email']]) {
      expect((await traced(args, credentials(), fresh)).loaded).not.toContain('builtin:crypto');
    }
  });

  it('the hot bundle holds no Unicode-property regular expression literal', () => {
    // V8 checks every regular expression literal when it parses a file, and each \p{…} costs ICU work
    // there (~1% of a cached `roster token`): dist/cli.js builds such patterns on first use instead
    // (lazyPattern in src/output/safe-text.ts), where they are source strings, their backslash escaped.
    const hot = readFileSync(new URL('../../dist/cli.js', import.meta.url), 'utf8');
    expect(hot).toContain('\\\\p{Cc}');
    expect(hot.match(/(?<!\\)\\p\{[^}]*\}/g) ?? []).toEqual([]);
  });

  it('csv-parse loads only when invite send reads a file', async () => {
    const csvParse = (loaded: string[]) =>
      loaded.filter(
        (url) =>
          url.includes('/dist/chunks/') &&
          readFileSync(new URL(url), 'utf8').includes('Invalid Closing Quote'),
      );
    const send = ['invite', 'send', '--school-id', 'org-sch-1', '--sent-by-user-id', 'u1', '--dry-run'];
    const one = await traced([...send, '--email', 'a@example.org'], credentials());
    expect(one.code).toBe(0);
    expect(csvParse(one.loaded)).toEqual([]);
    const file = join(home, 'invites.csv');
    writeFileSync(file, 'email\r\na@example.org\r\n');
    const many = await traced([...send, '--file', file], credentials());
    expect(many.code).toBe(0);
    expect(csvParse(many.loaded)).toHaveLength(1);
  });
});
