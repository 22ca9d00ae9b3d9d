// What every command's register() shares: the global flags, flag parsers and the help's examples.
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import type { Session } from '../session.js';
import type { GlobalFlags, Settings } from '../settings.js';
import { printable } from '../values.js';

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

/**
 * commander's argParser for one of a fixed set of values, failing as a usage error before anything runs.
 * It carries `choices`, so shell completion offers them (completion/model.ts).
 */
export function choice<T extends string>(flag: string, allowed: readonly T[]) {
  const parse = (value: string): T => {
    if ((allowed as readonly string[]).includes(value)) return value as T;
    const expected = `${allowed.slice(0, -1).join(', ')} or ${allowed.at(-1)}`;
    throw new UsageError(`Invalid ${flag} "${printable(value, 40)}": expected ${expected}.`);
  };
  return Object.assign(parse, { choices: allowed });
}

/** Adds an "Examples:" section to a command's --help. */
export function examples(command: Command, lines: string[]): Command {
  return command.addHelpText('after', `\nExamples:\n${lines.map((l) => `  ${l}`).join('\n')}\n`);
}
