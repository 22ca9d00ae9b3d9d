// Runs the built CLI as a user or a script would: a real process, real files under a private HOME.
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

export const ROSTER_BIN = join(import.meta.dirname, '..', '..', 'bin', 'roster.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env?: Record<string, string | undefined>;
  input?: string;
  /** Leave stdin open (nothing written, never ended): a run that waits for input then waits until killed. */
  stdinOpen?: boolean;
  /** Kill the process (SIGKILL; its code is then null) after this long (default 20 s). */
  timeoutMs?: number;
  /** Working directory of the process (default: the test's). */
  cwd?: string;
  /** The CLI to run (default: this checkout's bin/roster.js). */
  bin?: string;
  /** A standalone executable to run instead of Node with `bin`. */
  executable?: string;
}

/** Environment for a CLI run: only what the test gives, plus PATH and a private HOME. */
export function cliEnv(home: string, env: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    DBUS_SESSION_BUS_ADDRESS: process.env.DBUS_SESSION_BUS_ADDRESS,
    NO_COLOR: '1',
  };
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete base[name];
    else base[name] = value;
  }
  return base;
}

/** Where a run on Node ≥ 22.1 keeps compiled code (bin/roster.js), whatever the command: code, not data. */
export const compileCacheDir = (home: string) => join(home, '.cache', 'roster', 'compile');

/** Starts the CLI and returns the process (to signal it) and its result when it ends. */
export function startCli(
  args: string[],
  home: string,
  options: CliOptions = {},
): { child: ChildProcess; done: Promise<CliResult> } {
  const [command, ...before] = options.executable
    ? [options.executable]
    : [process.execPath, options.bin ?? ROSTER_BIN];
  const child = spawn(command as string, [...before, ...args], {
    env: cliEnv(home, options.env),
    ...(options.cwd !== undefined && { cwd: options.cwd }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d) => (stdout += d));
  child.stderr?.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 20_000);
  const done = new Promise<CliResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
  if (!options.stdinOpen) child.stdin?.end(options.input ?? '');
  return { child, done };
}

export function runCli(args: string[], home: string, options: CliOptions = {}): Promise<CliResult> {
  return startCli(args, home, options).done;
}

/** Waits until a condition holds (polling), or fails the test after a while. */
export async function until(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 5));
  }
}
