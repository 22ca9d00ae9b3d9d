// Runs a script (or vitest) on a Node that has node:sqlite, which roster's store needs (Node >= 22.13): this
// Node when it has it; on an older one (Node 20, end of life, still the system Node of many machines), Node 26
// from the npm registry (the node-<os>-<arch> package), installed once into a cache folder outside the
// checkout. Not a dev dependency named `node`: npm would put it first on the PATH of every script, and the
// suites CI runs on Node 22 and 24 would silently run on it.
//
//   node test/with-node.mjs vitest run [args]     vitest, on that Node (and every roster the tests spawn)
//   node test/with-node.mjs SCRIPT [args]         any script (dist/demo.js, test/bench/run.js)
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

const MAJOR = 26;

function hasSqlite(version) {
  const [major, minor] = version.split('.').map(Number);
  return major > 22 || (major === 22 && minor >= 13);
}

/** Node MAJOR for this machine from the npm registry, installed once into roster's developer cache. */
function registryNode() {
  const os = { win32: 'win', darwin: 'darwin', linux: 'linux' }[process.platform] ?? process.platform;
  const cache = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  const folder = join(cache, 'roster-dev', `node${MAJOR}`);
  const pkg = join(folder, 'node_modules', `node-${os}-${process.arch}`);
  const bin = process.platform === 'win32' ? join(pkg, 'node.exe') : join(pkg, 'bin', 'node');
  if (existsSync(bin)) return bin;
  process.stderr.write(
    `Node ${process.versions.node} has no node:sqlite (roster's store needs Node 22.13 or later): ` +
      `installing Node ${MAJOR} from the npm registry into ${folder}, once.\n`,
  );
  const npm = process.env.npm_execpath;
  const [command, prefix] = npm ? [process.execPath, [npm]] : ['npm', []];
  const args = ['install', '--prefix', folder, '--no-save', '--no-package-lock', '--no-audit', '--no-fund'];
  const installed = spawnSync(command, [...prefix, ...args, `node-${os}-${process.arch}@${MAJOR}`], {
    stdio: ['ignore', 'ignore', 'inherit'],
    shell: !npm && process.platform === 'win32',
  });
  if (installed.status !== 0 || !existsSync(bin)) {
    process.stderr.write(`Could not install Node ${MAJOR}: install Node 22, 24 or 26 and run this again.\n`);
    process.exit(1);
  }
  return bin;
}

const [first, ...rest] = process.argv.slice(2);
const script =
  first === 'vitest'
    ? join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs')
    : first;
const node = hasSqlite(process.versions.node) ? process.execPath : registryNode();
const child = spawn(node, [script, ...rest], { stdio: 'inherit' });
// Ctrl-C reaches the child through the terminal's process group; a signal sent to this process alone is passed on.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => {
  if (signal) process.kill(process.pid, signal);
  else process.exit(code ?? 1);
});
