// `npm run release [-- --targets linux-x64,win-x64] [--no-code-cache]`: roster's standalone executables, one
// per target, built on this (Linux) machine with Node's single-executable-application support: Node 26's
// `node --build-sea` puts roster's one-file bundle (src/standalone/main.ts) and the keychain's addon for the
// target (an asset) into that target's own Node binary. Every target uses the same exact Node version as
// the builder (the blob must match the binary it goes into); the binaries and addons come from the npm
// registry (node-<os>-<arch>, @napi-rs/keyring-<target>) into a cache folder outside the checkout.
// Writes release/roster-<version>-<target>.tar.gz (.zip for Windows) holding the executable, LICENSE and a
// README, and release/SHA256SUMS; prints each archive's size. docs/development.md#releases says more.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { archive } from './release/archive.mjs';
import { bundleStandalone } from './release/bundle.mjs';
import { checkExecutable } from './release/check.mjs';
import { NODE_VERSION, TARGETS } from './release/targets.mjs';

const root = resolve(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const cache = resolve(
  process.env.ROSTER_RELEASE_CACHE ??
    join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'roster-release'),
);
const hostTarget = `${process.platform}-${process.arch}`;

/** One file of an npm package, fetched once with `npm pack` into the cache: `package/<file>` inside it. */
function fromRegistry(spec, file) {
  const folder = join(cache, spec.replace(/[@/]/g, '_'));
  const path = join(folder, 'package', file);
  if (existsSync(path)) return path;
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  const name = execFileSync('npm', ['pack', spec, '--silent', '--pack-destination', folder], { cwd: folder })
    .toString()
    .trim()
    .split('\n')
    .at(-1);
  execFileSync('tar', ['-xzf', join(folder, name), '-C', folder, `package/${file}`]);
  rmSync(join(folder, name));
  return path;
}

/** The target's Node binary, stripped of symbols where a strip for it is installed (~35 MB less). */
function nodeBinary(target) {
  const { node, exe, strip } = TARGETS[target];
  const binary = fromRegistry(`${node}@${NODE_VERSION}`, `bin/${exe === 'roster.exe' ? 'node.exe' : 'node'}`);
  if (!strip) return binary;
  const stripped = `${binary}.stripped`;
  if (existsSync(stripped)) return stripped;
  try {
    const [tool, ...flags] = strip;
    execFileSync(tool, [...flags, '-o', stripped, binary], { stdio: 'ignore' });
    return stripped;
  } catch {
    console.warn(`(${strip[0]} is not installed: the ${target} executable keeps Node's symbols)`);
    return binary;
  }
}

function keyringAddon(target) {
  const name = TARGETS[target].keyring;
  const version = JSON.parse(
    readFileSync(join(root, 'node_modules/@napi-rs/keyring/package.json'), 'utf8'),
  ).version;
  return fromRegistry(`@napi-rs/${name}@${version}`, `keyring.${name.replace(/^keyring-/, '')}.node`);
}

/** The executable for `target` under release/work/<target>/, built by the builder Node. */
function buildExecutable(target, bundle, builder, codeCache) {
  const work = join(root, 'release', 'work', target);
  mkdirSync(work, { recursive: true });
  const output = join(work, TARGETS[target].exe);
  const config = {
    main: bundle,
    mainFormat: 'commonjs',
    executable: nodeBinary(target),
    output,
    disableExperimentalSEAWarning: true,
    // V8's code cache is made by the builder for its own platform: only the builder's target can use it.
    useCodeCache: codeCache && target === hostTarget,
    assets: { 'keyring.node': keyringAddon(target) },
  };
  const configPath = join(work, 'sea-config.json');
  writeFileSync(configPath, JSON.stringify(config, null, 2));
  execFileSync(builder, ['--build-sea', configPath], { stdio: ['ignore', 'ignore', 'inherit'] });
  return output;
}

const sha256 = (path) => createHash('sha256').update(readFileSync(path)).digest('hex');
const megabytes = (path) => `${(statSync(path).size / 1e6).toFixed(1)} MB`;

async function main() {
  const { values } = parseArgs({
    options: {
      targets: { type: 'string' },
      'no-code-cache': { type: 'boolean' },
      'skip-build': { type: 'boolean' },
    },
  });
  const targets = values.targets ? values.targets.split(',') : Object.keys(TARGETS);
  const unknown = targets.filter((t) => !(t in TARGETS));
  if (unknown.length > 0)
    throw new Error(`unknown target ${unknown.join(', ')}; known: ${Object.keys(TARGETS).join(', ')}`);
  if (!(hostTarget in TARGETS))
    throw new Error(`the builder must run on one of ${Object.keys(TARGETS).join(', ')}`);
  if (!values['skip-build'])
    execFileSync(process.execPath, ['esbuild.config.mjs'], { cwd: root, stdio: 'inherit' });
  rmSync(join(root, 'release'), { recursive: true, force: true });
  const builder = fromRegistry(`${TARGETS[hostTarget].node}@${NODE_VERSION}`, 'bin/node');
  const bundle = await bundleStandalone(root, join(root, 'release', 'work', 'roster.cjs'));
  const sums = [];
  for (const target of targets) {
    const executable = buildExecutable(target, bundle, builder, !values['no-code-cache']);
    checkExecutable(executable, target);
    const file = await archive({ root, executable, target, version: pkg.version, nodeVersion: NODE_VERSION });
    sums.push(`${sha256(file)}  ${file.split('/').at(-1)}`);
    console.log(`${file.split('/').at(-1)}: ${megabytes(file)} (executable ${megabytes(executable)})`);
  }
  writeFileSync(join(root, 'release', 'SHA256SUMS'), `${sums.join('\n')}\n`);
  console.log(`release/SHA256SUMS: ${sums.length} archives, Node ${NODE_VERSION}`);
}

await main();
