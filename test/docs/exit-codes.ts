// README's exit-code table, generated from the code: the exit code of each error code (EXIT_CODES) and its
// meaning for users (the comment beside it in the ErrorCode union of src/errors.ts). `npm run docs` writes
// it into README.md between the markers; exit-codes.test.ts fails when the README's table differs.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ErrorCode, EXIT_CODES } from '../../src/errors.js';

const ROOT = join(import.meta.dirname, '..', '..');
export const README = join(ROOT, 'README.md');
const START = '<!-- exit-codes: generated from src/errors.ts by `npm run docs`; edit there, not here -->';
const END = '<!-- /exit-codes -->';

/** Each error code's meaning: the `// comment` on its line of the ErrorCode union. */
export function errorCodeMeanings(source = readFileSync(join(ROOT, 'src', 'errors.ts'), 'utf8')) {
  // The union's lines: each starts with `|`; the last ends the type with `;` (a comment may hold one too).
  const union = /export type ErrorCode =\n((?:[ \t]*\|[^\n]*\n)+)/.exec(source)?.[1] ?? '';
  const meanings = new Map<string, string>();
  for (const [, code, meaning] of union.matchAll(/\|\s*'([\w-]+)';?\s*\/\/\s*(.+)/g)) {
    meanings.set(code ?? '', (meaning ?? '').trim());
  }
  return meanings;
}

/** One row per exit code, lowest first: the meanings of its error codes in the order the union gives them. */
export function exitCodeTable(): string {
  const meanings = errorCodeMeanings();
  const byExit = new Map<number, string[]>([[0, ['success (an empty list is success)']]]);
  for (const [code, meaning] of meanings) {
    const exit = EXIT_CODES[code as ErrorCode];
    byExit.set(exit, [...(byExit.get(exit) ?? []), meaning]);
  }
  const rows = [...byExit]
    .sort(([a], [b]) => a - b)
    .map(([exit, texts]) => `| ${exit} | ${texts.join('; ')} |`);
  return ['| code | meaning |', '| --- | --- |', ...rows].join('\n');
}

/** The README with its exit-code table (between the markers) as the code generates it. */
export function withExitCodeTable(readme: string): string {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error(`README.md has no exit-code markers (${START} … ${END})`);
  return `${readme.slice(0, start + START.length)}\n${exitCodeTable()}\n${readme.slice(end)}`;
}
