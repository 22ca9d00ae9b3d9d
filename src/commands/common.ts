// What every command's register() shares: reading the global flags and building Settings / Session.
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { Session } from '../session.js';
import { type GlobalFlags, resolveSettings, type Settings } from '../settings.js';

export function globalFlags(command: Command): GlobalFlags {
  return command.optsWithGlobals() as GlobalFlags;
}

export function loadSettings(ctx: Context, command: Command): Promise<Settings> {
  return resolveSettings(globalFlags(command), ctx.env, ctx.paths.configDir);
}

export async function openSession(ctx: Context, command: Command): Promise<Session> {
  return new Session(ctx, await loadSettings(ctx, command));
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
