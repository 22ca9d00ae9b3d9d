// `roster completion bash|zsh|fish|powershell`: prints a completion script generated from this very program, so
// it knows every command and flag of this version. The hidden `roster __complete profiles|schools` is what
// the scripts call at TAB time for profile names (reading the config the way roster does: XDG, platform)
// and for school ids (from the schools cache of `invite send`, never the network); PowerShell's script asks
// `roster __complete line` what to offer for the whole line (src/completion/line.ts).
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { COLLECTIONS } from '../oneroster/collections.js';
import { examples } from './common.js';
import { HELP_TOPICS } from './help-topics.js';

const SHELLS = ['bash', 'zsh', 'fish', 'powershell'] as const;
type Shell = (typeof SHELLS)[number];

export interface CompletionOptions {
  shell: Shell;
  /** The program the script completes: this very one, whole. */
  program: Command;
}

/** `roster completion SHELL`: the script, generated from the program. */
export function run({ shell, program }: CompletionOptions, _ctx: Context): Promise<string> {
  return completionScript(program, shell);
}

export interface CompleteOptions {
  /** profiles, schools or line (anything else: nothing). */
  kind: string;
  /** The words typed so far (schools: the profile they name picks the cached list). */
  words: string[];
  program: Command;
}

/** `roster __complete KIND`: the lines to offer at TAB time; none on any problem. */
export async function runComplete(
  { kind, words, program }: CompleteOptions,
  ctx: Context,
): Promise<string[]> {
  if (kind === 'profiles') return (await import('../completion/profiles.js')).profileCompletions(ctx);
  if (kind === 'schools') return (await import('../completion/schools.js')).schoolCompletions(ctx, words);
  if (kind === 'line') return lineCompletions(program, ctx);
  return [];
}

export async function completionScript(program: Command, shell: Shell): Promise<string> {
  const spec = await programSpec(program);
  if (shell === 'bash') return (await import('../completion/bash.js')).bashScript(spec);
  if (shell === 'zsh') return (await import('../completion/zsh.js')).zshScript(spec);
  if (shell === 'powershell') return (await import('../completion/powershell.js')).powershellScript(spec);
  return (await import('../completion/fish.js')).fishScript(spec);
}

async function programSpec(program: Command) {
  const { describeProgram } = await import('../completion/model.js');
  const keys = (await import('./config-keys.js')).PROFILE_KEYS.map((k) => k.name);
  const topLevel = program
    .createHelp()
    .visibleCommands(program)
    .map((c) => c.name());
  return describeProgram(program, {
    help: [...Object.keys(HELP_TOPICS), ...topLevel],
    'roster changes': COLLECTIONS.map((c) => c.name),
    'config get': keys,
    'config set': keys,
    'config unset': keys,
  });
}

/** `roster __complete line`: what to offer for the words in ROSTER_COMPLETE_WORDS (the PowerShell script). */
async function lineCompletions(program: Command, ctx: Context): Promise<string[]> {
  const { completeLine } = await import('../completion/line.js');
  const { WORDS_VARIABLE } = await import('../completion/powershell.js');
  const words = (ctx.env[WORDS_VARIABLE] ?? '').split('\n');
  const current = words.pop() ?? '';
  const found = completeLine(await programSpec(program), words, current);
  switch (found.kind) {
    case 'words':
      return found.entries.map((e) => `${e.text}\t${e.description}`);
    case 'profiles': {
      const { profileCompletions } = await import('../completion/profiles.js');
      return (await profileCompletions(ctx)).filter((name) => name.startsWith(current));
    }
    case 'schools': {
      const { schoolCompletions } = await import('../completion/schools.js');
      return (await schoolCompletions(ctx, words)).filter((line) => line.startsWith(current));
    }
    case 'files':
    case 'dirs':
      return [`:${found.kind}`];
    default:
      return [];
  }
}

export function register(program: Command, ctx: Context): void {
  const command = program
    .command('completion')
    .summary('print a shell completion script (bash, zsh, fish or PowerShell)')
    .description(
      'Print a script that completes roster commands, flags, profile names and flag values in your shell.',
    )
    .addArgument(program.createArgument('<shell>', 'bash, zsh, fish or powershell').choices(SHELLS))
    .action(async (shell: Shell) => {
      ctx.io.stdout.write(await run({ shell, program }, ctx));
    })
    .addHelpText(
      'after',
      `
Install:
  bash  echo 'source <(roster completion bash)' >> ~/.bashrc
        (or: roster completion bash > ~/.local/share/bash-completion/completions/roster)
  zsh   echo 'source <(roster completion zsh)' >> ~/.zshrc        (after compinit)
        (or: roster completion zsh > "\${fpath[1]}/_roster")
  fish  roster completion fish > ~/.config/fish/completions/roster.fish
  powershell  roster completion powershell >> $PROFILE
        (this session only: roster completion powershell | Out-String | Invoke-Expression)
Then start a new shell. Regenerate after upgrading roster.`,
    );
  examples(command, [
    '# On a terminal (this shell only)',
    'source <(roster completion bash)',
    '# In a script (e.g. a provisioning script)',
    'roster completion fish > ~/.config/fish/completions/roster.fish',
  ]);

  // Hidden: what the completion scripts run at TAB time. Prints nothing on any problem. For schools, the
  // scripts pass the words typed so far (after --), so the profile they name picks the cached list.
  program
    .command('__complete', { hidden: true })
    .argument('<kind>')
    .argument('[words...]')
    .action(async (kind: string, words: string[]) => {
      const lines = await runComplete({ kind, words, program }, ctx);
      if (lines.length > 0) ctx.io.stdout.write(`${lines.join('\n')}\n`);
    });
}
