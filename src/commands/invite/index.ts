// `roster invite …`: enrollment invitations (spec §4.5, §4.6).
import type { Command } from 'commander';
import type { Context } from '../../context.js';

export function register(program: Command, _ctx: Context): void {
  program.command('invite').summary('enrollment invitations: send (one or a CSV) and list');
}
