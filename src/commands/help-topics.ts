// `roster help [command…|topic]`: commander's help command, plus topics that belong to no command
// (exit codes, environment variables). Replaces commander's implicit `help` at the top level only.
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { examples } from './common.js';

const EXIT_CODES = `Exit codes

  0    success (an empty list is success)
  1    failure: server error, network error, unexpected response
  2    usage or invalid input: nothing was sent
  3    forbidden: the API answered 403
  4    not logged in or authentication failed: no base URL or credentials, a stored secret that
       cannot be reached (a keychain out of reach, as over SSH), an invalid client, or a token the
       API keeps rejecting; the same code for every command
  5    partial: a bulk run finished with some rows failed or in doubt, or an invitation is in doubt
  130  interrupted (Ctrl-C, SIGTERM or SIGHUP), after saving what must be saved; or cancelled at a
       question (Ctrl-C or Esc at any; no to sending, forgetting, an unlisted school or replacing
       a login): "Cancelled; nothing was sent." (or saved)

Per command
  roster attendance check   3 when attendance-daily is not enabled for this client, 4 when the
                            credentials fail
  roster doctor             0 when every required check passed; 3 when every failed check was a
                            403, 4 when every failed check was about credentials, 1 otherwise
  roster invite send        5 when a CSV run finished with some rows failed or in doubt (see its
                            report), or one invitation is in doubt (check with roster invite list)
  roster login              4 when no keychain can be reached (a script without --insecure-storage,
                            or the file declined on a terminal)
  roster roster audit       1 when a finding is at or above --fail-on (default error), as doctor
                            exits 1 when a check fails; 0 when none is (warnings alone: 0)
  roster status             4 when the profile has no credentials or its secret cannot be reached

In a script
  roster doctor --json > report.json
  case $? in 0) echo ready ;; 3) echo "not permitted" ;; 4) echo "check credentials" ;; *) echo failed ;; esac
`;

const ENVIRONMENT = `Environment

Settings (a flag wins over its variable; a variable wins over the saved profile)
  ROSTER_PROFILE         profile to use (--profile); else the one \`roster profiles use\` chose, else "default"
  ROSTER_BASE_URL        service base URL including /v1 (--base-url); https://, or http:// to loopback only
  ROSTER_CLIENT_ID       client id; with ROSTER_CLIENT_SECRET, the credentials for CI and scripts:
  ROSTER_CLIENT_SECRET   used instead of the saved profile's, nothing written, no keychain needed
  ROSTER_TOKEN           a ready access token, sent as is (no token request; cannot be refreshed)
  ROSTER_CLIENT_AUTH     basic or post: how credentials reach the token endpoint (--client-auth)
  ROSTER_ONEROSTER       1.1 or 1.2 (--oneroster)
  ROSTER_SCOPE           scope of general and invitation tokens (login --scope; profile scope)
  ROSTER_ONEROSTER_SCOPE scope of OneRoster tokens (login --oneroster-scope; profile onerosterScope)
  ROSTER_TIMEOUT         seconds per HTTP request, default 30 (--timeout)
  ROSTER_MAX_RESPONSE_SIZE
                         largest HTTP answer read, as sent and unpacked: default 64M, 1K to 256M
                         (--max-response-size); a larger answer is an error, never retried
  ROSTER_MAX_RECORDS     most records one read takes, every page of one list: default 10000000
                         (--max-records); past it the read stops with an error, exit 1

Terminal
  NO_COLOR               any value: no colour (also --no-color; colour is off for pipes anyway)
  TERM=dumb              no colour
  CI                     any value: never prompt, as with --no-input

Network
  HTTPS_PROXY            proxy for https:// base URLs (lowercase https_proxy works too)
  HTTP_PROXY             proxy for http:// base URLs (loopback only, e.g. the sandbox)
  NO_PROXY               hosts that bypass the proxy: names, .domain suffixes, IPs, host:port, or *
  NODE_EXTRA_CA_CERTS    PEM file of extra certificate authorities to trust (a district or proxy CA)

Shell completion
  ROSTER_COMPLETE_WORDS  set by the PowerShell completion script for \`roster __complete line\`: the words
                         typed so far, one per line (not for you to set)

Files (Linux; macOS uses ~/Library unless the XDG variables are set; Windows %APPDATA% and %LOCALAPPDATA%)
  XDG_CONFIG_HOME        $XDG_CONFIG_HOME/roster/config.json: profiles, never a secret
                         (default ~/.config; credentials.json there only with login --insecure-storage)
  XDG_CACHE_HOME         $XDG_CACHE_HOME/roster/tokens: cached access tokens, 0600 (default ~/.cache)
  XDG_STATE_HOME         $XDG_STATE_HOME/roster: journals of bulk sends, for resuming (default ~/.local/state)
  HOME                   the base of the defaults above

The client secret itself is kept in the OS keychain (Secret Service on Linux, which needs a session
D-Bus; the login keychain on macOS; Windows Credential Manager). It is never read from a flag.

Examples
  On a terminal:  export ROSTER_PROFILE=east; roster doctor
  In a script:    ROSTER_BASE_URL=https://api.district.example/v1 ROSTER_CLIENT_ID=district-42 \\
                  ROSTER_CLIENT_SECRET="$SECRET" roster attendance check --json
`;

/** A topic's text, or how to write it from the program (the global options, as the program defines them). */
export const HELP_TOPICS: Record<string, string | ((program: Command) => string)> = {
  'exit-codes': EXIT_CODES,
  environment: ENVIRONMENT,
  'global-options': globalOptions,
};

/** Every global option with what it does: each command's help names them in a line and points here. */
function globalOptions(program: Command): string {
  const help = program.createHelp();
  const options = help.visibleOptions(program).filter((o) => o.long !== '--version' && o.long !== '--help');
  const width = Math.max(...options.map((o) => help.optionTerm(o).length));
  const items = options.map((o) =>
    help.formatItem(help.optionTerm(o), width, help.optionDescription(o), help),
  );
  return [
    'Global options',
    '',
    'Every command takes them, before or after its name (roster --profile east doctor, roster doctor',
    '--profile east). A flag wins over its environment variable, which wins over the saved profile.',
    '',
    ...items,
    '',
  ].join('\n');
}

export function register(program: Command, ctx: Context): void {
  program.helpCommand(false);
  const help = program
    .command('help')
    .argument(
      '[topic...]',
      `a command (e.g. "invite send") or a topic: ${Object.keys(HELP_TOPICS).join(', ')}`,
    )
    .summary(`show help for a command, or a topic: ${Object.keys(HELP_TOPICS).join(', ')}`)
    .action((words: string[]) => {
      const [first, ...rest] = words;
      const topic = first !== undefined && rest.length === 0 ? HELP_TOPICS[first] : undefined;
      if (topic) {
        ctx.io.stdout.write(typeof topic === 'string' ? topic : topic(program));
        return;
      }
      commandFor(program, words).outputHelp();
    });
  examples(help, [
    '# On a terminal',
    'roster help invite send',
    'roster help exit-codes',
    'roster help global-options',
    '# In a script',
    'roster help environment | grep ROSTER_',
  ]);
  program.addHelpText(
    'after',
    `Help topics:\n${Object.keys(HELP_TOPICS)
      .map((topic) => `  roster help ${topic}`)
      .join('\n')}\n`,
  );
}

/** The command a path of names leads to, as commander's own `help` would find it. */
function commandFor(program: Command, words: string[]): Command {
  let command = program;
  for (const word of words) {
    const next = command.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!next || word.startsWith('__')) {
      const choices = [...Object.keys(HELP_TOPICS), ...visibleNames(command)];
      throw new UsageError(
        `No help for "${words.join(' ').slice(0, 60)}".`,
        `Try one of: ${choices.join(', ')}.`,
      );
    }
    command = next;
  }
  return command;
}

function visibleNames(command: Command): string[] {
  return command
    .createHelp()
    .visibleCommands(command)
    .map((c) => c.name());
}
