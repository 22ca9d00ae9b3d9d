// What every command's register() shares: the global flags, flag parsers and the help's examples.
import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import type { GlobalFlags } from '../settings.js';
import { parseCount, printable } from '../values.js';

export function globalFlags(command: Command): GlobalFlags {
  return command.optsWithGlobals() as GlobalFlags;
}

/** commander's argParser for a flag that may be given more than once: every value, in order. */
export const repeatable = (value: string, previous: string[] = []): string[] => [...previous, value];

/**
 * commander's argParser for one of a fixed set of values, failing as a usage error before anything runs.
 * It carries `choices`, so shell completion offers them (completion/model.ts).
 */
export function choice<T extends string>(flag: string, allowed: readonly T[], shown = 40) {
  const parse = (value: string): T => {
    if ((allowed as readonly string[]).includes(value)) return value as T;
    const expected = `${allowed.slice(0, -1).join(', ')} or ${allowed.at(-1)}`;
    throw new UsageError(`Invalid ${flag} "${printable(value, shown)}": expected ${expected}.`);
  };
  return Object.assign(parse, { choices: allowed });
}

/** commander's argParser for a whole number from `min` to `max`, failing as a usage error (values.ts). */
export const count =
  (flag: string, min: number, max: number) =>
  (value: string): number =>
    parseCount(flag, value, min, max);

/** Adds an "Examples:" section to a command's --help. */
export function examples(command: Command, lines: string[]): Command {
  return command.addHelpText('after', `\nExamples:\n${lines.map((l) => `  ${l}`).join('\n')}\n`);
}
