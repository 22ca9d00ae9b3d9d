// The only door to the outside world. Commands receive a Context and never touch `process`, the
// keychain or the network directly, so tests can hand them a fake one. Heavy pieces (keychain binding,
// prompts) load lazily: `--help`, `--version` and usage errors never pay for them.
import type { Transport } from './api/transport.js';
import type { KeychainStore } from './auth/secret-store.js';
import type { Undone } from './errors.js';
import type { Terminal } from './io.js';
import type { Logger } from './output/log.js';
import type { Paths } from './paths.js';
import type { Prompter } from './prompter.js';
import type { Redactor } from './redact.js';
import { Session } from './session.js';
import { type Env, type GlobalFlags, resolveSettings, type Settings } from './settings.js';

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
  /**
   * The wire, when a test hands in a scripted one (test/helpers/http-mock.ts). Never set by the program:
   * the Session then builds roster's own HTTP transport.
   */
  transport?: Transport;
  /**
   * For a read that streams (a list, `changes`, a dry run's requests): should the reader close stdout early
   * (`| head`), the process ends at once with exit 0 instead of reading on into nothing (and `changes --since
   * last` saves no mark). Any other command finishes its work, its output silenced, with its own exit code.
   * Absent where there is no process to end (unit tests).
   */
  stopWhenOutputCloses?(): void;
  /**
   * The run's settings (flags > environment > profile > defaults), resolved on first use, once (below).
   * A command reads them through here, never from commander.
   */
  settings(): Promise<Settings>;
  /** The run's Session (credentials, tokens, transport, client), built on first use, once per process. */
  session(): Promise<Session>;
}

// The run's settings and Session, made on first use and once per process (gh's Factory): `--help`, usage
// errors and commands that fail validation never read the config file, the keychain or the network, and
// every part of a command shares one Session (one token provider, one transport). session.ts and
// settings.ts are on the hot path of the build anyway (dist/cli.js, esbuild.config.mjs).

export type RunSession = Pick<Context, 'settings' | 'session'>;

/** A Context made whole with its run's settings and Session (`load` runs on first use). */
export function withRunSession(
  base: Omit<Context, keyof RunSession>,
  load: () => Promise<Settings>,
): Context {
  const ctx = base as Context;
  return Object.assign(ctx, memoisedSession(ctx, load));
}

/** Settings resolved from these global flags (with the environment and the profile), and their Session. */
export function lazyRunSession(ctx: Context, flags: GlobalFlags): RunSession {
  return memoisedSession(ctx, () => resolveSettings(flags, ctx.env, ctx.paths.configDir));
}

/** The run's settings before a command is chosen: the environment and the profile, no flags. */
export function settingsWithoutFlags(ctx: Pick<Context, 'env' | 'paths'>): () => Promise<Settings> {
  return () => resolveSettings({}, ctx.env, ctx.paths.configDir);
}

/** `load` runs once, on the first call of either; the Session is built once, from its settings. */
export function memoisedSession(ctx: Context, load: () => Promise<Settings>): RunSession {
  let settings: Promise<Settings> | undefined;
  let session: Promise<Session> | undefined;
  const settingsOnce = () => {
    settings ??= load();
    return settings;
  };
  return {
    settings: settingsOnce,
    session: () => {
      session ??= settingsOnce().then((resolved) => new Session(ctx, resolved));
      return session;
    },
  };
}
