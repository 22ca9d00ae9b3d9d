// The school question of a terminal run: the district's schools, filtered as the admin types (name,
// identifier or sourcedId), or the typed text itself; either way resolved like --school-id, and asked
// again when it names no one school.
import type { Context } from '../context.js';
import type { Prompter, SearchChoice } from '../prompter.js';
import { printable } from '../values.js';
import type { SchoolDirectory } from './directory.js';
import { comparable, isActive, refusal, type School } from './match.js';

export async function pickSchool(
  ctx: Context,
  prompter: Prompter,
  directory: SchoolDirectory,
): Promise<string> {
  for (;;) {
    const schools = (await directory.list())?.filter(isActive) ?? [];
    if (schools.length === 0) {
      return prompter.input('School id', { validate: (value) => value.trim() !== '' || 'Required' });
    }
    const sorted = [...schools].sort((a, b) => a.name.localeCompare(b.name));
    const picked = await prompter.search(
      'School (type to search by name, identifier or sourcedId)',
      (typed) => schoolChoices(sorted, typed),
    );
    const resolution = await directory.resolve(picked);
    if (resolution.kind === 'unchecked') return picked;
    if (resolution.kind === 'school') return resolution.school.sourcedId;
    ctx.log.info(`"${printable(picked.trim(), 80)}" ${refusal(resolution)}.`);
  }
}

/** The schools whose name, identifier or sourcedId holds the typed text, then the text itself. */
export function schoolChoices(schools: readonly School[], typed: string): SearchChoice<string>[] {
  const wanted = comparable(typed);
  const hits = schools.filter((s) =>
    [s.name, s.identifier, s.sourcedId].some((text) => comparable(text).includes(wanted)),
  );
  const choices = hits.map((s) => ({
    name: [s.name || '(no name)', s.identifier, s.sourcedId]
      .filter(Boolean)
      .map((text) => printable(text, 60))
      .join('  ·  '),
    value: s.sourcedId,
  }));
  if (wanted !== '')
    choices.push({ name: `Use "${printable(typed.trim(), 60)}" as typed`, value: typed.trim() });
  return choices;
}
