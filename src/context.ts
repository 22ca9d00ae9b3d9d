// The only door to the outside world. Commands receive a Context and never touch `process`, the
// keychain or the network directly, so tests can hand them a fake one. Heavy pieces (keychain binding,
// prompts) load lazily: `--help`, `--version` and usage errors never pay for them.
import type { KeychainStore } from './auth/secret-store.js';
import type { Undone } from './errors.js';
import type { IO } from './io.js';
import { displayLines } from './output/safe-text.js';
import type { Paths } from './paths.js';
import type { Prompter } from './prompter.js';
import { Redactor } from './redact.js';
import type { Session } from './session.js';
import type { Env, Settings } from './settings.js';

export interface Logger {
  /** Whether --debug is on. */
  debugEnabled: boolean;
  debug(line: string): void;
  /** A note, hint or warning on stderr (never stdout). */
  info(line: string): void;
  warn(line: string): void;
}

export interface Context {
  io: IO;
  env: Env;
  paths: Paths;
  now(): number;
  sleep(ms: number): Promise<void>;
  secrets: Redactor;
  log: Logger;
  /** Colour on stdout/stderr (off for NO_COLOR, --no-color and pipes). */
  color: boolean;
  /** Prompts are allowed: terminals on both ends, no --no-input, no CI. */
  interactive: boolean;
  /** The OS keychain (the binding loads on first use; `probe()` says whether it can be reached). */
  keychain(): Promise<KeychainStore>;
  /**
   * The terminal's questions. `undone` is what leaving one (Ctrl-C, Esc) leaves undone, for the message of
   * its CancelledError: "nothing was sent", "nothing was saved".
   */
  prompter(undone: Undone): Promise<Prompter>;
  /**
   * For long-running commands: from now on Ctrl-C, SIGTERM or SIGHUP (on Windows Ctrl-C, Ctrl-Break or the
   * console window closed: platform.ts's stopSignals) aborts the returned signal (so the command can stop
   * taking work and save its state) instead of ending the process; a second one ends it.
   */
  trapInterrupt(): AbortSignal;
  /**
   * The run's settings (flags > environment > profile > defaults), resolved on first use, once
   * (run-session.ts). A command reads them through here, never from commander.
   */
  settings(): Promise<Settings>;
  /** The run's Session (credentials, tokens, transport, client), built on first use, once per process. */
  session(): Promise<Session>;
}

/** Every message, warning, error and trace: secrets redacted, then no control character left raw. */
export function createLogger(stderr: IO['stderr'], secrets: Redactor, debugEnabled = false): Logger {
  const write = (line: string) => stderr.write(`${displayLines(secrets.redact(line))}\n`);
  return {
    debugEnabled,
    debug(line) {
      if (this.debugEnabled) write(`[debug] ${line}`);
    },
    info: write,
    warn: (line) => write(`Warning: ${line}`),
  };
}

/**
 * stdout with every secret the process knows redacted: a server may echo a token or the client secret into
 * a label or a record field, and stdout goes to files and pipes as much as stderr does.
 */
export function redactedOutput(stdout: IO['stdout'], secrets: Redactor): IO['stdout'] {
  return {
    write: (chunk) => stdout.write(secrets.redactEchoes(chunk)),
    once: (event, listener) => stdout.once?.(event, listener),
  };
}

export { Redactor };
