// `roster`, `roster --help` and `roster -h` print the top-level help from dist/commands.json, the listing
// the build takes from the whole program, without loading every command's module. What they print must
// be exactly what the whole program prints (`roster help` builds it), on a pipe and on terminals of any
// width, and a missing or damaged listing must only cost the time it saves.
import { spawnSync } from 'node:child_process';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandListing, createProgram, loadCommands } from '../../src/main.js';
import { cliEnv, ROSTER_BIN, runCli } from '../helpers/cli.js';
import { fakeContext, tempDir } from '../helpers/context.js';

const ROOT = join(import.meta.dirname, '..', '..');
const home = tempDir();

/** The top-level help of the whole program, as `roster help` prints it. */
async function wholeHelp(bin = ROSTER_BIN) {
  const result = await runCli(['help'], home, { bin });
  expect(result.code).toBe(0);
  return result.stdout;
}

/** What a terminal `columns` wide shows for a command line (util-linux `script` gives it a pty). */
function onTerminal(args: string[], columns: number): string {
  const command = [`stty cols ${columns} rows 50`, [process.execPath, ROSTER_BIN, ...args].join(' ')].join(
    '; ',
  );
  const result = spawnSync('script', ['-q', '-e', '-c', command, '/dev/null'], {
    env: cliEnv(home, { TERM: 'xterm', NO_COLOR: '1' }),
    encoding: 'utf8',
  });
  return result.stdout.replace(/\r\n/g, '\n');
}

describe('the top-level help from the built listing', () => {
  it('lists every command of the program built from the sources (the build is not stale)', async () => {
    const listing = JSON.parse(readFileSync(join(ROOT, 'dist', 'commands.json'), 'utf8'));
    const program = createProgram(fakeContext().ctx, await loadCommands());
    expect(listing).toEqual(commandListing(program));
    expect(listing.map((c: { name: string }) => c.name)).toEqual(
      expect.arrayContaining(['login', 'token', 'invite', 'roster', 'attendance', 'sandbox', 'help']),
    );
  });

  it('roster --help, roster -h and roster alone print what the whole program prints', async () => {
    const whole = await wholeHelp();
    expect(whole).toContain('Commands:');
    expect(whole).toContain('Help topics:');
    for (const flag of ['--help', '-h']) {
      const result = await runCli([flag], home);
      expect(result).toMatchObject({ code: 0, stdout: whole, stderr: '' });
    }
    // No command at all is a usage error: the same help, on stderr, exit 2.
    expect(await runCli([], home)).toMatchObject({ code: 2, stdout: '', stderr: whole });
  });

  it('on terminals narrow and wide, the same lines as the whole program', () => {
    for (const columns of [50, 160]) {
      const listed = onTerminal(['--help'], columns);
      expect(listed).toContain('Commands:');
      expect(listed).toBe(onTerminal(['help'], columns));
    }
    // The widths did matter: the narrow one wraps descriptions the wide one keeps on one line.
    expect(onTerminal(['--help'], 50)).not.toBe(onTerminal(['--help'], 160));
  });

  it('a missing or damaged listing: the help is still whole (the commands are loaded instead)', async () => {
    const copy = tempDir();
    try {
      for (const part of ['bin', 'dist', 'package.json'])
        cpSync(join(ROOT, part), join(copy, part), { recursive: true });
      const bin = join(copy, 'bin', 'roster.js');
      const whole = await wholeHelp(bin);
      for (const damage of [
        '',
        '{"name":',
        '[]',
        '[{"name": "login"}]',
        '[{"name": 1, "term": 2, "description": 3}]',
      ]) {
        writeFileSync(join(copy, 'dist', 'commands.json'), damage);
        expect(await runCli(['--help'], home, { bin })).toMatchObject({ code: 0, stdout: whole });
      }
      rmSync(join(copy, 'dist', 'commands.json'));
      expect(await runCli(['--help'], home, { bin })).toMatchObject({ code: 0, stdout: whole });
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});
