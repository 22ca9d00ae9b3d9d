// What a shell needs to complete `roster`, read from the commander program itself so the scripts never
// drift from the commands: names, aliases, summaries, flags, which flags take a value, and the values.
import type { Argument, Command, Option } from 'commander';

/** How to complete a value: fixed words, the saved profile names or cached school ids (asked at TAB time), or paths. */
export type ValueSource =
  | { kind: 'words'; words: readonly string[] }
  | { kind: 'profiles' }
  | { kind: 'schools' }
  | { kind: 'files' }
  | { kind: 'directories' }
  | { kind: 'none' };

export interface FlagSpec {
  /** e.g. ['-y', '--yes'] */
  names: string[];
  description: string;
  /** Undefined for a flag that takes no value. */
  value?: ValueSource;
}

export interface CommandSpec {
  /** Names from the program down, e.g. ['roster', 'invite', 'send']. */
  path: string[];
  name: string;
  aliases: string[];
  description: string;
  /** Own flags only; a command also accepts every ancestor's flags (commander reads them anywhere). */
  flags: FlagSpec[];
  /** What to offer for positional arguments, if anything. */
  operand?: ValueSource;
  subcommands: CommandSpec[];
}

/** Extra words for positional arguments that commander cannot describe (e.g. help topics). */
export type OperandHints = Record<string, readonly string[]>;

/**
 * Commands help leaves out but completion offers: the top-level shortcuts of the OneRoster reads
 * (`roster students`), which would crowd `roster --help` with twelve lines saying what `roster` says.
 */
const OFFERED_HIDDEN = new WeakSet<Command>();

export function offerHiddenCommand(command: Command): Command {
  OFFERED_HIDDEN.add(command);
  return command;
}

export function describeProgram(program: Command, hints: OperandHints = {}): CommandSpec {
  return describe(program, [program.name()], hints);
}

function describe(command: Command, path: string[], hints: OperandHints): CommandSpec {
  const help = command.createHelp();
  const visible = help.visibleCommands(command);
  const subcommands = [...visible, ...command.commands.filter((sub) => OFFERED_HIDDEN.has(sub))]
    .filter((sub) => sub.name() !== 'help' || command.commands.includes(sub)) // commander's implicit one
    .map((sub) => describe(sub, [...path, sub.name()], hints));
  const operand = operandOf(command.registeredArguments, hints[path.slice(1).join(' ')]);
  return {
    path,
    name: command.name(),
    aliases: command.aliases(),
    description: oneLine(command.summary() || command.description()),
    flags: help.visibleOptions(command).map(flagOf),
    ...(operand ? { operand } : {}),
    subcommands,
  };
}

function flagOf(option: Option): FlagSpec {
  const names = [option.short, option.long].filter((n): n is string => Boolean(n));
  const spec: FlagSpec = { names, description: oneLine(option.description) };
  if (option.required || option.optional) spec.value = valueSourceOf(option);
  return spec;
}

function valueSourceOf(option: Option): ValueSource {
  // Fixed values, as the command declares them: commander's .choices(), or an argParser carrying `choices`
  // (commands/common.ts's choice(), invite send's --delimiter); never read back out of a description.
  const choices =
    option.argChoices ?? (option.parseArg as { choices?: readonly string[] } | undefined)?.choices;
  if (choices) return { kind: 'words', words: choices };
  if (option.attributeName() === 'profile') return { kind: 'profiles' };
  // --school-id (invite send, invite list) and --school (nested roster reads) take a school's sourcedId.
  if (['schoolId', 'school'].includes(option.attributeName())) return { kind: 'schools' };
  const placeholder = /<([^>]+)>|\[([^\]]+)\]/.exec(option.flags);
  const what = (placeholder?.[1] ?? placeholder?.[2] ?? '').toLowerCase();
  if (['file', 'csv', 'path'].includes(what)) return { kind: 'files' };
  if (['dir', 'directory'].includes(what)) return { kind: 'directories' };
  return { kind: 'none' };
}

function operandOf(
  args: readonly Argument[],
  hinted: readonly string[] | undefined,
): ValueSource | undefined {
  if (hinted) return { kind: 'words', words: hinted };
  const first = args[0];
  if (!first) return undefined;
  if (first.argChoices) return { kind: 'words', words: first.argChoices };
  const name = first.name().toLowerCase();
  if (name === 'profile') return { kind: 'profiles' };
  if (/file|csv|path/.test(name)) return { kind: 'files' };
  if (/dir/.test(name)) return { kind: 'directories' };
  return { kind: 'none' };
}

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

/** Every command of the tree, depth first, the program included. */
export function allCommands(spec: CommandSpec): CommandSpec[] {
  return [spec, ...spec.subcommands.flatMap(allCommands)];
}
