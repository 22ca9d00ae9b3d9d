// What the school question of a terminal run offers (commands/invite/school-question.ts asks it): the
// district's schools whose name, identifier or sourcedId holds the typed text, and the text itself.
import { printable } from '../values.js';
import { comparable, type School } from './match.js';

/** A choice of the question: what the list shows, and the value picked. */
export interface SchoolChoice {
  name: string;
  value: string;
}

/** The schools whose name, identifier or sourcedId holds the typed text, then the text itself. */
export function schoolChoices(schools: readonly School[], typed: string): SchoolChoice[] {
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
