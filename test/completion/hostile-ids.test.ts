// Completion never runs text from a server. School ids come from a server (cached by an ordinary
// `invite send --school-id …`) and profile names from a config file roster may not have written; a shell
// re-reads what its completion offers (bash's `compgen -W` expands its word list at TAB time), so a name like
// `$(touch${IFS}pwned)` must never reach one as anything but refused data. Each installed shell (bash, zsh,
// fish; PowerShell through `roster __complete line`, what its script runs) completes in a folder of its own,
// which must still be empty afterwards, and ordinary ids must still complete.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { writeSchoolsCache } from '../../src/schools/cache.js';
import { cliEnv, ROSTER_BIN, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { demoEnv, useSandbox } from '../helpers/sandbox.js';

const has = (shell: string) => spawnSync(shell, ['-c', 'exit 0']).status === 0;
const SHELLS = ['bash', 'zsh', 'fish'].filter(has);
const ORDINARY = ['org-sch-1', 'ORG_1', '8bfa0493-ffd7-4d24-b7b7-2554267cc87c', 'org:east:2', '360001000004'];

/** Ways a shell could be made to run `touch p` (each leaves a file in the shell's working folder). */
// `$\u007bIFS}` is bash's $IFS in braces (a space without a space), escaped so it is not read as a template.
const INJECTIONS = [
  '$(touch$\u007bIFS}p)',
  '$(touch p)',
  '`touch p`',
  '"$(touch p)"',
  "';touch p;'",
  ';touch p;',
  '|touch p',
  '&touch p&',
  '\ntouch p\n',
  '<(touch p)',
  '>(touch p)',
  '>p',
  '$((x[$(touch p)]))',
  '(touch p)',
  '=(touch p)',
  '{$(touch,p)}',
  '$(New-Item p)',
  ';New-Item p',
  '@(New-Item p)',
];
const metachar = fc.constantFrom(...'$`"\'\\;|&<>(){}[]*?!~#=%^,@\t\n\r '.split(''), '$IFS', '$\u007bIFS}');
const hostileId = fc
  .tuple(
    fc.array(fc.oneof(metachar, fc.string({ unit: 'grapheme-ascii', maxLength: 4 })), { maxLength: 6 }),
    fc.constantFrom(...INJECTIONS),
    fc.array(fc.oneof(metachar, fc.string({ unit: 'grapheme-ascii', maxLength: 4 })), { maxLength: 6 }),
    fc.nat({ max: 10 }),
  )
  // Some very long: a shell must not choke on them either.
  .map(
    ([before, injection, after, long]) =>
      before.join('') + injection + after.join('') + 'x'.repeat(long * 500),
  );

const home = tempDir();
let env: NodeJS.ProcessEnv;
let scripts: Record<string, string> = {};

beforeAll(async () => {
  // `roster` on PATH, as after `npm install -g`.
  const bin = join(home, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'roster'), `#!/bin/sh\nexec "${process.execPath}" "${ROSTER_BIN}" "$@"\n`);
  chmodSync(join(bin, 'roster'), 0o755);
  env = cliEnv(home, { PATH: `${bin}:${process.env.PATH}` });
  scripts = {};
  for (const shell of [...SHELLS, 'powershell']) {
    const result = await runCli(['completion', shell], home);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    scripts[shell] = join(home, `roster.${shell}`);
    writeFileSync(scripts[shell] as string, result.stdout);
  }
});

/** A folder for the shell to run in: anything a completion ran would leave its `p` here. */
function workFolder(): string {
  const folder = join(home, 'work');
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder);
  return folder;
}
afterEach(() => rmSync(join(home, 'work'), { recursive: true, force: true }));

/** What SHELL offers for LINE (a trailing space: a new, empty word), run in `cwd` with `extra` environment. */
function complete(shell: string, line: string, cwd: string, extra: NodeJS.ProcessEnv = {}): string[] {
  const options = { env: { ...env, ...extra }, cwd, encoding: 'utf8' as const, maxBuffer: 64 * 1024 * 1024 };
  const lines = (out: string) => out.split('\n').filter(Boolean);
  const words = line.split(' ');
  if (shell === 'bash') {
    // Sourced and called as bash calls it at <TAB>.
    const script = `source "$1"; COMP_WORDS=("\${@:2}"); COMP_CWORD=$((\${#COMP_WORDS[@]} - 1)); _roster; printf '%s\\n' "\${COMPREPLY[@]}"`;
    return lines(execFileSync('bash', ['-c', script, 'bash', scripts.bash as string, ...words], options));
  }
  if (shell === 'zsh') {
    // The real compadd and _describe need a line editor; these print what they were given instead.
    const script = `autoload -U compinit; compinit -u; source "$2"
_describe() { print -rl -- \${(P)\${@[-1]}} }
compadd() { print -rl -- \${(P)\${@[-1]}} }
words=(\${(z)1}); [[ $1 == *' ' ]] && words+=(''); CURRENT=\${#words}; _roster`;
    return lines(execFileSync('zsh', ['-c', script, 'zsh', line, scripts.zsh as string], options)).map(
      (entry) => entry.replace(/(?<!\\):.*$/, '').replace(/\\:/g, ':'),
    );
  }
  if (shell === 'fish') {
    const script = `source $argv[1]; complete -C $argv[2]`;
    return lines(execFileSync('fish', ['-c', script, scripts.fish as string, line], options)).map(
      (entry) => entry.split('\t')[0] as string,
    );
  }
  // PowerShell (none installs here): what its script runs at <TAB>, whose lines it offers as they are.
  return lines(
    execFileSync(process.execPath, [ROSTER_BIN, '__complete', 'line'], {
      ...options,
      env: { ...options.env, ROSTER_COMPLETE_WORDS: words.slice(1).join('\n') },
    }),
  ).map((entry) => entry.split('\t')[0] as string);
}

async function cacheSchools(ids: readonly string[]): Promise<void> {
  await writeSchoolsCache(
    join(home, '.cache', 'roster'),
    { profile: 'east', baseUrl: 'https://e.example/v1', clientId: '', oneroster: '1.1' },
    {
      readAt: Date.now(),
      schools: ids.map((sourcedId, i) => ({
        sourcedId,
        name: `School ${i}`,
        identifier: String(i),
        status: 'active',
      })),
    },
  );
}

function saveProfiles(names: readonly string[]): void {
  mkdirSync(join(home, '.config', 'roster'), { recursive: true });
  const profiles = Object.fromEntries(names.map((name) => [name, { baseUrl: 'https://e.example/v1' }]));
  writeFileSync(join(home, '.config', 'roster', 'config.json'), JSON.stringify({ profiles }));
}

const SHELLS_AND_POWERSHELL = [...SHELLS, 'powershell'];

describe('completion offers server values as data, never as code', () => {
  it('runs in bash, zsh and fish where installed (bash at least)', () => {
    expect(SHELLS).toContain('bash');
  });

  it.each(SHELLS_AND_POWERSHELL)(
    '%s: no hostile school id runs or is offered; ordinary ids still complete',
    async (shell) => {
      saveProfiles(['east']);
      await fc.assert(
        fc.asyncProperty(fc.array(hostileId, { minLength: 1, maxLength: 6 }), async (hostile) => {
          await cacheSchools([...hostile, ...INJECTIONS, ...ORDINARY]);
          const cwd = workFolder();
          const offered = complete(shell, 'roster --profile east invite send --school-id ', cwd);
          expect(readdirSync(cwd)).toEqual([]);
          expect(offered.sort()).toEqual([...ORDINARY].sort());
          // A prefix: only ordinary ids, those it starts among them (zsh's stand-in for compadd does not
          // filter; fish also matches without regard to case).
          const narrowed = complete(shell, 'roster --profile east invite send --school-id org', cwd);
          expect(narrowed).toEqual(expect.arrayContaining(['org-sch-1', 'org:east:2']));
          expect(ORDINARY).toEqual(expect.arrayContaining(narrowed));
          expect(readdirSync(cwd)).toEqual([]);
        }),
        { numRuns: 12 },
      );
    },
    240_000,
  );

  it.each(SHELLS_AND_POWERSHELL)(
    '%s: a profile name planted in the config file runs nothing and is not offered',
    (shell) => {
      saveProfiles(['east', ...INJECTIONS, 'west']);
      const cwd = workFolder();
      expect(complete(shell, 'roster --profile ', cwd).sort()).toEqual(['east', 'west']);
      expect(readdirSync(cwd)).toEqual([]);
    },
  );
});

describe('a school list from a hostile server, cached by an ordinary send', () => {
  const fixture = useSandbox();

  it('bash (and each installed shell) runs none of it at TAB after --school-id', async () => {
    const ids = ['$(touch$\u007bIFS}pwned)', '`touch pwned`', '"$(touch pwned)"', 'org-sch-1'];
    fixture.sandbox.injectFault({
      match: (r) => r.path.endsWith('/schools'),
      status: 200,
      body: {
        orgs: ids.map((sourcedId, i) => ({
          sourcedId,
          name: `School ${i}`,
          identifier: `E${i}`,
          status: 'active',
          type: 'school',
        })),
      },
    });
    const sent = await fixture.roster([
      'invite',
      'send',
      '--email',
      'family@example.org',
      '--school-id',
      'org-sch-1',
      '--sent-by-user-id',
      'usr-42',
    ]);
    expect(sent.code).toBe(0);
    const schoolsCache = join(fixture.home, '.cache', 'roster', 'schools');
    expect(readdirSync(schoolsCache)).toHaveLength(1);
    // The shells run as that admin: the same HOME and environment (the demo client's settings).
    const sandboxEnv = cliEnv(fixture.home, {
      PATH: `${join(home, 'bin')}:${process.env.PATH}`,
      ...demoEnv(fixture.sandbox),
    });
    for (const shell of SHELLS_AND_POWERSHELL) {
      const cwd = workFolder();
      // The sandbox's own next page (offset 4) follows the hostile first one: those ids are ordinary.
      const offered = complete(shell, 'roster invite send --school-id ', cwd, sandboxEnv);
      expect(offered, shell).toEqual(['org-sch-1', 'org-sch-5', 'org-sch-6', 'org-sch-7']);
      expect(readdirSync(cwd), shell).toEqual([]);
    }
  }, 120_000);
});
