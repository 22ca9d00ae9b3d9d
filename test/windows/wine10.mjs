// Wine 10 for the Windows scripts (lane.mjs, standalone.mjs): Debian 13's wine64, installed in a Debian 13
// folder (debootstrap; .ci/run makes it) and entered with chroot, so it needs root. Not Debian 12's Wine 8:
// Node 26 for Windows aborts at start under it, and under it Node 22.23's libuv fails every connect that
// sets TCP keep-alive first (undici's, "connect UNKNOWN"), which real Windows allows.
// Everything Wine reads must live inside the folder: `inside` is a path as the chroot sees it.
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** The Debian 13 folder: ROSTER_WINE_ROOT, else the one .ci/run keeps beside its Linux nodes. */
export function wineRoot() {
  const cache =
    process.env.ROSTER_CI_NODES || join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'roster-ci');
  const root = process.env.ROSTER_WINE_ROOT || join(cache, 'trixie');
  return existsSync(join(root, 'usr', 'lib', 'wine', 'wine64')) ? root : undefined;
}

export function wineIn(root) {
  const inside = (path) => `/${relative(root, path)}`;
  /** A path as Wine's Windows programs see it (Z: is the chroot's root). */
  const windowsPath = (path) => `Z:${inside(path).replace(/\//g, '\\')}`;

  /** chroot's argv for `PROGRAM ARGS` in `cwd` (a path outside, in the folder) with only `env` set. */
  const chrooted = (program, args, { cwd = root, env = {} } = {}) => {
    const assignments = Object.entries(env).map(([k, v]) => `'${k}=${String(v).replace(/'/g, `'\\''`)}'`);
    const script = `cd "$1" && shift && exec env -i ${assignments.join(' ')} ${program} "$@"`;
    return [root, '/bin/sh', '-c', script, 'sh', inside(cwd), ...args];
  };

  /**
   * Starts wine64 ARGV. chroot, sh and env each exec the next, so child.pid is Wine's, which becomes the
   * Windows program itself: signals reach it.
   */
  const spawnWine = (argv, { cwd, env, stdio }) =>
    spawn('chroot', chrooted('/usr/lib/wine/wine64', argv, { cwd, env }), { stdio });

  /** Ends the prefix's wineserver, which outlives the programs by a few seconds. */
  const stopWineserver = (prefix) =>
    execFileAsync(
      'chroot',
      chrooted('/usr/lib/wine/wineserver', ['-k'], { env: { WINEPREFIX: inside(prefix) } }),
    ).catch(() => {});

  const version = async () =>
    (await execFileAsync('chroot', chrooted('/usr/lib/wine/wine64', ['--version']))).stdout.trim();

  return { inside, windowsPath, spawnWine, stopWineserver, version };
}
