// `roster invite …`: enrollment invitations (spec §4.5, §4.6).
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { examples } from '../common.js';
import { register as registerForget } from './forget.js';
import { register as registerHistory } from './history.js';
import { register as registerList } from './list.js';
import { register as registerPlan } from './plan.js';
import { register as registerSend } from './send.js';
import { register as registerSettle } from './settle.js';

export function register(program: Command, ctx: Context): void {
  const invite = program
    .command('invite')
    .summary('enrollment invitations: send (one or a CSV), list, plan campaigns, history, forget sent ones');
  examples(invite, [
    '# On a terminal',
    'roster invite send --email parent@example.org --school-id org-sch-1',
    'roster invite list --school-id org-sch-1',
    '# In a script',
    'roster invite send --file invites.csv --sent-by-user-id adm-001 --yes --json > report.json || exit $?',
    'roster invite list --all --ndjson | jq -r .email',
  ]);
  registerSend(invite, ctx);
  registerList(invite, ctx);
  registerPlan(invite, ctx);
  registerForget(invite, ctx);
  registerSettle(invite, ctx);
  registerHistory(invite, ctx);
}
