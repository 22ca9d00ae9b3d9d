// `roster roster …`: OneRoster rostering reads (spec §4.4, §9), one subcommand per collection of the
// table in oneroster/collections.ts.
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { COLLECTIONS } from '../../oneroster/collections.js';
import { examples } from '../common.js';
import { register as registerAudit } from './audit.js';
import { register as registerChanges } from './changes.js';
import { register as registerExport } from './export.js';
import { register as registerRead } from './read.js';

/**
 * The names of roster's top-level commands (main.ts's list): a collection of the same name keeps only its
 * `roster roster` form. A unit test holds it to the program's.
 */
export const TOP_LEVEL_NAMES: readonly string[] = [
  'login',
  'logout',
  'token',
  'status',
  'attendance',
  'invite',
  'roster',
  'doctor',
  'profiles',
  'config',
  'sandbox',
  'completion',
  'help',
];

export function register(program: Command, ctx: Context): void {
  const group = program
    .command('roster')
    .summary('OneRoster reads: students, schools, classes, … (1.1 and 1.2; also roster students, …)')
    .description(
      "OneRoster rostering reads. --oneroster (or ROSTER_ONEROSTER, or the profile) picks the version, which picks the path prefix (/ims/oneroster/v1p1 or v1p2, or the profile's onerosterPaths) and the version's own token endpoint. Each collection is also a command of its own: roster students is roster roster students.",
    );
  for (const collection of COLLECTIONS) registerRead(group, ctx, collection);
  // The top-level aliases: every collection no other top-level command is named after.
  for (const collection of COLLECTIONS) {
    if (!TOP_LEVEL_NAMES.includes(collection.name)) registerRead(program, ctx, collection, true);
  }
  registerChanges(group, ctx);
  registerExport(group, ctx);
  registerAudit(group, ctx);
  examples(group, [
    'roster roster students --all --csv > users.csv',
    'roster roster classes --school org-sch-1',
    'roster roster export --out ./export --zip',
    'roster roster changes --since last --ndjson > changes.ndjson',
    'roster roster audit --html audit.html',
    'roster --oneroster 1.2 roster teachers --filter "familyName~\'son\'"',
  ]);
}
