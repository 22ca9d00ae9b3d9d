// Invitations to a school id the district's list of schools does not have (a school that opens next year,
// whose families are invited before it is in the roster). Never by accident: each id is named with
// --allow-unlisted-school (or a CSV row says allowUnlistedSchool=yes), a terminal asks once more naming the
// ids, a script needs the flag alone, and the summary and report say which rows went where.
import { UsageError } from '../errors.js';
import { hiddenCharacter, printable } from '../values.js';

/** How to send to a school id the district's list does not have yet, said when a value names no school. */
export const UNLISTED_HINT =
  "For a school not in the district's list yet, pass --allow-unlisted-school ID (or mark its CSV rows allowUnlistedSchool=yes).";

/** --allow-unlisted-school values: ids as typed (trimmed), each a plausible id. */
export function parseUnlisted(values: readonly string[] | undefined): Set<string> {
  const ids = new Set<string>();
  for (const value of values ?? []) {
    const id = value.trim();
    const hidden = hiddenCharacter(value);
    if (id === '' || hidden)
      throw new UsageError(
        `Invalid --allow-unlisted-school "${printable(value, 60)}"${hidden ? `: it contains ${hidden}` : ': it is empty'}.`,
        'Give the school id exactly as it is to be sent.',
      );
    ids.add(id);
  }
  return ids;
}

/** The unlisted school ids of a send and the lines (of a file) that go to each; a single send has none. */
export type UnlistedSends = Map<string, number[]>;

function unlistedLines(ids: UnlistedSends): string[] {
  return [...ids].map(
    ([id, lines]) =>
      `  ${printable(id, 80)}${lines.length > 0 ? `: line${lines.length === 1 ? '' : 's'} ${listLines(lines)}` : ''}`,
  );
}

const listLines = (lines: number[]) =>
  lines.length <= 10 ? lines.join(', ') : `${lines.slice(0, 10).join(', ')} and ${lines.length - 10} more`;

/**
 * What a terminal shows (unless --yes) before a send to unlisted ids: the ids named, with their lines, and
 * the question, whose default is no. A script is not asked: its --allow-unlisted-school or
 * allowUnlistedSchool column is the deliberate act.
 */
export function unlistedNotice(ids: UnlistedSends): { lines: string[]; question: string } {
  const n = ids.size;
  return {
    lines: [
      `${n === 1 ? 'This school id is' : `These ${n} school ids are`} not in the district's list of schools (allowed by --allow-unlisted-school or allowUnlistedSchool):`,
      ...unlistedLines(ids),
    ],
    question: `Send to ${n === 1 ? 'this unlisted school id' : `these ${n} unlisted school ids`}?`,
  };
}
