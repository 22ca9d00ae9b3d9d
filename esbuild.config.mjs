// The esbuild build of dist/ (npm run build), a script because esbuild keeps its configuration in code.
// Start-up is dominated by how many ES modules Node has to resolve, read, compile and link (~0.5 ms
// each), so the hot path is one file: dist/cli.js holds everything that `src/cli.ts` imports statically
// (commander, main, the session, settings, token cache) plus the token command. Everything loaded with
// import() (the other commands, the HTTP client, prompts, the keychain, the sandbox) is built separately into
// dist/chunks/ with code splitting; those chunks import whatever they share with the hot path from
// dist/cli.js, so every module (and class, for instanceof) exists once.

import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import { relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';

const root = import.meta.dirname;
// Chunk names carry content hashes: start from an empty dist/ so old chunks do not pile up.
rmSync(resolve(root, 'dist'), { recursive: true, force: true });
const src = (path) => resolve(root, 'src', path);
/** Lazy in src/main.ts, but bundled into dist/cli.js: scripts run `roster token` in loops. */
const INLINE = new Set([src('commands/token.ts')]);

/**
 * Node built-ins are loaded with require() instead of `import`: an ES import of a built-in builds a
 * module facade that reads every export, and so runs lazy getters (node:fs's ReadStream loads all of
 * node:stream). These, which a run with a cached token or a plain-http request never uses, load on first
 * property access instead of when the module importing them is evaluated.
 */
const ON_FIRST_USE = new Set([
  'https',
  'tls',
  'crypto',
  'zlib',
  'perf_hooks',
  // commander requires it at load for executable subcommands, which roster has none of.
  'child_process',
]);
const requireBuiltin = createRequire(import.meta.url);

const builtins = {
  name: 'builtins',
  setup(build) {
    build.onResolve({ filter: /^(node:)?[a-z0-9_]+(\/[a-z0-9_]+)?$/ }, (args) => {
      if (args.namespace === 'builtin') return { path: args.path, external: true };
      const name = args.path.replace(/^node:/, '');
      if (!isBuiltin(name)) return undefined;
      // import() stays Node's own: with code splitting esbuild puts a dynamically imported CommonJS wrapper
      // in a chunk of its own that exports only `default`, so `const { x } = await import('node:v8')` got
      // undefined (test/e2e/roster.test.ts checks the heap tuning, which needs it, in a built run).
      if (args.kind === 'dynamic-import') return { path: `node:${name}`, external: true };
      // One wrapper per importing file, so that code splitting keeps it in its importer's chunk.
      return { path: `${name}|${args.importer}`, namespace: 'builtin' };
    });
    build.onLoad({ filter: /.*/, namespace: 'builtin' }, (args) => {
      const [path] = args.path.split('|');
      const id = JSON.stringify(`node:${path}`);
      // The whole built-in, as esbuild converts it for an ES importer. (A wrapper exporting only the names
      // the importer used, read from its import clauses with regular expressions, was measured within the
      // noise of a cached `roster token`, 0.99×, in issue 38: the build no longer reads sources for it.)
      if (!ON_FIRST_USE.has(path)) return { contents: `module.exports = require(${id});`, loader: 'js' };
      const getters = Object.keys(requireBuiltin(`node:${path}`)).map((key) => {
        const k = JSON.stringify(key);
        return `${k}: { get: () => load()[${k}], enumerable: true }`;
      });
      return {
        contents: `let m; const load = () => (m ??= require(${id}));\nmodule.exports = Object.defineProperties({}, {${getters.join(',\n')}});`,
        loader: 'js',
      };
    });
  },
};

/** The commit dist/ is built from (`roster --version --json`), when this is a git checkout. */
function commit() {
  try {
    return execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'ignore'],
    })
      .toString()
      .trim();
  } catch {
    return null;
  }
}

const common = {
  absWorkingDir: root,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  logLevel: 'warning',
  external: ['@napi-rs/keyring'],
  define: { __ROSTER_BUILD__: JSON.stringify({ kind: 'npm', commit: commit() }) },
  plugins: [builtins],
  banner: {
    js: "import{createRequire as __roster_cr}from'node:module';const require=__roster_cr(import.meta.url);",
  },
};

/**
 * The hot bundle: src/cli.ts with its lazy imports left out (they become imports of `lazyPath(file)`),
 * and re-exporting the hot modules that lazy code imports (`shared`).
 */
async function hotBuild(lazy, shared, lazyPath, write) {
  const lines = ["export { listCommands, run } from './src/cli.ts';"];
  for (const file of shared) lines.push(`export * from ${JSON.stringify(`./${relative(root, file)}`)};`);
  return esbuild.build({
    ...common,
    stdin: { contents: lines.join('\n'), resolveDir: root, sourcefile: 'cli-entry.ts', loader: 'ts' },
    outfile: 'dist/cli.js',
    metafile: true,
    write,
    plugins: [
      builtins,
      {
        name: 'lazy-imports',
        setup(build) {
          build.onResolve({ filter: /.*/ }, async (args) => {
            if (args.kind !== 'dynamic-import' || args.pluginData) return undefined;
            const found = await build.resolve(args.path, {
              kind: args.kind,
              importer: args.importer,
              resolveDir: args.resolveDir,
              pluginData: true,
            });
            if (found.errors.length > 0 || found.external || INLINE.has(found.path)) return undefined;
            lazy.add(found.path);
            return { path: lazyPath(found.path), external: true };
          });
        },
      },
    ],
  });
}

// 1. Which modules are hot, and which are loaded lazily.
const lazy = new Set();
const probe = await hotBuild(lazy, [], () => 'lazy', false);
const hot = new Set(Object.keys(probe.metafile.inputs).map((input) => resolve(root, input)));

// 2. The lazy part, importing what it shares with the hot part from dist/cli.js.
const shared = new Set();
const chunks = await esbuild.build({
  ...common,
  entryPoints: [...lazy],
  outdir: 'dist',
  splitting: true,
  entryNames: 'chunks/[name]-[hash]',
  chunkNames: 'chunks/[name]-[hash]',
  metafile: true,
  plugins: [
    builtins,
    {
      name: 'hot-imports',
      setup(build) {
        build.onResolve({ filter: /.*/ }, async (args) => {
          if (args.pluginData || args.kind === 'entry-point') return undefined;
          const found = await build.resolve(args.path, {
            kind: args.kind,
            importer: args.importer,
            resolveDir: args.resolveDir,
            pluginData: true,
          });
          if (found.errors.length > 0 || !hot.has(found.path)) return undefined;
          shared.add(found.path);
          return { path: '../cli.js', external: true };
        });
      },
    },
  ],
});
const output = new Map();
for (const [file, meta] of Object.entries(chunks.metafile.outputs)) {
  if (meta.entryPoint) output.set(resolve(root, meta.entryPoint), `./${relative('dist', file)}`);
}

// 3. The hot part, importing the lazy entries by their built names.
await hotBuild(new Set(), [...shared].sort(), (file) => output.get(file), true);

// 4. The commands as `roster --help` lists them, taken from the built program: that help then loads no
// command module (src/main.ts).
const { listCommands } = await import(pathToFileURL(resolve(root, 'dist/cli.js')).href);
writeFileSync(resolve(root, 'dist/commands.json'), `${JSON.stringify(await listCommands(), null, 2)}\n`);

// 5. The demo runs in its own process: one self-contained file.
await esbuild.build({ ...common, entryPoints: ['src/demo.ts'], outfile: 'dist/demo.js' });
