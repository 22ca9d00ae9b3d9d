// `roster doctor`: the go-live checklist of the active profile, one row per check. Read-only: it gets
// tokens and makes GET requests, and never sends an invitation. The checks load only when it runs.
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { CHECK_IDS } from '../doctor/ids.js';
import type { DoctorReport } from '../doctor/run.js';
import { type ErrorCode, RosterError, UsageError } from '../errors.js';
import { printJson } from '../output/render.js';
import { examples } from './common.js';
import { withJsonVerdict } from './verdict.js';

export interface DoctorOptions {
  json?: boolean;
  only?: string[];
  skip?: string[];
}

/** Parses "a,b" (repeatable) into check ids; `choices` lets shell completion offer them. */
function checkList(flag: string) {
  const parse = (value: string, previous: string[] = []): string[] => {
    const ids = value
      .split(',')
      .map((id) => id.trim())
      .filter(Boolean);
    const unknown = ids.filter((id) => !(CHECK_IDS as readonly string[]).includes(id));
    if (ids.length === 0 || unknown.length > 0) {
      throw new UsageError(
        `Invalid value "${value.slice(0, 60)}" for ${flag}: expected check ids separated by commas.`,
        `Checks: ${CHECK_IDS.join(', ')}.`,
      );
    }
    return [...previous, ...ids];
  };
  return Object.assign(parse, { choices: CHECK_IDS });
}

/** The checks selected by --only and --skip, run against the run's profile. */
export async function run(options: DoctorOptions, ctx: Context): Promise<DoctorReport> {
  const { runDoctor } = await import('../doctor/run.js');
  return runDoctor(ctx, { only: options.only, skip: options.skip });
}

const EXIT_ERROR: Record<number, ErrorCode> = { 1: 'failure', 3: 'forbidden', 4: 'auth' };

export function register(program: Command, ctx: Context): void {
  const command = program
    .command('doctor')
    .summary('run the go-live checklist for the active profile (read-only)')
    .description(
      'Check everything go-live depends on, one row each with a pass/fail mark, the time taken and the ' +
        "server's message. It gets tokens and reads; it never sends an invitation.",
    )
    .option('--json', 'print the report as JSON')
    .option(
      '--only <checks>',
      'run only these checks (comma-separated ids); each one named is required',
      checkList('--only'),
    )
    .option('--skip <checks>', 'do not run these checks (comma-separated ids)', checkList('--skip'))
    .action(async (options: DoctorOptions) => {
      const [report, { reportText, summary }] = await Promise.all([
        withJsonVerdict(ctx, Boolean(options.json), () => run(options, ctx)),
        import('../doctor/render.js'),
      ]);
      // `success` as attendance check and the audit print it: `jq -r .success` reads every verdict.
      if (options.json) printJson(ctx, { success: report.ok, ...report });
      else
        ctx.io.stdout.write(
          reportText(report, { tty: ctx.io.stdoutIsTTY, width: ctx.io.columns, color: ctx.color }),
        );
      if (report.exitCode === 0) {
        if (!options.json) ctx.log.info(summary(report));
        return;
      }
      throw new RosterError(EXIT_ERROR[report.exitCode] ?? 'failure', summary(report));
    })
    .addHelpText(
      'after',
      `
Checks (ids for --only / --skip, in run order):
  config          the profile is complete: base URL, client id, a client secret
  reachable       a connect probe of the base URL's host (at most --timeout, 10 s at most): for https a
                  valid, trusted certificate for that name; for http, only to loopback (the sandbox)
  token-oauth     /oauth/token accepts the credentials with the configured --client-auth
  token-v1p1      /ims/oneroster/v1p1/token accepts them (also used for invitations, §4.5)
  token-v1p2      /ims/oneroster/v1p2/token accepts them
  other-auth      whether the other client-auth method works too (informational: not required)
  clock           this clock is within 60 s of the server's Date header (token lifetimes depend on it)
  attendance      GET /attendance/status answers success (§4.7)
  invitations     GET /enrollment/invitations?perPage=1 answers, with a token from v1p1
  oneroster-1.1   GET …/v1p1/students?limit=1, with a token from v1p1
  oneroster-1.2   GET …/v1p2/students?limit=1, with a token from v1p2
  audit           the district's OneRoster data (the --oneroster version) passes roster roster audit's
                  error checks (duplicate-sourcedid, missing-reference, org-cycle, session-dates): it reads
                  the whole district (orgs, sessions, courses, classes, users, enrollments), each read
                  stopped at --max-records; --skip audit leaves it out
When the base URL is not reachable, the checks after it are skipped with that reason.

Exit status: 0 when every required check passed; otherwise 3 when every failure was a 403 (not
permitted, e.g. attendance-daily not enabled), 4 when every failure was about credentials, else 1.`,
    );
  examples(command, [
    '# On a terminal',
    'roster doctor',
    'roster doctor --profile east --skip oneroster-1.2',
    '# In a script',
    'roster doctor --json > go-live.json || exit $?',
    'roster doctor --json | jq -r \'.checks[] | select(.status == "fail") | "\\(.id): \\(.message)"\'',
    'roster doctor --only token-oauth,attendance --no-input',
    'roster doctor --skip audit   # quick: do not read the whole district',
  ]);
}
