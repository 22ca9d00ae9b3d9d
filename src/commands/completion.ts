// `roster completion bash|zsh|fish`: prints a completion script generated from this very program, so
// it knows every command and flag of this version. The hidden `roster __complete profiles|schools` is what
// the scripts call at TAB time for profile names (reading the config the way roster does: XDG, platform)
// and for school ids (from the schools cache of `invite send`, never the network).
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { COLLECTIONS } from '../oneroster/collections.js';
import { examples } from './common.js';
import { HELP_TOPICS } from './help-topics.js';
import { profileNames } from './profiles.js';

const SHELLS = ['bash', 'zsh', 'fish'] as const;
type Shell = (typeof SHELLS)[number];

export async function completionScript(program: Command, shell: Shell): Promise<string> {
  const { describeProgram } = await import('../completion/model.js');
  const keys = (await import('./config-keys.js')).PROFILE_KEYS.map((k) => k.name);
  const topLevel = program
    .createHelp()
    .visibleCommands(program)
    .map((c) => c.name());
  const spec = describeProgram(program, {
    help: [...Object.keys(HELP_TOPICS), ...topLevel],
    'roster changes': COLLECTIONS.map((c) => c.name),
    'config get': keys,
    'config set': keys,
    'config unset': keys,
  });
  if (shell === 'bash') return (await import('../completion/bash.js')).bashScript(spec);
  if (shell === 'zsh') return (await import('../completion/zsh.js')).zshScript(spec);
  return (await import('../completion/fish.js')).fishScript(spec);
}

export function register(program: Command, ctx: Context): void {
  const command = program
    .command('completion')
    .summary('print a shell completion script (bash, zsh or fish)')
    .description(
      'Print a script that completes roster commands, flags, profile names and flag values in your shell.',
    )
    .addArgument(program.createArgument('<shell>', 'bash, zsh or fish').choices(SHELLS))
    .action(async (shell: Shell) => {
      ctx.io.stdout.write(await completionScript(program, shell));
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
      const lines =
        kind === 'profiles'
          ? await profileNames(ctx)
          : kind === 'schools'
            ? await (await import('../completion/schools.js')).schoolCompletions(ctx, words)
            : [];
      if (lines.length > 0) ctx.io.stdout.write(`${lines.join('\n')}\n`);
    });
}
