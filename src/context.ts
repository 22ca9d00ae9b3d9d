// The only door to the outside world. Commands receive a Context and never touch `process`, the
// keychain or the network directly, so tests can hand them a fake one. Heavy pieces (keychain binding,
// prompts) load lazily: `--help`, `--version` and usage errors never pay for them.
import type { KeychainStore } from './auth/secret-store.js';
import type { Undone } from './errors.js';
import type { Terminal } from './io.js';
import type { Logger } from './output/log.js';
import type { Paths } from './paths.js';
import type { Prompter } from './prompter.js';
import type { Redactor } from './redact.js';
import type { Env } from './settings.js';

export interface Context extends Terminal {
  env: Env;
  paths: Paths;
  now(): number;
  sleep(ms: number): Promise<void>;
  secrets: Redactor;
  log: Logger;
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
}
