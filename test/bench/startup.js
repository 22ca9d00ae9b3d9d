// Start-up benchmark: wall time of roster commands against `node -e 0` of the same Node, on each Node
// available (and curl for the attendance request), in interleaved rounds (every command on every Node once
// per round), because absolute times drift on shared machines. A ratio is the median over rounds; the range
// after it is the 25th–75th percentile of the per-round ratios.
// Nodes: the one running this script, plus ROSTER_BENCH_NODES (Node binaries, separated by ':') or, without
// it, the Node 22 and 24 that .ci/run installs (under ROSTER_CI_NODES or <cache>/roster-ci).
// Then the start-up budget: what each command loads of Node's own modules (the HTTP stack, node:crypto,
// node:child_process …) on the Node running this script, against what it may load, so that a module
// pulled onto a start-up path shows here, beside the ratios, and not as a test that asserts chunk names.
// Run: npm run build && node test/bench/startup.js [rounds]
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { NODE_VERSION } from '../../.ci/release/targets.mjs';
import { demoEnv, interleavedTimes, ROSTER, startSandbox } from './lib.js';

const rounds = Number(process.argv[2] ?? 20);
const GOALS = { version: 1.3, token: 1.6, attendance: 2.0 };
const LABELS = {
  node: 'node -e 0 (baseline)',
  version: 'roster --version',
  help: 'roster --help',
  token: 'roster token (cached)',
  attendance: 'roster attendance check (cached token)',
};

/** A preload that writes, at exit and on file descriptor 3, the Node built-ins the process loaded. */
const BUILTINS_PRELOAD = `data:text/javascript,${encodeURIComponent(
  "import{writeSync}from'node:fs';process.on('exit',()=>{try{writeSync(3,JSON.stringify(process.moduleLoadList.filter((m)=>m.startsWith('NativeModule ')).map((m)=>m.slice(13))))}catch{}});",
)}`;

/**
 * What each command may load at start-up, by the built-ins that give it away: a cached token or the help
 * reach no network, so no HTTP stack and no node:crypto (its OpenSSL costs ~3 ms); none of these runs a
 * child process. A request loads undici, whose HTTP/2 client brings node:http2, node:tls and node:crypto
 * with it, but node:https never.
 */
const LOAD_BUDGET = {
  help: { args: ['--help'], never: ['http', 'https', 'http2', 'tls', 'crypto', 'child_process'] },
  token: { args: ['token'], never: ['http', 'https', 'http2', 'tls', 'crypto', 'child_process'] },
  attendance: { args: ['attendance', 'check'], never: ['https', 'child_process'] },
};

function otherNodes() {
  if (process.env.ROSTER_BENCH_NODES) return process.env.ROSTER_BENCH_NODES.split(delimiter).filter(Boolean);
  const cache = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  const ci = process.env.ROSTER_CI_NODES || join(cache, 'roster-ci');
  return [22, 24].map((major) =>
    join(ci, `node${major}`, 'node_modules', `node-linux-${process.arch}`, 'bin', 'node'),
  );
}

/** Each Node once (by version), the one running this first. */
const nodes = new Map([[process.version, process.execPath]]);
for (const path of otherNodes()) {
  if (!existsSync(path)) continue;
  const version = execFileSync(path, ['--version'], { encoding: 'utf8' }).trim();
  if (!nodes.has(version)) nodes.set(version, path);
}

const sandbox = await startSandbox();
try {
  const env = demoEnv(sandbox.baseUrl);
  // Caches a token for the runs below.
  const token = JSON.parse(
    execFileSync(process.execPath, [ROSTER, 'token', '--json'], { env, encoding: 'utf8' }),
  ).access_token;
  const commands = {
    curl: [
      'curl',
      ['-sf', '-H', `Authorization: Bearer ${token}`, `${sandbox.baseUrl}/attendance/status`],
      env,
    ],
  };
  for (const [version, node] of nodes) {
    const roster = (...args) => [node, [ROSTER, ...args], env];
    commands[`${version} node`] = [node, ['-e', '0'], env];
    commands[`${version} version`] = roster('--version');
    commands[`${version} help`] = roster('--help');
    commands[`${version} token`] = roster('token');
    commands[`${version} attendance`] = roster('attendance', 'check');
  }
  const executables = standaloneExecutables();
  for (const [name, path] of executables) {
    commands[`${name} version`] = [path, ['--version'], env];
    commands[`${name} token`] = [path, ['token'], env];
    commands[`${name} attendance`] = [path, ['attendance', 'check'], env];
  }
  const npm26 = executables.size > 0 ? sameNodeAsStandalone() : undefined;
  if (npm26) {
    commands['npm version'] = [npm26, [ROSTER, '--version'], env];
    commands['npm token'] = [npm26, [ROSTER, 'token'], env];
    commands['npm attendance'] = [npm26, [ROSTER, 'attendance', 'check'], env];
  }
  const times = interleavedTimes(commands, rounds);

  const quantile = (list, q) => [...list].sort((a, b) => a - b)[Math.floor((list.length - 1) * q)];
  /** "1.26× (1.22–1.31)": the median of per-round ratios to the same Node's `node -e 0`, and its IQR. */
  const ratio = (label, version) => {
    const base = times[`${version} node`];
    const ratios = times[label].map((ms, i) => ms / base[i]);
    const fmt = (x) => x.toFixed(2);
    return {
      median: quantile(ratios, 0.5),
      text: `${fmt(quantile(ratios, 0.5))}× (${fmt(quantile(ratios, 0.25))}–${fmt(quantile(ratios, 0.75))})`,
    };
  };
  const versions = [...nodes.keys()];
  const cell = (text) => text.padEnd(26);
  console.log(
    `Start-up, ${rounds} interleaved rounds: median ms, and the ratio to \`node -e 0\` of the same Node ` +
      '(median of per-round ratios, 25th–75th percentile)',
  );
  console.log(`${''.padEnd(40)}${versions.map(cell).join('')}goal`);
  const missed = [];
  for (const [key, label] of Object.entries(LABELS)) {
    const cells = versions.map((version) => {
      const ms = quantile(times[`${version} ${key}`], 0.5);
      if (key === 'node') return cell(`${ms.toFixed(1)} ms`);
      const r = ratio(`${version} ${key}`, version);
      if (GOALS[key] && r.median > GOALS[key]) missed.push(`${label} on ${version}`);
      return cell(`${ms.toFixed(0)} ms ${r.text}`);
    });
    console.log(`${label.padEnd(40)}${cells.join('')}${GOALS[key] ? `≤ ${GOALS[key]}×` : ''}`);
  }
  const curl = versions.map((version) =>
    cell(`${quantile(times.curl, 0.5).toFixed(0)} ms ${ratio('curl', version).text}`),
  );
  console.log(`${'curl, the same attendance request'.padEnd(40)}${curl.join('')}`);
  if (missed.length > 0) console.log(`Goals not met: ${missed.join('; ')}`);
  printLoadBudget(env);
  if (npm26) printStandalone(times, executables, quantile);
  if (nodes.size === 1) {
    console.log(
      'Only one Node found: set ROSTER_BENCH_NODES, or run .ci/run once to install Node 22 and 24.',
    );
  }
} finally {
  sandbox.stop();
}

/** Runs each command of LOAD_BUDGET once on this Node and prints what it loaded against its budget. */
function printLoadBudget(env) {
  console.log(
    `\nStart-up budget on ${process.version}: Node built-ins loaded, and those a command must not load`,
  );
  const over = [];
  for (const [key, { args, never }] of Object.entries(LOAD_BUDGET)) {
    const run = spawnSync(process.execPath, ['--import', BUILTINS_PRELOAD, ROSTER, ...args], {
      env,
      stdio: ['ignore', 'ignore', 'ignore', 'pipe'],
    });
    const loaded = new Set(JSON.parse(run.output[3]?.toString() || '[]'));
    const breaking = never.filter((name) => loaded.has(name));
    if (breaking.length > 0) over.push(`${LABELS[key]} loads ${breaking.join(', ')}`);
    const verdict = breaking.length > 0 ? `OVER: ${breaking.join(', ')}` : 'within';
    console.log(`  ${LABELS[key].padEnd(40)}${String(loaded.size).padStart(4)} built-ins   ${verdict}`);
  }
  console.log(over.length > 0 ? `Start-up budget not kept: ${over.join('; ')}` : 'Start-up budget kept.');
}

/**
 * The standalone executables to time: ROSTER_BENCH_EXECUTABLES (name=path, separated by ':'), else the
 * linux executable `npm run release` built (release/work/<platform>-<arch>/roster), if there is one.
 */
function standaloneExecutables() {
  const given = process.env.ROSTER_BENCH_EXECUTABLES;
  const pairs = given
    ? given.split(delimiter).map((pair) => pair.split('='))
    : [
        [
          'standalone',
          join(import.meta.dirname, '..', '..', 'release', 'work', `linux-${process.arch}`, 'roster'),
        ],
      ];
  return new Map(pairs.filter(([, path]) => path && existsSync(path)));
}

/** The Node binary the executables embed, as npm run release fetched it: the npm install runs on it. */
function sameNodeAsStandalone() {
  const cache = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  const release = process.env.ROSTER_RELEASE_CACHE || join(cache, 'roster-release');
  const node = join(release, `node-linux-${process.arch}_${NODE_VERSION}`, 'package', 'bin', 'node');
  return existsSync(node) ? node : undefined;
}

/** Each executable against the npm install on the same Node: median ms and the per-round ratio. */
function printStandalone(times, executables, quantile) {
  console.log(
    `\nThe standalone executable against the npm install on the same Node (${NODE_VERSION}), goal ≤ 1.00×:`,
  );
  for (const key of ['version', 'token', 'attendance']) {
    const npm = times[`npm ${key}`];
    const cells = [`npm ${quantile(npm, 0.5).toFixed(0)} ms`];
    for (const name of executables.keys()) {
      const ratios = times[`${name} ${key}`].map((ms, i) => ms / npm[i]);
      const median = quantile(times[`${name} ${key}`], 0.5).toFixed(0);
      cells.push(`${name} ${median} ms ${quantile(ratios, 0.5).toFixed(2)}×`);
    }
    console.log(`  ${LABELS[key].padEnd(40)}${cells.join('   ')}`);
  }
}
