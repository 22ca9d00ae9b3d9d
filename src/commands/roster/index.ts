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

export function register(program: Command, ctx: Context): void {
  const group = program
    .command('roster')
    .summary('OneRoster reads: students, schools, classes, … (1.1 and 1.2)')
    .description(
      "OneRoster rostering reads. --oneroster (or ROSTER_ONEROSTER, or the profile) picks the version, which picks the path prefix (/ims/oneroster/v1p1 or v1p2, or the profile's onerosterPaths) and the version's own token endpoint.",
    );
  for (const collection of COLLECTIONS) registerRead(group, ctx, collection);
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
