// Every command's help as `roster … --help` prints it, walked from the program itself (in this process).
import type { Command } from 'commander';
import { createProgram, loadCommands } from '../../src/main.js';
import { fakeContext } from './context.js';

/** Every command a user can run or ask help for, with the help it prints. */
export async function everyCommandsHelp(): Promise<{ path: string; help: string }[]> {
  const { ctx, stdout } = fakeContext();
  const program = createProgram(ctx, await loadCommands());
  const found: { path: string; help: string }[] = [];
  const walk = (command: Command, path: string[]) => {
    const from = stdout().length;
    command.outputHelp();
    found.push({ path: path.join(' '), help: stdout().slice(from) });
    for (const sub of program.createHelp().visibleCommands(command)) {
      // commander's own `help` below a command group only shows the group's help.
      if (sub.name() === 'help' && command !== program) continue;
      walk(sub, [...path, sub.name()]);
    }
  };
  walk(program, ['roster']);
  return found;
}
