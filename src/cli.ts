// Builds the real Context from the process and runs main. Imported by bin/roster.js.
import type { Context } from './context.js';
import { createLogger, Redactor } from './context.js';
import type { IO } from './io.js';
import { main } from './main.js';
import { resolvePaths } from './paths.js';

export async function run(argv: string[]): Promise<number> {
  const env = process.env;
  const secrets = new Redactor();
  const io: IO = {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    stdinIsTTY: Boolean(process.stdin.isTTY),
    stdoutIsTTY: Boolean(process.stdout.isTTY),
    stderrIsTTY: Boolean(process.stderr.isTTY),
    columns: process.stdout.columns || 80,
  };
  let interrupt: AbortController | undefined;
  const trapInterrupt = () => {
    if (!interrupt) {
      const controller = new AbortController();
      process.on('SIGINT', () => (controller.signal.aborted ? process.exit(130) : controller.abort()));
      interrupt = controller;
    }
    return interrupt.signal;
  };
  const ctx: Context = {
    io,
    env,
    paths: resolvePaths(env),
    now: Date.now,
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    secrets,
    log: createLogger(io.stderr, secrets),
    color: io.stdoutIsTTY && !env.NO_COLOR && env.TERM !== 'dumb',
    interactive: io.stdinIsTTY && io.stdoutIsTTY && !env.CI,
    keychain: async () => (await import('./auth/keychain.js')).createKeychainStore(),
    prompter: async () =>
      (await import('./prompter.js')).createInquirerPrompter(process.stdin, process.stderr),
    trapInterrupt,
  };
  return main(argv, ctx);
}
