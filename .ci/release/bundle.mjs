// The standalone executable's one-file bundle: src/standalone/main.ts with everything it imports, lazy
// commands included (a single executable runs one script: no chunks beside it), the keychain's binding
// mapped to the embedded addon's loader (src/standalone/keyring.ts), and what the npm build keeps beside dist/cli.js
// (the command listing for `roster --help`) defined inside it.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { join } from 'node:path';
import * as esbuild from 'esbuild';

function commit(root) {
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

/**
 * Built-ins imported with import() are required instead: with V8's code cache in the executable, import()
 * does not work in its main script (Node's SEA documentation), while require() of a built-in does.
 */
const builtinsRequired = {
  name: 'builtins-required',
  setup(build) {
    build.onResolve({ filter: /^(node:)?[a-z0-9_]+(\/[a-z0-9_]+)?$/ }, (args) => {
      const name = args.path.replace(/^node:/, '');
      if (args.kind !== 'dynamic-import' || !isBuiltin(name)) return undefined;
      return { path: name, namespace: 'builtin-required' };
    });
    build.onLoad({ filter: /.*/, namespace: 'builtin-required' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(`node:${args.path}`)});`,
      loader: 'js',
    }));
  },
};

/** The keychain's binding seam (src/auth/keyring-binding.ts) becomes the embedded addon's loader. */
const embeddedKeyring = {
  name: 'embedded-keyring',
  setup(build) {
    build.onResolve({ filter: /\/keyring-binding\.js$/ }, (args) =>
      args.importer.endsWith('standalone/keyring.ts')
        ? undefined
        : { path: join(build.initialOptions.absWorkingDir, 'src', 'standalone', 'keyring.ts') },
    );
  },
};

/** Writes the bundle to `outfile` and returns its path. Needs dist/ built (for dist/commands.json). */
export async function bundleStandalone(root, outfile) {
  const commands = JSON.parse(readFileSync(join(root, 'dist', 'commands.json'), 'utf8'));
  await esbuild.build({
    absWorkingDir: root,
    entryPoints: ['src/standalone/main.ts'],
    outfile,
    bundle: true,
    // CommonJS: V8's code cache in the executable (useCodeCache) applies to a CommonJS main script, which
    // saves compiling the whole bundle at every start (an ES module main was compiled every time).
    format: 'cjs',
    platform: 'node',
    target: 'node26',
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: 'none',
    logLevel: 'warning',
    define: {
      __ROSTER_BUILD__: JSON.stringify({ kind: 'standalone', commit: commit(root) }),
      __ROSTER_COMMANDS__: JSON.stringify(commands),
      'import.meta.url': '__roster_main_url',
    },
    plugins: [builtinsRequired, embeddedKeyring],
    banner: { js: "var __roster_main_url=require('node:url').pathToFileURL(process.execPath).href;" },
  });
  return outfile;
}
