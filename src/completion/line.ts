// What to offer for the word being completed, decided in roster itself from the same model as the bash,
// zsh and fish scripts: the PowerShell script (powershell.ts) hands the words typed so far to the hidden
// `roster __complete line` and shows what it prints, as gh's does. The walk is the bash script's: find the
// command path (skipping flags and the values of flags that take one), then offer the value of the flag just
// typed, else flags (after a `-`), else subcommands, else the command's operand.
import type { CommandSpec } from './model.js';
import { buildTables, flagsByPath, type Tables } from './tables.js';

/** Fixed words with descriptions, or a source the caller resolves (profiles, schools, the file system). */
export type LineCompletion =
  | { kind: 'words'; entries: { text: string; description: string }[] }
  | { kind: 'profiles' | 'schools' | 'files' | 'dirs' | 'none' };

/** `before`: the words typed before the one being completed, the program's name left out. */
export function completeLine(root: CommandSpec, before: readonly string[], current: string): LineCompletion {
  const tables = buildTables(root);
  const path = commandPath(root.name, tables, before);
  const value = flagValueCompletion(tables, path, before.at(-1), current);
  if (value !== undefined) return value;
  if (current.startsWith('-')) {
    const flags = flagsByPath(root).find(([p]) => p === path)?.[1] ?? [];
    return words(
      flags.map((f) => ({ text: f.name, description: f.description })),
      current,
    );
  }
  const subcommands = tables.subcommands.find(([p]) => p === path)?.[1];
  if (subcommands)
    return words(
      subcommands.map((s) => ({ text: s.name, description: s.description })),
      current,
    );
  const operand = tables.operands.find(([p]) => p === path)?.[1];
  return operand === undefined ? { kind: 'none' } : offer(operand, current);
}

/** The command path the words typed name, skipping flags and the values of flags that take one. */
function commandPath(rootName: string, tables: Tables, before: readonly string[]): string {
  const child = new Map(tables.child);
  let path = rootName;
  for (let i = 0; i < before.length; i++) {
    const word = before[i] as string;
    if (word === '--') break;
    if (/^-.*=/.test(word)) continue;
    if (word.startsWith('-')) {
      if (valueSourceOf(tables, path, word) !== undefined) i++;
      continue;
    }
    const name = child.get(`${path} ${word}`);
    if (name !== undefined) path = `${path} ${name}`;
  }
  return path;
}

/**
 * What to offer when the word being completed is a flag's value: after the flag (`previous`), or inline
 * (`--flag=value`); undefined when it is none.
 */
function flagValueCompletion(
  tables: Tables,
  path: string,
  previous: string | undefined,
  current: string,
): LineCompletion | undefined {
  const inline = /^(-[^=]+)=(.*)$/s.exec(current);
  const flag = inline?.[1] ?? (previous?.startsWith('-') && !previous.includes('=') ? previous : undefined);
  const source = flag === undefined ? undefined : valueSourceOf(tables, path, flag);
  if (source === undefined) return undefined;
  const offered = offer(source, inline ? (inline[2] as string) : current);
  if (!inline || offered.kind !== 'words') return offered;
  // --flag=value: the whole word is replaced, so the flag goes back in front of each value.
  return {
    kind: 'words',
    entries: offered.entries.map((e) => ({ ...e, text: `${inline[1]}=${e.text}` })),
  };
}

/** How the value of `flag` is completed at `path`, when the flag takes one. */
function valueSourceOf(tables: Tables, path: string, flag: string): string | undefined {
  const key = `${path} ${flag}`;
  return tables.values.find(([pattern]) => glob(pattern).test(key))?.[1];
}

/** A source in the tables' vocabulary (tables.ts: sourceText) as what to offer for `current`. */
function offer(source: string, current: string): LineCompletion {
  if (source.startsWith('words:')) {
    return words(
      source
        .slice('words:'.length)
        .split(' ')
        .map((text) => ({ text, description: text })),
      current,
    );
  }
  if (source === 'profiles' || source === 'schools' || source === 'files' || source === 'dirs') {
    return { kind: source };
  }
  return { kind: 'none' };
}

const words = (entries: { text: string; description: string }[], current: string): LineCompletion => ({
  kind: 'words',
  entries: entries.filter((e) => e.text.startsWith(current)),
});

/** A table pattern (`*` matches any words) as a regular expression. */
const glob = (pattern: string) =>
  new RegExp(
    `^${pattern
      .split('*')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
