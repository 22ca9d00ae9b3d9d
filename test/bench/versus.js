// Start-up of this checkout against another one (e.g. the previous release, built in a git worktree):
// the CPU time of each process (user + system, read at exit by a preloaded script) in interleaved rounds,
// medians, and, where valgrind is installed, the instructions of one run of each, which a busy machine
// does not change. V8 looks for random primes for its hash seed at every start (a varying count of
// instructions in detail::sprp): that function is left out of the count.
// Run: npm run build && node test/bench/versus.js <other checkout, built> [rounds]
//   e.g. git worktree add ../roster-prev <commit> && (cd ../roster-prev && npm ci)
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { demoEnv, ROOT, startSandbox } from './lib.js';

const [other, rounds = '40'] = process.argv.slice(2);
if (!other) {
  console.error('Usage: node test/bench/versus.js <other checkout> [rounds]');
  process.exit(2);
}
const CHECKOUTS = { other: join(resolve(other), 'bin', 'roster.js'), this: join(ROOT, 'bin', 'roster.js') };
const COMMANDS = { token: ['token'], 'attendance check': ['attendance', 'check'], '--help': ['--help'] };

const work = mkdtempSync(join(tmpdir(), 'roster-versus-'));
const preload = join(work, 'cpu.cjs');
writeFileSync(
  preload,
  "process.on('exit', () => { const u = process.cpuUsage(); require('fs').writeSync(2, '\\nroster-cpu-us ' + (u.user + u.system) + '\\n'); });",
);

function cpuMs(bin, args, env) {
  const result = spawnSync(process.execPath, ['-r', preload, bin, ...args], { env, encoding: 'utf8' });
  const found = /roster-cpu-us (\d+)/.exec(result.stderr);
  if (result.status !== 0 || !found) throw new Error(`${bin} ${args.join(' ')} failed: ${result.stderr}`);
  return Number(found[1]) / 1000;
}

function instructions(bin, args, env) {
  const out = join(work, 'callgrind.out');
  // --smc-check: V8 writes the code it runs (without it valgrind would run stale copies).
  const valgrind = ['--tool=callgrind', `--callgrind-out-file=${out}`, '--smc-check=all-non-file'];
  spawnSync('valgrind', [...valgrind, process.execPath, bin, ...args], { env, stdio: 'ignore' });
  const report = execFileSync('callgrind_annotate', ['--threshold=100', out], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  const total = Number(
    /([\d,]+) \([^)]*\)\s+PROGRAM TOTALS/.exec(report)?.[1].replace(/,/g, '') ?? Number.NaN,
  );
  const primes = Number(/([\d,]+) \([^)]*\)\s+\S*detail::sprp/.exec(report)?.[1].replace(/,/g, '') ?? 0);
  rmSync(out, { force: true });
  return total - primes;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const change = (a, b) => `${b >= a ? '+' : ''}${((b / a - 1) * 100).toFixed(1)}%`;
const hasValgrind = spawnSync('valgrind', ['--version']).status === 0;

const sandbox = await startSandbox();
try {
  const env = demoEnv(sandbox.baseUrl);
  // Each checkout caches its own token (their cache keys may differ).
  for (const bin of Object.values(CHECKOUTS)) execFileSync(process.execPath, [bin, 'token'], { env });
  console.log(
    `${'command'.padEnd(18)} ${'CPU ms: other'.padStart(14)} ${'this'.padStart(7)} ${'change'.padStart(7)}`,
  );
  for (const [label, args] of Object.entries(COMMANDS)) {
    const times = { other: [], this: [] };
    for (let round = 0; round <= Number(rounds); round++) {
      for (const [name, bin] of Object.entries(CHECKOUTS)) {
        const ms = cpuMs(bin, args, env);
        if (round > 0) times[name].push(ms); // round 0 warms the file cache
      }
    }
    const [a, b] = [median(times.other), median(times.this)];
    let line = `${label.padEnd(18)} ${a.toFixed(1).padStart(14)} ${b.toFixed(1).padStart(7)} ${change(a, b).padStart(7)}`;
    if (hasValgrind) {
      const [ia, ib] = [instructions(CHECKOUTS.other, args, env), instructions(CHECKOUTS.this, args, env)];
      line += `   instructions ${(ia / 1e6).toFixed(1)}M → ${(ib / 1e6).toFixed(1)}M ${change(ia, ib)}`;
    }
    console.log(line);
  }
} finally {
  sandbox.stop();
  rmSync(work, { recursive: true, force: true });
}
