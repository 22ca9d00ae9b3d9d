// Bundle-time stand-in for `node:child_process` (esbuild alias, see esbuild.config.mjs). commander requires
// it as it loads, for executable subcommands roster does not have, and loading it (with node:dgram and
// node:net behind it) cost every command ~3 ms of start-up. The real module loads on the first spawn.
// The bare specifier `child_process` below is not aliased.
import type * as ChildProcess from 'node:child_process';
import { createRequire } from 'node:module';

let real: typeof ChildProcess | undefined;
const load = (): typeof ChildProcess => {
  real ??= createRequire(import.meta.url)('child_process') as typeof ChildProcess;
  return real;
};

export const spawn: typeof ChildProcess.spawn = ((...args: Parameters<typeof ChildProcess.spawn>) =>
  load().spawn(...args)) as typeof ChildProcess.spawn;
