// `roster roster …`: OneRoster rostering reads (spec §4.4, §9).
import type { Command } from 'commander';
import type { Context } from '../../context.js';

export function register(program: Command, _ctx: Context): void {
  program.command('roster').summary('OneRoster reads: students, schools, classes, … (1.1 and 1.2)');
}
