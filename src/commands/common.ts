// What every command's register() shares: the global flags, flag parsers and the help's examples.
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import type { Session } from '../session.js';
import type { GlobalFlags, Settings } from '../settings.js';

export function globalFlags(command: Command): GlobalFlags {
  return command.optsWithGlobals() as GlobalFlags;
}

/** @deprecated The run's settings are `ctx.settings()` (made once per process); kept for the invite commands. */
export function loadSettings(ctx: Context, _command?: Command): Promise<Settings> {
  return ctx.settings();
}

/** @deprecated The run's Session is `ctx.session()` (made once per process); kept for the invite commands. */
export function openSession(ctx: Context, _command?: Command): Promise<Session> {
  return ctx.session();
}

/** commander's argParser for a flag that may be given more than once: every value, in order. */
export const repeatable = (value: string, previous: string[] = []): string[] => [...previous, value];

/** commander's argParser for one of a fixed set of values, failing as a usage error. */
export function choice<T extends string>(flag: string, allowed: readonly T[]) {
  return (value: string): T => {
    if ((allowed as readonly string[]).includes(value)) return value as T;
    throw new UsageError(
      `Invalid value "${value.slice(0, 40)}" for ${flag}: expected ${allowed.join(', ')}.`,
    );
  };
}

/** Adds an "Examples:" section to a command's --help. */
export function examples(command: Command, lines: string[]): Command {
  return command.addHelpText('after', `\nExamples:\n${lines.map((l) => `  ${l}`).join('\n')}\n`);
}
