// Builds the program and is the one place that turns errors into exit codes.
import { readFileSync } from 'node:fs';
import { Command, CommanderError, Help, Option } from 'commander';
import { type Context, lazyRunSession } from './context.js';
import { CancelledError, exitCodeFor, RosterError } from './errors.js';
import { displayLines } from './output/safe-text.js';
import type { GlobalFlags } from './settings.js';
import { versionLine } from './version.js';

type Register = (program: Command, ctx: Context) => void;

/** The OneRoster collections no top-level command is named after (a test holds it to the table). */
export const COLLECTION_ALIASES = [
  'students',
  'teachers',
  'users',
  'schools',
  'orgs',
  'classes',
  'courses',
  'enrollments',
  'academic-sessions',
  'terms',
  'grading-periods',
  'demographics',
];

/**
 * The top-level commands in the order help lists them (`help` last: it lists after the commands it helps
 * with). Each module loads only when needed: a run of one command loads that command's module and
 * nothing of the others (start-up time; test/bench/startup.js).
 */
const COMMANDS: Record<string, () => Promise<{ register: Register }>> = {
  login: () => import('./commands/login.js'),
  logout: () => import('./commands/logout.js'),
  token: () => import('./commands/token.js'),
  status: () => import('./commands/status.js'),
  attendance: () => import('./commands/attendance/check.js'),
  invite: () => import('./commands/invite/index.js'),
  roster: () => import('./commands/roster/index.js'),
  doctor: () => import('./commands/doctor.js'),
  profiles: () => import('./commands/profiles.js'),
  config: () => import('./commands/config.js'),
  sandbox: () => import('./commands/sandbox.js'),
  completion: () => import('./commands/completion.js'),
  help: () => import('./commands/help-topics.js'),
};
/** The top-level commands' names. */
export const TOP_LEVEL_COMMANDS: readonly string[] = Object.keys(COMMANDS);
/** Commands that need the whole program: help lists it, completion describes it. */
const WHOLE_PROGRAM = new Set(['help', 'completion']);
/**
 * Registered by another command's module: completion's helper, and the OneRoster collections' top-level
 * aliases (`roster students` is `roster roster students`: commands/roster/index.ts).
 */
const HIDDEN: Record<string, string> = {
  __complete: 'completion',
  ...Object.fromEntries(COLLECTION_ALIASES.map((name) => [name, 'roster'])),
};

/** The register functions of the named top-level commands (all of them by default), in help order. */
export async function loadCommands(names: readonly string[] = Object.keys(COMMANDS)): Promise<Register[]> {
  const modules = await Promise.all(
    names.map((name) => (Object.hasOwn(COMMANDS, name) ? COMMANDS[name]?.() : undefined)),
  );
  return modules.flatMap((module) => (module ? [module.register] : []));
}

/** The program with its global options and the given commands. */
export function createProgram(ctx: Context, commands: readonly Register[]): Command {
  return addCommands(baseProgram(ctx), ctx, commands);
}

/**
 * How every command's help reads (commands copy it from the program as they are made): a command's own
 * options, then the global ones once, by name, with where to read them (`roster help global-options`):
 * listed in full under every command they were 13 options and half of `invite send --help`. A command
 * with no long description shows its summary, so none has a help without one.
 */
const HELP: Partial<Help> = {
  formatHelp(this: Help, command, helper) {
    const text = Help.prototype.formatHelp.call(this, command, helper);
    if (!command.parent) return text;
    return `${text}\n${helper.boxWrap(globalOptionsLine(command), helper.helpWidth ?? 80)}\n`;
  },
  commandDescription: (command) => command.description() || command.summary(),
};

/** The global options by name, in a line or two under a command's own. */
function globalOptionsLine(command: Command): string {
  let root = command;
  while (root.parent) root = root.parent;
  const names = root.options
    .filter((o) => !o.hidden && o.long !== '--version' && o.long !== '--help')
    .map((o) => o.long ?? o.flags);
  return `Global options: ${names.join(', ')} (roster help global-options says what each does).`;
}

function baseProgram(ctx: Context): Command {
  return new Command('roster')
    .description('Drive the Rostering and Enrollment API from a terminal or a script.')
    .version(
      versionLine(),
      '-V, --version',
      'print the version (with --json: the build, Node version and platform)',
    )
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
    .option(
      '--max-response-size <size>',
      'largest HTTP answer read, e.g. 256M (env ROSTER_MAX_RESPONSE_SIZE; default 64M)',
    )
    .option(
      '--max-records <n>',
      'most records one read takes, every page of one list (env ROSTER_MAX_RECORDS; default 10000000)',
    )
    .option('--debug', 'trace HTTP requests on stderr (secrets redacted)')
    .option('--no-color', 'no colour (also NO_COLOR)')
    .option('--no-input', 'never prompt; a missing value is an error (also CI)')
    .configureHelp(HELP)
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => ctx.io.stdout.write(text),
      writeErr: (text) => ctx.io.stderr.write(text),
      outputError: (text, write) => write(displayLines(ctx.secrets.redact(text))),
    })
    .hook('preAction', (_program, action) => {
      const flags = action.optsWithGlobals() as GlobalFlags & { color?: boolean; input?: boolean };
      ctx.log.debugEnabled = Boolean(flags.debug);
      if (flags.color === false) ctx.color = false;
      if (flags.input === false) ctx.interactive = false;
      // The command's settings and Session come from its own flags, made when it first asks.
      Object.assign(ctx, lazyRunSession(ctx, flags));
    })
    .addHelpText(
      'after',
      '\nExamples:\n  roster login\n  roster attendance check\n  roster invite send --email parent@example.org --school-id org-sch-1\n  roster roster students --all --ndjson > students.ndjson\n  roster sandbox\n\nExit codes: 0 ok, 1 failure, 2 usage, 3 forbidden, 4 not logged in or authentication failed, 5 in doubt or partial, 130 interrupted or cancelled (Ctrl-C, SIGTERM, SIGHUP).\n',
    );
}

function addCommands(program: Command, ctx: Context, commands: readonly Register[]): Command {
  for (const register of commands) register(program, ctx);
  // Subcommands inherit the program's output and error behaviour.
  program.commands.forEach(function inherit(command) {
    command.exitOverride().configureOutput(program.configureOutput()).showSuggestionAfterError(true);
    command.commands.forEach(inherit);
  });
  return program;
}

/**
 * The top-level commands a command line needs: only the command it runs, or every command when the
 * program itself must be whole (its help, a usage error that suggests names, help, completion). Global
 * options are skipped as the program defines them (with their values), so the guess is commander's own.
 */
export function commandsFor(program: Command, argv: readonly string[]): string[] {
  const all = Object.keys(COMMANDS);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') return all;
    if (!arg.startsWith('-') || arg === '-') {
      const name = commandNamedBy(arg, argv[i + 1]);
      return name === undefined ? all : [name];
    }
    const option = globalOption(program, arg);
    if (option === 'whole program') return all;
    if (option === 'value next') i++;
  }
  return all;
}

/** The top-level command the first word that is no option names, or undefined: it needs the whole program. */
function commandNamedBy(word: string, next: string | undefined): string | undefined {
  // `__complete line` (the PowerShell script at TAB time) completes against the whole program.
  if (word === '__complete' && next === 'line') return undefined;
  const name = Object.hasOwn(HIDDEN, word) ? (HIDDEN[word] as string) : word;
  return Object.hasOwn(COMMANDS, name) && !WHOLE_PROGRAM.has(word) ? name : undefined;
}

/**
 * What a global option before the command means to the guess: commander answers with the whole program
 * (--help, --version, an unknown option), or the option's value is the next word, or it stands alone.
 */
function globalOption(program: Command, arg: string): 'whole program' | 'value next' | 'alone' {
  const flag = arg.split('=', 1)[0] as string;
  const option = program.options.find((o) => o.long === flag || o.short === flag);
  if (!option || flag === '--help' || flag === '-h' || flag === '--version' || flag === '-V') {
    return 'whole program';
  }
  return (option.required || option.optional) && !arg.includes('=') ? 'value next' : 'alone';
}

/** How `roster --help` lists one top-level command. */
export interface CommandListing {
  name: string;
  term: string;
  description: string;
}

/** The commands of a whole program as its help lists them (the build writes it to dist/commands.json). */
export function commandListing(program: Command): CommandListing[] {
  const help = program.createHelp();
  return help.visibleCommands(program).map((command) => ({
    name: command.name(),
    term: help.subcommandTerm(command),
    description: help.subcommandDescription(command),
  }));
}

/** The standalone build has no file beside it: .ci/release.mjs defines the listing in the bundle instead. */
declare const __ROSTER_COMMANDS__: unknown;

/**
 * The listing the build wrote beside the bundle, for a command line that only shows the top-level help
 * (`roster`, `roster --help`): printed from it, no command module loads (a third of the start-up).
 * Anything else, or no listing (running from src/), builds the program as usual.
 */
function builtListing(argv: readonly string[]): CommandListing[] | undefined {
  if (argv.length > 1 || (argv.length === 1 && argv[0] !== '--help' && argv[0] !== '-h')) return undefined;
  try {
    const listing: unknown =
      typeof __ROSTER_COMMANDS__ === 'undefined'
        ? JSON.parse(readFileSync(new URL('./commands.json', import.meta.url), 'utf8'))
        : __ROSTER_COMMANDS__;
    const valid =
      Array.isArray(listing) &&
      listing.length > 0 &&
      listing.every((c) => ['name', 'term', 'description'].every((k) => typeof c?.[k] === 'string'));
    return valid ? (listing as CommandListing[]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The program with stand-ins for its commands, listed as the whole program would list them. `help` is
 * the real one (a few hundred bytes): it also adds the help topics to the program's own help.
 */
async function listedProgram(ctx: Context, listing: readonly CommandListing[]): Promise<Command> {
  const program = baseProgram(ctx);
  const [registerHelp] = await loadCommands(['help']);
  const terms = new Map(listing.map((c) => [c.name, c.term]));
  for (const { name, description } of listing) {
    if (name === 'help' && registerHelp) registerHelp(program, ctx);
    else program.command(name).description(description);
  }
  return program.configureHelp({
    ...HELP,
    subcommandTerm: (command) => terms.get(command.name()) ?? command.name(),
  });
}

export async function main(argv: string[], ctx: Context): Promise<number> {
  let program: Command;
  try {
    const listing = builtListing(argv);
    if (listing) program = await listedProgram(ctx, listing);
    else {
      program = baseProgram(ctx);
      addCommands(program, ctx, await loadCommands(commandsFor(program, argv)));
    }
  } catch (error) {
    return report(ctx, error);
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    await hintCollection(ctx, error);
    return report(ctx, error);
  }
}

/**
 * An unknown command that names a OneRoster collection (`student`, `academicSessions`, `roster invite
 * students`) is followed by what to type. Only roster's own names are printed, never the word typed.
 */
async function hintCollection(ctx: Context, error: unknown): Promise<void> {
  if (!(error instanceof CommanderError) || error.code !== 'commander.unknownCommand') return;
  const word = /unknown command '(.*)'/s.exec(error.message)?.[1];
  if (word === undefined) return;
  const { collectionNamedBy } = await import('./oneroster/collections.js');
  const collection = collectionNamedBy(word);
  if (!collection) return;
  const { name } = collection;
  const type = COLLECTION_ALIASES.includes(name)
    ? `roster ${name} (or roster roster ${name})`
    : `roster roster ${name}`;
  ctx.io.stderr.write(`That is the OneRoster collection ${name}: type ${type}.\n`);
}

function report(ctx: Context, error: unknown): number {
  if (error instanceof CommanderError) {
    if (error.exitCode === 0) return 0; // --help, --version
    // commander has already printed the message; every parse problem is a usage error.
    return 2;
  }
  if (error instanceof RosterError) {
    const message = /[.!?]$/.test(error.message) ? error.message : `${error.message}.`;
    // A cancel is the user's choice: said plainly, not as an error.
    const prefix = error instanceof CancelledError ? '' : 'Error: ';
    ctx.log.info(`${prefix}${message}${error.hint ? ` ${error.hint}` : ''}`);
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
