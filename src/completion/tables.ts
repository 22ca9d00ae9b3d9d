// The lookup tables every shell script needs, as (pattern, value) pairs the generators turn into
// `case` / `switch` branches. Keys are command paths ("roster invite send") and "path word" pairs;
// glob patterns let an ancestor's flag match under every descendant.
import { allCommands, type CommandSpec, type ValueSource } from './model.js';

export interface Tables {
  /** "path word" → the subcommand's name (aliases resolve to the name). */
  child: [pattern: string, name: string][];
  /** path → subcommands, with descriptions. */
  subcommands: [path: string, entries: { name: string; description: string }[]][];
  /** "path flag" (glob) → how to complete the flag's value; only flags that take one. */
  values: [pattern: string, source: string][];
  /** path → what to offer for a positional argument. */
  operands: [path: string, source: string][];
}

/** A value source in the scripts' own small vocabulary: words:a b | profiles | schools | files | dirs | none. */
export function sourceText(source: ValueSource): string {
  switch (source.kind) {
    case 'words':
      return `words:${source.words.join(' ')}`;
    case 'directories':
      return 'dirs';
    default:
      return source.kind;
  }
}

export function buildTables(root: CommandSpec): Tables {
  const commands = allCommands(root);
  const tables: Tables = { child: [], subcommands: [], values: [], operands: [] };
  for (const spec of commands) addCommand(tables, spec);
  // Deepest commands first, so a subcommand's own flag wins over an ancestor's flag of the same name.
  const deepestFirst = [...commands].sort((a, b) => b.path.length - a.path.length);
  for (const spec of deepestFirst) addFlagValues(tables.values, spec);
  return tables;
}

const keyOf = (spec: CommandSpec) => spec.path.join(' ');

/** A command's subcommands (by name and by alias) and its operand. */
function addCommand(tables: Tables, spec: CommandSpec): void {
  for (const sub of spec.subcommands) {
    for (const word of [sub.name, ...sub.aliases]) tables.child.push([`${keyOf(spec)} ${word}`, sub.name]);
  }
  if (spec.subcommands.length > 0) {
    tables.subcommands.push([
      keyOf(spec),
      spec.subcommands.map((sub) => ({ name: sub.name, description: sub.description })),
    ]);
  }
  if (spec.operand && spec.operand.kind !== 'none')
    tables.operands.push([keyOf(spec), sourceText(spec.operand)]);
}

/** How the values of a command's flags are completed, under the command and under its subcommands. */
function addFlagValues(values: Tables['values'], spec: CommandSpec): void {
  const below = spec.subcommands.length > 0;
  for (const flag of spec.flags) {
    if (!flag.value) continue;
    for (const name of flag.names) {
      values.push([`${keyOf(spec)} ${name}`, sourceText(flag.value)]);
      // commander reads a command's flags after its subcommands too.
      if (below) values.push([`${keyOf(spec)} * ${name}`, sourceText(flag.value)]);
    }
  }
}

/** Every flag name accepted at each command path (own and ancestors'), with descriptions. */
export function flagsByPath(
  root: CommandSpec,
): [path: string, flags: { name: string; description: string }[]][] {
  const out: [string, { name: string; description: string }[]][] = [];
  const walk = (spec: CommandSpec, inherited: { name: string; description: string }[]) => {
    const own = spec.flags.flatMap((flag) =>
      flag.names.map((name) => ({ name, description: flag.description })),
    );
    const names = new Set(own.map((f) => f.name));
    const all = [...own, ...inherited.filter((f) => !names.has(f.name))];
    out.push([spec.path.join(' '), all]);
    // --version belongs to the program alone.
    const passed = all.filter((f) => f.name !== '--version' && f.name !== '-V');
    for (const sub of spec.subcommands) walk(sub, passed);
  };
  walk(root, []);
  return out;
}
