// The sandbox's demo clients as tests use them: one place that knows how to point the CLI at a sandbox.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import {
  type DemoClient,
  type Sandbox,
  type SandboxOptions,
  startSandbox,
} from '../../src/sandbox/server.js';
import { writeSchoolsCache } from '../../src/schools/cache.js';
import { type CliOptions, type CliResult, runCli } from './cli.js';
import { tempDir } from './context.js';

export function demoClient(sandbox: Sandbox, clientId = 'demo-allowed'): DemoClient {
  const client = sandbox.clients.find((c) => c.clientId === clientId);
  if (!client) throw new Error(`the sandbox has no demo client ${clientId}`);
  return client;
}

/** The environment route (ROSTER_BASE_URL, ROSTER_CLIENT_ID, ROSTER_CLIENT_SECRET) for a demo client. */
export function demoEnv(
  sandbox: Sandbox,
  clientId = 'demo-allowed',
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    ROSTER_BASE_URL: sandbox.baseUrl,
    ROSTER_CLIENT_ID: clientId,
    ROSTER_CLIENT_SECRET: demoClient(sandbox, clientId).clientSecret,
    ...extra,
  };
}

export interface SandboxedTests {
  /** The file's sandbox (from its beforeAll on). */
  readonly sandbox: Sandbox;
  /** The running test's own HOME, removed after it. */
  readonly home: string;
  /** Runs the built CLI in the test's HOME with the demo client's credentials in its environment. */
  roster(args: string[], options?: CliOptions): Promise<CliResult>;
}

/**
 * One sandbox for a test file (started before its tests, closed after them), and for each test a fresh HOME
 * and an empty request log, so a test asserts only the requests its own runs made.
 */
export function useSandbox(options: SandboxOptions = {}): SandboxedTests {
  let sandbox: Sandbox | undefined;
  let home: string | undefined;
  beforeAll(async () => {
    sandbox = await startSandbox(options);
  });
  afterAll(() => sandbox?.close());
  beforeEach(() => {
    home = tempDir();
    tests.sandbox.requests.length = 0;
  });
  afterEach(() => {
    if (home) rmSync(home, { recursive: true, force: true });
  });
  const tests: SandboxedTests = {
    get sandbox() {
      if (!sandbox) throw new Error('the sandbox starts in beforeAll: use it inside a hook or a test');
      return sandbox;
    },
    get home() {
      if (!home) throw new Error('the HOME is made in beforeEach: use it inside a test');
      return home;
    },
    roster: (args, cli = {}) =>
      runCli(args, tests.home, { ...cli, env: { ...demoEnv(tests.sandbox), ...cli.env } }),
  };
  return tests;
}

/** `roster login` of a demo client into the opt-in credentials file (no keychain needed), its secret on stdin. */
export function insecureLogin(
  sandbox: Sandbox,
  extra: string[] = [],
  clientId = 'demo-allowed',
): { args: string[]; input: string } {
  return {
    args: [
      'login',
      '--base-url',
      sandbox.baseUrl,
      '--client-id',
      clientId,
      '--client-secret-stdin',
      '--insecure-storage',
      ...extra,
    ],
    input: demoClient(sandbox, clientId).clientSecret,
  };
}

/**
 * A HOME whose schools list for the demo client is cached, as after any earlier run: a run's first request
 * is then its token (tests that stop a run at a known point rely on it).
 */
export async function homeWithSchoolsCached(sandbox: Sandbox): Promise<string> {
  const home = tempDir();
  await writeSchoolsCache(
    join(home, '.cache', 'roster'),
    { profile: 'default', baseUrl: sandbox.baseUrl, clientId: 'demo-allowed', oneroster: '1.1' },
    {
      readAt: Date.now(),
      schools: [{ sourcedId: 'org-sch-1', name: 'Alder', identifier: '', status: 'active' }],
    },
  );
  return home;
}

/**
 * The sandbox's school year as docs/sandbox.md describes it, computed here (not by the sandbox's code): the one
 * containing today (UTC), July 1 to June 30, its sessions named after its years (as-2026-27, its terms
 * as-2026-27-t1 and -t2, its grading periods -gp1 … -gp4).
 */
export function sandboxSchoolYear(today = new Date().toISOString().slice(0, 10)) {
  const first = Number(today.slice(0, 4)) - (Number(today.slice(5, 7)) >= 7 ? 0 : 1);
  const year = `as-${first}-${String((first + 1) % 100).padStart(2, '0')}`;
  /** `after`: the first day after it. */
  return { year, after: `${first + 1}-07-01` };
}

/**
 * The server's invitation list out of use (a district's server without it: 404) until the sandbox's scripted
 * faults are cleared: roster cannot settle a doubt by it and keeps its own rule, which a test of rows in
 * doubt rehearses.
 */
export function listOutOfUse(sandbox: Sandbox): void {
  sandbox.injectFault({
    match: (r) => r.method === 'GET' && r.path === '/enrollment/invitations',
    status: 404,
    body: { message: 'No such endpoint' },
    times: 1_000_000,
  });
}
