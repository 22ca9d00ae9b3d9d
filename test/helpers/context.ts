// A Context for behaviour tests: in-memory streams, temporary directories, an in-memory keychain.
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { Transport } from '../../src/api/transport.js';
import { type KeychainStore, KeychainUnavailableError } from '../../src/auth/secret-store.js';
import { type Context, settingsWithoutFlags, withRunSession } from '../../src/context.js';
import type { IO } from '../../src/io.js';
import { createLogger } from '../../src/output/log.js';
import type { Prompter } from '../../src/prompter.js';
import { Redactor } from '../../src/redact.js';
import type { Settings } from '../../src/settings.js';
import { tempDir } from './temp.js';

export class MemoryKeychain implements KeychainStore {
  readonly description = 'the test keychain';
  readonly secrets = new Map<string, string>();
  /** Set to make every call fail as a keychain this session cannot reach (SSH) does. */
  unreachable = false;
  probe = async () => {
    if (this.unreachable)
      throw new KeychainUnavailableError('The test keychain cannot be reached.', 'unreachable in this test');
  };
  get = async (account: string) => {
    await this.probe();
    return this.secrets.get(account);
  };
  set = async (account: string, secret: string) => {
    await this.probe();
    this.secrets.set(account, secret);
  };
  delete = async (account: string) => {
    await this.probe();
    return this.secrets.delete(account);
  };
}

export interface FakeContext {
  ctx: Context;
  stdout: () => string;
  stderr: () => string;
  keychain: MemoryKeychain;
  home: string;
  /** Every wait the run asked for (back-off, Retry-After), in ms: it waited at most 20 ms of each. */
  sleeps: number[];
}

export { tempDir } from './temp.js';

export interface FakeContextOptions {
  env?: Record<string, string>;
  stdin?: string;
  tty?: boolean;
  prompter?: Prompter;
  debug?: boolean;
  /** The run's settings (else resolved from `env` and the config in the temporary home). */
  settings?: Settings;
  /** The wire (an HttpMock, test/helpers/http-mock.ts); else roster's HTTP transport. */
  transport?: Transport;
  /** The home of an earlier run, for "the next run" (default: a new temporary one). */
  home?: string;
}

export function fakeContext(options: FakeContextOptions = {}): FakeContext {
  const home = options.home ?? tempDir();
  let out = '';
  let err = '';
  const stdin = new PassThrough();
  stdin.end(options.stdin ?? '');
  const io: IO = {
    stdout: {
      write(s: string) {
        out += s;
        return true;
      },
    },
    stderr: {
      write(s: string) {
        err += s;
        return true;
      },
    },
    stdin,
    stdinIsTTY: options.tty ?? false,
    stdoutIsTTY: options.tty ?? false,
    stderrIsTTY: options.tty ?? false,
    columns: 100,
  };
  const secrets = new Redactor();
  const keychain = new MemoryKeychain();
  const sleeps: number[] = [];
  const base: Omit<Context, 'settings' | 'session'> = {
    io,
    env: { HOME: home, ...options.env },
    paths: { configDir: join(home, 'config'), cacheDir: join(home, 'cache'), stateDir: join(home, 'state') },
    now: Date.now,
    sleep: (ms) => {
      sleeps.push(ms);
      return new Promise((resolve) => setTimeout(resolve, Math.min(ms, 20)));
    },
    secrets,
    log: createLogger(io.stderr, secrets, options.debug ?? false),
    color: false,
    interactive: Boolean(options.tty && options.prompter),
    keychain: async () => keychain,
    prompter: async () => {
      if (!options.prompter) throw new Error('no prompter in this test');
      return options.prompter;
    },
    trapInterrupt: () => new AbortController().signal,
    ...(options.transport && { transport: options.transport }),
  };
  const { settings } = options;
  const ctx = withRunSession(base, settings ? async () => settings : settingsWithoutFlags(base));
  return { ctx, stdout: () => out, stderr: () => err, keychain, home, sleeps };
}

/** The context with these settings as the run's (and a Session of its own built from them). */
export function withSettings(ctx: Context, settings: Settings): Context {
  return withRunSession({ ...ctx }, async () => settings);
}
