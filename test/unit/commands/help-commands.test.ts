// Every command's help as the contract asks: a description, its flags, an example, and the global options
// it takes (gh's inherited flags); help for an unknown command is a usage error; a client secret given as a
// flag is refused with the flag that reads it. Each run is in this process (main() on a fake Context);
// test/e2e/help-listing.test.ts runs the built CLI's help.
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/context.js';
import { everyCommandsHelp } from '../../helpers/help.js';
import { useHttpMock } from '../../helpers/http-mock.js';
import { rosterInProcess } from '../../helpers/main.js';

const home = tempDir();
const mock = useHttpMock();
const roster = (args: string[]) => rosterInProcess(args, { home, transport: mock.http });
afterAll(() => rmSync(home, { recursive: true, force: true }));

const GLOBAL = ['--profile', '--base-url', '--timeout', '--debug', '--no-input'];

describe('the help of every command', () => {
  it('has a description, its options, an example, and (below the program) the global options', async () => {
    const commands = await everyCommandsHelp();
    expect(commands.map((c) => c.path)).toEqual(
      expect.arrayContaining(['roster logout', 'roster invite send', 'roster config set', 'roster help']),
    );
    for (const { path, help } of commands) {
      const [usage, blank, description] = help.split('\n');
      expect(usage, path).toMatch(/^Usage: /);
      expect(blank, path).toBe('');
      expect(description?.trim(), `${path} has no description`).not.toBe('');
      expect(help, path).toContain('Options:');
      expect(help, path).toContain('Examples:');
      if (path === 'roster') continue;
      // The global options once, by name, and where they are described: not 13 options on every command.
      const global = help.slice(help.indexOf('Global options:'), help.indexOf('Examples:'));
      expect(help.indexOf('Global options:'), `${path} names no global options`).toBeGreaterThan(0);
      for (const flag of GLOBAL) expect(global, path).toContain(flag);
      expect(global.replace(/\s+/g, ' '), path).toContain('(roster help global-options says what each does)');
      expect(help, path).not.toContain('district profile to use');
      // Only the program answers --version.
      expect(global, path).not.toContain('--version');
    }
  });

  it('roster invite send --help lists its own flags, then names the global ones, described in their topic', async () => {
    const result = await roster(['invite', 'send', '--help']);
    expect(result.code).toBe(0);
    const own = result.stdout.indexOf('--student-count <n>');
    const global = result.stdout.indexOf('Global options: --profile, --base-url,');
    expect(own).toBeGreaterThan(0);
    expect(global).toBeGreaterThan(own);
    // 97 lines when every global option was described under every command.
    expect(result.stdout.split('\n').length).toBeLessThan(80);
    const topic = await roster(['help', 'global-options']);
    expect(topic.code).toBe(0);
    expect(topic.stdout).toMatch(/\n {2}--profile <name> +district profile to use/);
    expect(topic.stdout).toMatch(/\n {2}--no-input +never prompt/);
    expect(topic.stdout).not.toContain('--version');
  });

  it('a command that had only a summary shows it as its description', async () => {
    const result = await roster(['logout', '--help']);
    expect(result.stdout.split('\n')[2]).toBe(
      'remove the stored client secret and cached tokens of a profile',
    );
  });
});

describe('help for what does not exist', () => {
  it.each([
    [['help', 'nonexistent'], 'No help for "nonexistent"'],
    [['help', 'invite', 'nonexistent'], 'No help for "invite nonexistent"'],
  ])('roster %j: a usage error (exit 2) naming what there is', async (args, message) => {
    const result = await roster(args);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(message);
    expect(result.stderr).toContain('Try one of:');
  });
});

describe('roster login --client-secret', () => {
  it.each([
    [['--client-secret', 's3cret-in-history']],
    [['--client-secret=s3cret-in-history']],
    [['--client-id', 'district-42', '--client-secret']],
  ])(
    '%j: refused (exit 2) with --client-secret-stdin, the secret not echoed, nothing saved',
    async (args) => {
      const result = await roster(['login', '--base-url', 'https://api.district.example/v1', ...args]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('The client secret is never accepted as a flag');
      expect(result.stderr).toContain('--client-secret-stdin');
      expect(result.stdout + result.stderr).not.toContain('s3cret-in-history');
      expect(existsSync(join(home, 'config'))).toBe(false);
    },
  );

  it('the refused flag is not offered in the help', async () => {
    const result = await roster(['login', '--help']);
    expect(result.stdout).toContain('--client-secret-stdin');
    expect(result.stdout).not.toMatch(/--client-secret(?!-stdin)/);
  });
});
