// `roster attendance check`: the attendance-daily go-live check (spec §4.7). Exit 0 when token
// authentication works, 3 when the district has not enabled the feature for this client, 4 when the
// credentials fail, 1 when the server or network does.
import type { Command } from 'commander';
import { type AttendanceStatus, attendanceStatus } from '../../api/attendance.js';
import type { Context } from '../../context.js';
import { printDone, printJson } from '../../output/render.js';
import { examples } from '../common.js';
import { withJsonVerdict } from '../verdict.js';

/** No options: the check is the same for every run. */
export type AttendanceCheckOptions = Record<string, never>;

export async function run(_options: AttendanceCheckOptions, ctx: Context): Promise<AttendanceStatus> {
  return attendanceStatus((await ctx.session()).api);
}

export function register(program: Command, ctx: Context): void {
  const attendance = program.command('attendance').summary('attendance-daily: go-live checks');
  const command = attendance
    .command('check')
    .summary('check that API token authentication works for attendance-daily')
    .option('--json', "print the server's answer as JSON")
    .action(async (options: { json?: boolean }) => {
      // With --json a failure prints {"success": false, …} too: what a script reads is never empty.
      const status = await withJsonVerdict(ctx, Boolean(options.json), () => run({}, ctx));
      if (options.json) return printJson(ctx, status);
      printDone(
        ctx,
        `Token authentication works for attendance-daily (client label: ${status.clientLabel}).`,
      );
    });
  examples(command, [
    '# On a terminal',
    'roster attendance check',
    '# In a script (exit 3: not enabled for this client, 4: credentials)',
    'roster attendance check --json | jq -r .clientLabel',
    '# --json prints {"success": false, "status": 403, …} when the check fails, with the same exit code',
    'set -o pipefail; roster attendance check --json | jq -r .success',
    'roster attendance check --profile east || echo "not ready for go-live"',
  ]);
  examples(attendance, [
    '# On a terminal',
    'roster attendance check',
    '# In a script',
    'roster attendance check --json > attendance.json || exit $?',
  ]);
}
