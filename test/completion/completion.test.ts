// Shell completion, tested in the real shells: the script printed by the built CLI is sourced and its
// completion function called as the shell would at <TAB>. zsh and fish run when installed; PowerShell runs
// when installed (it is not on these machines): otherwise what its script runs at <TAB> is checked.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createProgram, loadCommands } from '../../src/main.js';
import { writeSchoolsCache } from '../../src/schools/cache.js';
import { cliEnv, ROSTER_BIN, runCli } from '../helpers/cli.js';
import { fakeContext, tempDir } from '../helpers/context.js';

const has = (shell: string) => spawnSync(shell, ['-c', 'exit 0']).status === 0;
const home = tempDir();
const scripts: Record<string, string> = {};
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  // `roster` on PATH, as after `npm install -g`, with two saved profiles for profile-name completion.
  const bin = join(home, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'roster'), `#!/bin/sh\nexec "${process.execPath}" "${ROSTER_BIN}" "$@"\n`);
  chmodSync(join(bin, 'roster'), 0o755);
  mkdirSync(join(home, '.config', 'roster'), { recursive: true });
  writeFileSync(
    join(home, '.config', 'roster', 'config.json'),
    JSON.stringify({ profiles: { east: { baseUrl: 'https://e.example/v1' }, west: {} } }),
  );
  env = cliEnv(home, { PATH: `${bin}:${process.env.PATH}` });
  // The schools list `invite send` cached for profile east (its base URL answers nothing: TAB never asks it).
  await writeSchoolsCache(
    join(home, '.cache', 'roster'),
    { profile: 'east', baseUrl: 'https://e.example/v1', clientId: '', oneroster: '1.1' },
    {
      readAt: Date.now() - 3 * 24 * 3600_000, // a stale list still completes: the run resolves afresh
      schools: [
        { sourcedId: 'org-east-1', name: 'Alder Elementary School', identifier: '1', status: 'active' },
        { sourcedId: 'org:east:2', name: 'Birch\tSchool', identifier: '2', status: 'active' },
        { sourcedId: 'org east 3', name: 'Spaces In Its Id', identifier: '3', status: 'active' },
        { sourcedId: 'org-east-4', name: 'Closed', identifier: '4', status: 'tobedeleted' },
      ],
    },
  );
  for (const shell of ['bash', 'zsh', 'fish', 'powershell']) {
    const result = await runCli(['completion', shell], home);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    scripts[shell] = join(home, `roster.${shell}`);
    writeFileSync(scripts[shell] as string, result.stdout);
  }
});

let commands: Awaited<ReturnType<typeof loadCommands>> = [];
beforeAll(async () => {
  commands = await loadCommands();
});
const program = () => createProgram(fakeContext().ctx, commands);
/** What bash offers for a command line; a trailing space means "a new, empty word". */
function bash(line: string): string[] {
  const words = line.split(' ');
  const script = `source "$1"; COMP_WORDS=("\${@:2}"); COMP_CWORD=$((\${#COMP_WORDS[@]} - 1)); _roster; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const out = execFileSync('bash', ['-c', script, 'bash', scripts.bash as string, ...words], {
    env,
    encoding: 'utf8',
  });
  return out.split('\n').filter(Boolean);
}

describe('bash completion', () => {
  it('is valid bash', () => {
    expect(spawnSync('bash', ['-n', scripts.bash as string]).status).toBe(0);
  });

  it('completes `roster inv<TAB>` to invite', () => {
    expect(bash('roster inv')).toEqual(['invite']);
  });

  it('completes `roster invite s<TAB>` to send and settle, `sen<TAB>` to send', () => {
    expect(bash('roster invite s')).toEqual(['send', 'settle']);
    expect(bash('roster invite sen')).toEqual(['send']);
  });

  it('completes every top-level command of the program, and nothing hidden', () => {
    const visible = program()
      .commands.filter((c) => !c.name().startsWith('__'))
      .map((c) => c.name());
    expect(bash('roster ').sort()).toEqual(visible.sort());
    expect(bash('roster __')).toEqual([]);
  });

  it('completes the OneRoster collections at the top level, then their flags and school ids', () => {
    expect(bash('roster stu')).toEqual(['students']);
    expect(bash('roster academic')).toEqual(['academic-sessions']);
    expect(bash('roster students --al')).toEqual(['--all']);
    expect(bash('roster --profile east classes --school org')).toEqual(['org-east-1', 'org:east:2']);
  });

  it('completes flags, global ones included, after a subcommand', () => {
    expect(bash('roster doctor --o')).toEqual(['--only', '--oneroster']);
    expect(bash('roster attendance check --pro')).toEqual(['--profile']);
  });

  it('completes enum values, with a space or an = before them', () => {
    expect(bash('roster --client-auth ')).toEqual(['basic', 'post']);
    expect(bash('roster attendance check --oneroster ')).toEqual(['1.1', '1.2']);
    expect(bash('roster --client-auth = p')).toEqual(['post']);
    expect(bash('roster completion ')).toEqual(['bash', 'zsh', 'fish', 'powershell']);
    expect(bash('roster doctor --skip oneroster')).toEqual(['oneroster-1.1', 'oneroster-1.2']);
    expect(bash('roster help e')).toEqual(['exit-codes', 'environment']);
  });

  it('completes the collections of roster roster changes, one after another', () => {
    expect(bash('roster roster changes st')).toEqual(['students']);
    expect(bash('roster roster changes users enr')).toEqual(['enrollments']);
  });

  it('completes roster config: its subcommands, then the config keys (never a secret)', () => {
    expect(bash('roster config ').sort()).toEqual(['get', 'list', 'set', 'unset']);
    expect(bash('roster config set scop')).toEqual([
      'scope',
      'scopes.invitations',
      'scopes.oneroster-1.1',
      'scopes.oneroster-1.2',
    ]);
    expect(bash('roster config get tokenEndpoints.o')).toEqual([
      'tokenEndpoints.oneroster-1.1',
      'tokenEndpoints.oneroster-1.2',
    ]);
    expect(bash('roster config unset client')).toEqual(['clientAuth']);
  });

  it('completes profile names from the config file, at TAB time', () => {
    expect(bash('roster --profile ')).toEqual(['east', 'west']);
    expect(bash('roster profiles use e')).toEqual(['east']);
  });

  it('completes school ids from the schools cache of the profile named on the line, at TAB time', () => {
    expect(bash('roster --profile east invite send --school-id ')).toEqual(['org-east-1', 'org:east:2']);
    expect(bash('roster invite send --profile=east --school-id org-e')).toEqual(['org-east-1']);
    expect(bash('roster --profile east roster students --school org')).toEqual(['org-east-1', 'org:east:2']);
    // No list cached for these: nothing offered (and no request made to find one).
    expect(bash('roster invite send --school-id ')).toEqual([]);
    expect(bash('roster --profile west invite send --school-id ')).toEqual([]);
  });

  it('skips flag values when finding the command path', () => {
    expect(bash('roster --profile east --timeout 5 profiles ')).toEqual(['use', 'remove']);
    expect(bash('roster --profile=east attendance ')).toEqual(['check']);
  });
});

describe.runIf(has('fish'))('fish completion', () => {
  const fish = (line: string) =>
    execFileSync('fish', ['-c', `source ${scripts.fish}; complete -C '${line}'`], { env, encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map((entry) => entry.split('\t')[0]);

  it('is valid fish and completes commands, subcommands, values and profiles', () => {
    expect(spawnSync('fish', ['-n', scripts.fish as string]).status).toBe(0);
    expect(fish('roster inv')).toEqual(['invite']);
    expect(fish('roster stu')).toEqual(['students']);
    expect(fish('roster teachers --of')).toEqual(['--offset']);
    expect(fish('roster attendance ')).toEqual(['check']);
    expect(fish('roster --client-auth ')).toEqual(['basic', 'post']);
    expect(fish('roster --profile ')).toEqual(['east', 'west']);
    expect(fish('roster doctor --sk')).toEqual(['--skip']);
    expect(fish('roster --profile east invite send --school-id ').sort()).toEqual([
      'org-east-1',
      'org:east:2',
    ]);
    expect(fish('roster invite send --school-id ')).toEqual([]);
  });
});

describe.runIf(has('zsh'))('zsh completion', () => {
  // The completion builtins are stubbed to print what they were given: the candidates, unfiltered.
  const zsh = (line: string) => {
    const script = `autoload -U compinit; compinit -u; source ${scripts.zsh}
_describe() { print -rl -- \${(P)\${@[-1]}} }
compadd() { print -rl -- \${(P)\${@[-1]}} }
words=(\${(z)1}); [[ $1 == *' ' ]] && words+=(''); CURRENT=\${#words}; _roster`;
    return execFileSync('zsh', ['-c', script, 'zsh', line], { env, encoding: 'utf8' })
      .split('\n')
      .filter(Boolean);
  };

  it('is valid zsh, registers _roster, and offers commands with descriptions, values and profiles', () => {
    expect(spawnSync('zsh', ['-n', scripts.zsh as string]).status).toBe(0);
    const registered = execFileSync(
      'zsh',
      ['-c', `autoload -U compinit; compinit -u; source ${scripts.zsh}; print $_comps[roster]`],
      { env, encoding: 'utf8' },
    );
    expect(registered).toBe('_roster\n');
    expect(zsh('roster inv')).toContain(
      'invite:enrollment invitations: send (one or a CSV), list, plan campaigns, history, forget sent ones',
    );
    expect(zsh('roster stu')).toContain(
      'students:students (users with the student role) (alias of roster roster students)',
    );
    expect(zsh('roster attendance ')).toEqual([
      'check:check that API token authentication works for attendance-daily',
    ]);
    expect(zsh('roster --client-auth ')).toEqual(['basic', 'post']);
    expect(zsh('roster invite --profile ')).toEqual(['east', 'west']);
    // School ids with their names as descriptions, a colon in an id escaped for _describe.
    expect(zsh('roster --profile east invite send --school-id ')).toEqual([
      'org-east-1:Alder Elementary School',
      'org\\:east\\:2:Birch School',
    ]);
    expect(zsh('roster invite send --school-id ')).toEqual([]);
  });
});

describe('PowerShell completion', () => {
  /**
   * What the script's completer offers for a command line: it runs `roster __complete line` with the words
   * in ROSTER_COMPLETE_WORDS (the last one being completed) and offers each line's first field.
   */
  const powershell = (line: string): string[] => {
    const words = line.split(' ').slice(1);
    return execFileSync(process.execPath, [ROSTER_BIN, '__complete', 'line'], {
      env: { ...env, ROSTER_COMPLETE_WORDS: words.join('\n') },
      encoding: 'utf8',
    })
      .split('\n')
      .filter(Boolean)
      .map((entry) => entry.split('\t')[0] as string);
  };

  it('registers a native completer for roster that asks roster __complete line, words in the environment', () => {
    const script = readFileSync(scripts.powershell as string, 'utf8');
    expect(script).toContain('Register-ArgumentCompleter -Native -CommandName roster -ScriptBlock {');
    expect(script).toContain('param($wordToComplete, $commandAst, $cursorPosition)');
    expect(script).toContain('$env:ROSTER_COMPLETE_WORDS = (@($before) + @($wordToComplete)) -join "`n"');
    expect(script).toContain('$lines = @(& roster __complete line 2>$null)');
    expect(script).toContain('Remove-Item Env:ROSTER_COMPLETE_WORDS');
    expect(script).toContain(
      '[System.Management.Automation.CompletionResult]::new($insert, $text, $type, $tip)',
    );
    expect(script).toContain(
      `$insert = if ($text -cmatch '^[-A-Za-z0-9._:=/]+$') { $text } else { "'" + ($text -replace "'", "''") + "'" }`,
    );
    expect(script.split('{').length).toBe(script.split('}').length);
    expect(script.split('(').length).toBe(script.split(')').length);
  });

  it('offers what bash offers, from the same model: commands, subcommands, flags, values, profiles, schools', () => {
    for (const line of [
      'roster ',
      'roster inv',
      'roster invite s',
      'roster invite send --fi',
      'roster attendance ',
      'roster completion ',
      'roster --client-auth ',
      'roster --profile ',
      'roster profiles use e',
      'roster --profile east invite send --school-id ',
      'roster invite send --profile=east --school-id org-e',
      'roster invite send --school-id ',
      'roster --profile east --timeout 5 profiles ',
      'roster --profile=east attendance ',
      'roster roster changes students ',
      'roster doctor --sk',
    ]) {
      expect(powershell(line), line).toEqual(bash(line));
    }
  }, 120_000);

  it('completes a --flag=value word whole, and leaves files and folders to PowerShell', () => {
    expect(powershell('roster --client-auth=')).toEqual(['--client-auth=basic', '--client-auth=post']);
    expect(powershell('roster invite send --file ')).toEqual([':files']);
    expect(powershell('roster roster export --out ')).toEqual([':dirs']);
  });

  it.runIf(has('pwsh'))('runs in PowerShell', () => {
    const complete = (line: string) =>
      execFileSync(
        'pwsh',
        [
          '-NoProfile',
          '-Command',
          `. '${scripts.powershell}'; (TabExpansion2 -inputScript '${line}' -cursorColumn ${line.length}).CompletionMatches.CompletionText`,
        ],
        { env, encoding: 'utf8' },
      )
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean);
    expect(complete('roster inv')).toEqual(['invite']);
    expect(complete('roster --profile ')).toEqual(['east', 'west']);
    expect(complete('roster completion p')).toEqual(['powershell']);
  });
});
