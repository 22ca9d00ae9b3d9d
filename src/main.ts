// Builds the program and is the one place that turns errors into exit codes.
import { Command, CommanderError, Option } from 'commander';
import { register as registerAttendance } from './commands/attendance/check.js';
import { register as registerCompletion } from './commands/completion.js';
import { register as registerDoctor } from './commands/doctor.js';
import { register as registerHelpTopics } from './commands/help-topics.js';
import { register as registerInvite } from './commands/invite/index.js';
import { register as registerLogin } from './commands/login.js';
import { register as registerLogout } from './commands/logout.js';
import { register as registerProfiles } from './commands/profiles.js';
import { register as registerRoster } from './commands/roster/index.js';
import { register as registerSandbox } from './commands/sandbox.js';
import { register as registerStatus } from './commands/status.js';
import { register as registerToken } from './commands/token.js';
import type { Context } from './context.js';
import { exitCodeFor, RosterError } from './errors.js';
import { VERSION } from './version.js';

export function createProgram(ctx: Context): Command {
  const program = new Command('roster')
    .description('Drive the Rostering and Enrollment API from a terminal or a script.')
    .version(VERSION, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .option('--profile <name>', 'district profile to use (env ROSTER_PROFILE; default "default")')
    .option('--base-url <url>', 'service base URL, including /v1 (env ROSTER_BASE_URL)')
    .addOption(
      new Option(
        '--client-auth <method>',
        'how credentials reach the token endpoint (env ROSTER_CLIENT_AUTH)',
      ).choices(['basic', 'post']),
    )
    .addOption(
      new Option('--oneroster <version>', 'OneRoster version (env ROSTER_ONEROSTER; default 1.1)').choices([
        '1.1',
        '1.2',
      ]),
    )
    .option('--timeout <seconds>', 'timeout of each HTTP request (env ROSTER_TIMEOUT; default 30)')
    .option('--debug', 'trace HTTP requests on stderr (secrets redacted)')
    .option('--no-color', 'no colour (also NO_COLOR)')
    .option('--no-input', 'never prompt; a missing value is an error (also CI)')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => ctx.io.stdout.write(text),
      writeErr: (text) => ctx.io.stderr.write(text),
      outputError: (text, write) => write(ctx.secrets.redact(text)),
    })
    .hook('preAction', (_program, action) => {
      const flags = action.optsWithGlobals() as { debug?: boolean; color?: boolean; input?: boolean };
      ctx.log.debugEnabled = Boolean(flags.debug);
      if (flags.color === false) ctx.color = false;
      if (flags.input === false) ctx.interactive = false;
    })
    .addHelpText(
      'after',
      '\nExamples:\n  roster login\n  roster attendance check\n  roster invite send --email parent@example.org --school-id sch-001\n  roster roster students --all --ndjson > students.ndjson\n  roster sandbox\n\nExit codes: 0 ok, 1 failure, 2 usage, 3 forbidden, 4 authentication, 5 partial, 130 interrupted.\n',
    );

  for (const register of [
    registerLogin,
    registerLogout,
    registerToken,
    registerStatus,
    registerAttendance,
    registerInvite,
    registerRoster,
    registerDoctor,
    registerProfiles,
    registerSandbox,
    registerCompletion,
    registerHelpTopics, // last: `help` lists after the commands it helps with
  ]) {
    register(program, ctx);
  }
  // Subcommands inherit the program's output and error behaviour.
  program.commands.forEach(function inherit(command) {
    command.exitOverride().configureOutput(program.configureOutput()).showSuggestionAfterError(true);
    command.commands.forEach(inherit);
  });
  return program;
}

export async function main(argv: string[], ctx: Context): Promise<number> {
  const program = createProgram(ctx);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    return report(ctx, error);
  }
}

function report(ctx: Context, error: unknown): number {
  if (error instanceof CommanderError) {
    if (error.exitCode === 0) return 0; // --help, --version
    // commander has already printed the message; every parse problem is a usage error.
    return 2;
  }
  if (error instanceof RosterError) {
    const message = /[.!?]$/.test(error.message) ? error.message : `${error.message}.`;
    ctx.log.info(`Error: ${message}${error.hint ? ` ${error.hint}` : ''}`);
    if (ctx.log.debugEnabled && error.stack) ctx.log.debug(error.stack);
    return exitCodeFor(error);
  }
  const message = error instanceof Error ? error.message : String(error);
  if (!ctx.log.debugEnabled) {
    ctx.log.info(`Error: unexpected failure: ${message}. Run again with --debug for details.`);
    return 1;
  }
  ctx.log.info(`Error: unexpected failure: ${message}.`);
  if (error instanceof Error && error.stack) ctx.log.debug(error.stack);
  return 1;
}
