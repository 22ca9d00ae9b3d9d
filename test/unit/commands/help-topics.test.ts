// `roster help` topics, and help for commands through the same `help` command, each run in this process
// (main() on a fake Context).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/context.js';
import { useHttpMock } from '../../helpers/http-mock.js';
import { rosterInProcess } from '../../helpers/main.js';

const home = tempDir();
const mock = useHttpMock();
const roster = (args: string[]) => rosterInProcess(args, { home, transport: mock.http });

/** Every ROSTER_* variable the source reads (the sandbox aside), so the topic cannot fall behind. */
function rosterVariables(): string[] {
  const root = join(import.meta.dirname, '..', '..', '..', 'src');
  const found = new Set<string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory() && entry.name !== 'sandbox') walk(path);
      else if (entry.name.endsWith('.ts')) {
        for (const match of readFileSync(path, 'utf8').matchAll(/\bROSTER_[A-Z_]+[A-Z]\b/g))
          found.add(match[0]);
      }
    }
  };
  walk(root);
  return [...found].sort();
}

describe('roster help', () => {
  it('exit-codes lists every exit code of the contract', async () => {
    const result = await roster(['help', 'exit-codes']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    for (const code of ['0', '1', '2', '3', '4', '5', '130'])
      expect(result.stdout).toMatch(new RegExp(`^  ${code} +\\S`, 'm'));
    expect(result.stdout).toContain('roster doctor');
  });

  it('environment names every ROSTER_* variable roster reads, and the standard ones it honours', async () => {
    const result = await roster(['help', 'environment']);
    expect(result.code).toBe(0);
    const variables = rosterVariables();
    expect(variables).toContain('ROSTER_CLIENT_SECRET');
    for (const name of [
      ...variables,
      'NO_COLOR',
      'CI',
      'HTTPS_PROXY',
      'HTTP_PROXY',
      'NO_PROXY',
      'NODE_EXTRA_CA_CERTS',
      'XDG_CONFIG_HOME',
      'XDG_CACHE_HOME',
      'XDG_STATE_HOME',
    ]) {
      expect(result.stdout, name).toMatch(new RegExp(`^  ${name}\\b`, 'm'));
    }
  });

  it('still gives help for commands, as commander did', async () => {
    const viaHelp = await roster(['help', 'attendance', 'check']);
    const viaFlag = await roster(['attendance', 'check', '--help']);
    expect(viaHelp.code).toBe(0);
    expect(viaHelp.stdout).toBe(viaFlag.stdout);
    expect(viaHelp.stdout).toMatch(/^Usage: roster attendance check/);
    const root = await roster(['help']);
    expect(root.code).toBe(0);
    expect(root.stdout).toContain('Help topics:\n  roster help exit-codes\n  roster help environment\n');
  });

  it('an unknown topic is a usage error listing the topics and commands', async () => {
    const result = await roster(['help', 'exit-code']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^Error: No help for "exit-code"\. Try one of: exit-codes, environment, global-options, login, /,
    );
  });

  it('the help of doctor, profiles and completion shows terminal and script examples', async () => {
    for (const command of [['doctor'], ['profiles'], ['profiles', 'use'], ['completion'], ['help', 'help']]) {
      const result = await roster([...command, '--help']);
      expect(result.stdout, command.join(' ')).toMatch(
        /Examples:\n {2}# On a terminal.*\n( {2}.*\n)* {2}# In a script/,
      );
    }
  });
});
