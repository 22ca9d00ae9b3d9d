#!/usr/bin/env node
// Entry point: the bundled CLI lives in dist/ (in the package; in a checkout, `npm run build` makes it).
// Scripts probe for the tool with `roster --version`: it is answered here, before any of dist/ loads, and
// written straight to the file descriptor (creating process.stdout costs more than the rest of the answer).
import nodeModule, { createRequire } from 'node:module';

// Not `import … from 'node:fs'`: an ES import of a built-in builds a facade that reads every export, and
// node:fs's ReadStream getter loads all of node:stream (~2 ms that `--version` never needs).
const require = createRequire(import.meta.url);
const { lstatSync, mkdirSync, readFileSync, writeSync } = require('node:fs');

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  try {
    writeSync(1, `${version}\n`);
  } catch {
    // stdout closed early (`roster --version | true`): nothing to report
  }
} else if (!nodeFits(process.versions.node)) {
  // roster keeps the state of sending invitations in node:sqlite, which Node has from 22.13 on.
  writeSync(
    2,
    `roster needs Node 22.13 or later; this is Node ${process.versions.node}.\n` +
      "Install Node 22, 24 or 26 (https://nodejs.org), or download roster's standalone executable, which needs no Node.\n",
  );
  process.exitCode = 1;
} else {
  enableCompileCache();
  const cli = new URL('../dist/cli.js', import.meta.url);
  let run;
  try {
    ({ run } = await import(cli.href));
  } catch (error) {
    const { fileURLToPath } = require('node:url');
    if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !`${error.message}`.includes(fileURLToPath(cli)))
      throw error;
    // A checkout where nothing was built yet.
    writeSync(
      2,
      `roster is not built: run \`npm run build\` in ${fileURLToPath(new URL('..', import.meta.url))}\n`,
    );
    process.exit(1);
  }
  process.exitCode = await run(argv);
}

/** Node 22.13 or later (node:sqlite without a flag). */
function nodeFits(version) {
  const [major, minor] = version.split('.').map(Number);
  return major > 22 || (major === 22 && minor >= 13);
}

/**
 * Node ≥ 22.1 can keep V8's compiled code of dist/ on disk, so later runs skip parsing and compiling it.
 * The cache is code that runs, so it lives in roster's cache folder (src/paths.ts: <cacheDir>/compile),
 * created 0700, and is used only if that folder and its parent are ours and nobody else can write to them.
 * Skipped silently on older Node, where the folder cannot be made, and when NODE_COMPILE_CACHE or
 * NODE_DISABLE_COMPILE_CACHE leaves the choice to Node.
 */
function enableCompileCache() {
  const env = process.env;
  if (typeof nodeModule.enableCompileCache !== 'function') return;
  if (env.NODE_COMPILE_CACHE || env.NODE_DISABLE_COMPILE_CACHE) return;
  try {
    const { join } = require('node:path');
    const home = env.HOME || require('node:os').homedir();
    // The cacheDir of resolvePaths() in src/paths.ts.
    const xdgCache =
      env.XDG_CACHE_HOME || join(home, process.platform === 'darwin' ? 'Library/Caches' : '.cache');
    const cacheDir =
      process.platform === 'win32'
        ? join(env.LOCALAPPDATA || join(home, 'AppData', 'Local'), 'roster', 'cache')
        : join(xdgCache, 'roster');
    const dir = join(cacheDir, 'compile');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const ours = (path) => {
      const stat = lstatSync(path);
      return stat.isDirectory() && stat.uid === process.getuid() && (stat.mode & 0o022) === 0;
    };
    if (process.platform !== 'win32' && !(ours(cacheDir) && ours(dir))) return;
    const umask = process.umask(0o077); // the per-version folder Node makes in it is then 0700 too
    try {
      nodeModule.enableCompileCache(dir);
    } finally {
      process.umask(umask);
    }
  } catch {
    // no cache: the program runs as it would on Node 20
  }
}
