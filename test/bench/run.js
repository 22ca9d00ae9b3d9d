// Runs the benchmarks, each in its own process, each printing its ratios against a baseline measured in
// the same run: `npm run bench` (all), `npm run bench -- startup` (one or more by name).
// Expects a fresh build (npm run bench builds first).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BENCHMARKS = {
  startup: 'start-up of --version, --help, token and attendance check against node -e 0, per Node (~1–3 min)',
  export: 'roster students --all --ndjson: memory, records/s, parallel pages against a curl loop (~1–2 min)',
  bulk: 'invite send --file of 1,000 rows at 50 ms latency against the ideal (~30 s)',
  campaign:
    'invite plan of one school of 2,000 in a district of 50,000 students: time and RSS beside the users read (~1–2 min)',
  audit:
    'roster roster audit of a district of 50,000 students: time and RSS beside roster roster export of it (~3–5 min)',
  district:
    'district scale: CPU µs per record of export and --all --ndjson reads, parallel pages against a curl loop, RSS at 200,000 students; invite send --file of 80,000 rows at 20 ms: time, CPU/row, RSS, resume after kill -9; invite plan --all-schools beside the users read (~12–16 min)',
};

const names = process.argv.slice(2);
const unknown = names.filter((name) => !Object.hasOwn(BENCHMARKS, name));
if (unknown.length > 0) {
  console.error(`Unknown benchmark ${unknown.join(', ')}. Choose from:`);
  for (const [name, what] of Object.entries(BENCHMARKS)) console.error(`  ${name.padEnd(8)} ${what}`);
  process.exit(2);
}

let failed = false;
for (const name of names.length > 0 ? names : Object.keys(BENCHMARKS)) {
  console.log(`\n=== ${name}: ${BENCHMARKS[name]}`);
  const script = fileURLToPath(new URL(`./${name}.js`, import.meta.url));
  const result = spawnSync(process.execPath, [script], { stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`${name} failed (exit ${result.status ?? result.signal})`);
    failed = true;
  }
}
process.exitCode = failed ? 1 : 0;
