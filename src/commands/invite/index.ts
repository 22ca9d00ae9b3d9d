// `roster invite …`: enrollment invitations (spec §4.5, §4.6).
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { register as registerList } from './list.js';
import { register as registerSend } from './send.js';

export function register(program: Command, ctx: Context): void {
  const invite = program.command('invite').summary('enrollment invitations: send (one or a CSV) and list');
  registerSend(invite, ctx);
  registerList(invite, ctx);
}
