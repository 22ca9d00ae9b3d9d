// The school question of a terminal run: the district's schools, filtered as the admin types (name,
// identifier or sourcedId; schools/picker.ts), or the typed text itself; either way resolved like
// --school-id, and asked again when it names no one school.
import type { Context } from '../../context.js';
import type { Prompter } from '../../prompter.js';
import type { SchoolDirectory } from '../../schools/directory.js';
import { isActive, refusal } from '../../schools/match.js';
import { schoolChoices } from '../../schools/picker.js';
import { printable } from '../../values.js';

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
