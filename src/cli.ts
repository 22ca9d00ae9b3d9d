// Builds the real Context from the process and runs main. Imported by bin/roster.js, which answers
// `--version` itself; the program (commander, main) is in this chunk, each command in its own.
import { writeSync } from 'node:fs';
import { isatty } from 'node:tty';
import { monotonicMs } from './clock.js';
import { type Context, settingsWithoutFlags, withRunSession } from './context.js';
import type { IO } from './io.js';
import { type CommandListing, commandListing, createProgram, loadCommands, main } from './main.js';
import { createLogger, redactedOutput } from './output/log.js';
import { resolvePaths } from './paths.js';
import { stopSignals } from './platform.js';
import { Redactor } from './redact.js';
import { versionInfo, versionLine } from './version.js';

/** Every command as `roster --help` lists it: the build writes it to dist/commands.json (src/main.ts). */
export async function listCommands(): Promise<CommandListing[]> {
  return commandListing(createProgram(createContext(), await loadCommands()));
}

export async function run(argv: string[]): Promise<number> {
  // Scripts call `roster --version` to probe for the tool: answer before loading the program.
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    process.stdout.write(`${versionLine()}\n`);
    return 0;
  }
  if (argv.length === 2 && argv.includes('--json') && argv.some((a) => a === '--version' || a === '-V')) {
    process.stdout.write(`${JSON.stringify(versionInfo(), null, 2)}\n`);
    return 0;
  }
  // `roster … | head` closes the pipe early: that is the reader's choice, not an error. A read that streams
  // (Context.stopWhenOutputCloses) stops at once with exit 0; any other command finishes its work, writing
  // into nothing, and ends with its own exit code (a bulk send's failed rows stay exit 5, an `invite forget`
  // is not cut off half-way). Any other failure to write the output (a full disk: ENOSPC) is one line, not a
  // stack trace, and exit 1: at once for a read, else once the command's work is done (if it has no code of
  // its own), for the output is lost.
  let outputLost = false;
  let done = false;
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (stdoutGone) return;
    const readerGone = READER_GONE.has(error.code ?? '');
    if (!readerGone) sayNow(`Error: could not write the output: ${error.message}.`);
    if (stopOnClosedOutput) process.exit(readerGone ? 0 : 1);
    outputLost ||= !readerGone;
    // A write's failure may be told only once the command has returned (its last write, asynchronous).
    if (outputLost && done && !process.exitCode) process.exitCode = 1;
    silenceStdout();
  });
  // stderr closed early (`2>&1 | head -1`): nothing more can be said there, and the exit code still must be
  // the command's own (5 for rows in doubt), not a crash's 1.
  process.stderr.on('error', () => {});
  const code = await main(argv, createContext());
  done = true;
  return outputLost && code === 0 ? 1 : code;
}

/**
 * A line on stderr before the process exits: synchronous, as an asynchronous write to a pipe (macOS) or a
 * console (Windows) dies with the process; a stderr that cannot take it is no reason to fail otherwise.
 */
function sayNow(line: string): void {
  try {
    writeSync(2, `${line}\n`);
  } catch {
    // stderr is closed: nothing more can be said
  }
}

/**
 * How a write learns that stdout's reader has gone: EPIPE from a pipe or a Unix socket; EOF from a pipe on
 * Windows; ECONNRESET or ENOTCONN from a TCP socket.
 */
const READER_GONE = new Set(['EPIPE', 'EOF', 'ECONNRESET', 'ENOTCONN']);

/** The command is a read that streams: a closed stdout ends it (Context.stopWhenOutputCloses). */
let stopOnClosedOutput = false;
/** stdout's reader is gone, and what the command writes goes nowhere (silenceStdout). */
let stdoutGone = false;

/**
 * stdout's reader is gone: what the command writes from now on goes nowhere, at once (a write waiting for the
 * stream to drain is let go), so its work and its exit code are its own.
 */
function silenceStdout(): void {
  stdoutGone = true;
  process.stdout.write = (() => true) as typeof process.stdout.write;
  process.stdout.emit('drain');
}

/** How soon the same signal again counts as the first one delivered twice (see trapInterrupt). */
const REPEAT_MS = 250;

function createContext(): Context {
  const env = process.env;
  const secrets = new Redactor();
  const io: IO = {
    stdout: redactedOutput(process.stdout, secrets),
    tokenOut: process.stdout,
    stderr: process.stderr,
    // Opening stdin costs start-up time; most commands never read it.
    get stdin() {
      return process.stdin;
    },
    stdinIsTTY: isatty(0),
    stdoutIsTTY: Boolean(process.stdout.isTTY),
    stderrIsTTY: Boolean(process.stderr.isTTY),
    columns: process.stdout.columns || 80,
  };
  let interrupt: AbortController | undefined;
  const trapInterrupt = () => {
    if (!interrupt) {
      const controller = new AbortController();
      // SIGTERM (a cancelled CI job, `kill`) and SIGHUP (the terminal closed), or on Windows Ctrl-Break and a
      // closed console window, are Ctrl-C too: the first stops the work and saves it (exit 130, like Ctrl-C),
      // a second ends the process at once. The same signal again within REPEAT_MS is the first one delivered
      // twice, not a second: `timeout` signals roster and its process group, npm relays what the terminal
      // already sent, and a run stopped at once leaves its requests in flight in doubt.
      let first: { signal: string; at: number } | undefined;
      for (const signal of stopSignals())
        process.on(signal, () => {
          const now = monotonicMs();
          if (!first) {
            first = { signal, at: now };
            return controller.abort();
          }
          if (signal === first.signal && now - first.at < REPEAT_MS) return;
          sayNow(
            'Error: Stopped at once by a second interrupt; what was under way may be incomplete: run the same command again to see.',
          );
          process.exit(130);
        });
      interrupt = controller;
    }
    return interrupt.signal;
  };
  const log = createLogger(io.stderr, secrets);
  const base: Omit<Context, 'settings' | 'session'> = {
    io,
    env,
    paths: resolvePaths(env),
    now: Date.now,
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    secrets,
    log,
    color: io.stdoutIsTTY && !env.NO_COLOR && env.TERM !== 'dumb',
    interactive: io.stdinIsTTY && io.stdoutIsTTY && !env.CI,
    keychain: async () => (await import('./auth/keychain.js')).createKeychainStore({ log }),
    prompter: async (undone) =>
      (await import('./prompter.js')).createInquirerPrompter(process.stdin, process.stderr, undone),
    trapInterrupt,
    stopWhenOutputCloses: () => {
      stopOnClosedOutput = true;
    },
  };
  // Until a command runs (main's preAction hook gives it its flags): the environment and the profile.
  return withRunSession(base, settingsWithoutFlags(base));
}
