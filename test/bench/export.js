// Benchmark of `roster roster students --all --ndjson` (issue 4 Must-show, issue 5 point 3).
//
//   node test/bench/export.js                 both parts below (after `npm run build`)
//   node test/bench/export.js --students 50000 --skip-compare
//
// 1. Memory and throughput: 200,000 students, page size 1,000, no added latency. Prints records per second
//    and the client's peak RSS (maxRSS reported by the client process itself through a preloaded exit hook,
//    cross-checked by polling /proc/<pid>/status VmHWM where there is one). Goal: peak < 150 MB.
// 2. Parallel pages: 50,000 students, page size 1,000, sandbox latency 20 ms: wall time of the export against
//    a sequential curl loop over the same 50 pages (one curl process, keep-alive, output discarded), as a
//    ratio measured in the same run (median of 3 interleaved rounds). Goal: ≤ 0.4× the curl loop.
// The sandbox runs as its own process, so its memory is not counted.
import { spawn, spawnSync } from 'node:child_process';
import {
  curlStudentPages,
  demoEnv,
  followPeakRss,
  median,
  numberFlag,
  PEAK_RSS_PRELOAD,
  ROSTER,
  requireBuild,
  row,
  startSandbox,
} from './lib.js';

const STUDENTS = numberFlag('--students', 200_000);
const COMPARE_STUDENTS = numberFlag('--compare-students', 50_000);
const LATENCY_MS = numberFlag('--latency', 20);
const PAGE_SIZE = 1000;
const MEMORY_GOAL_MB = 150;
const RATIO_GOAL = 0.4;
const ROUNDS = 3;

requireBuild();

/** Runs one export; resolves with records, milliseconds and peak RSS in MB. */
function runExport(env, extra = []) {
  return new Promise((resolve, reject) => {
    const args = [
      '--import',
      PEAK_RSS_PRELOAD,
      ROSTER,
      'roster',
      'students',
      '--all',
      '--ndjson',
      '--page-size',
      String(PAGE_SIZE),
      ...extra,
    ];
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe', 'pipe'] });
    let records = 0;
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) records++;
    });
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const peakMb = followPeakRss(child);
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (code !== 0) return reject(new Error(`roster exited with ${code}: ${stderr.trim()}`));
      resolve({ records, ms, peakMb: peakMb() });
    });
  });
}

async function memoryAndThroughput() {
  console.log(
    `\n# Export of ${STUDENTS.toLocaleString('en')} students, --all --ndjson, page size ${PAGE_SIZE}`,
  );
  const sandbox = await startSandbox(['--students', String(STUDENTS)]);
  try {
    const env = demoEnv(sandbox.baseUrl);
    await runExport(env); // warm-up: token, sandbox caches
    for (const concurrency of [1, 4]) {
      const { records, ms, peakMb } = await runExport(env, ['--concurrency', String(concurrency)]);
      if (records !== STUDENTS) throw new Error(`expected ${STUDENTS} records, got ${records}`);
      const perSecond = Math.round(records / (ms / 1000));
      const verdict = peakMb < MEMORY_GOAL_MB ? 'goal < 150 MB met' : 'goal < 150 MB NOT met';
      console.log(
        `concurrency ${concurrency}: ${records} records in ${(ms / 1000).toFixed(2)} s = ${perSecond.toLocaleString('en')} records/s, peak RSS ${peakMb.toFixed(1)} MB  ${verdict}`,
      );
    }
  } finally {
    sandbox.stop();
  }
}

async function parallelAgainstCurl() {
  if (spawnSync('curl', ['--version']).status !== 0) {
    console.log('\n(curl not found: the parallel-pages comparison is skipped)');
    return;
  }
  console.log(
    `\n# ${COMPARE_STUDENTS.toLocaleString('en')} students, page size ${PAGE_SIZE}, sandbox latency ${LATENCY_MS} ms`,
  );
  const sandbox = await startSandbox([
    '--students',
    String(COMPARE_STUDENTS),
    '--latency',
    String(LATENCY_MS),
  ]);
  try {
    const env = demoEnv(sandbox.baseUrl);
    await runExport(env); // warm-up
    // Three interleaved rounds, medians: a busy moment then hits baseline and export alike.
    const times = { curl: [], sequential: [], parallel: [] };
    for (let round = 0; round < ROUNDS; round++) {
      times.curl.push(curlStudentPages(sandbox.baseUrl, env, COMPARE_STUDENTS, PAGE_SIZE));
      times.sequential.push((await runExport(env, ['--concurrency', '1'])).ms);
      times.parallel.push((await runExport(env)).ms);
    }
    const curl = median(times.curl);
    const range = (list) =>
      `(range ${(Math.min(...list) / curl).toFixed(2)}–${(Math.max(...list) / curl).toFixed(2)}×)`;
    console.log(`median of ${ROUNDS} interleaved rounds`);
    console.log(row('sequential curl loop (baseline)', curl, curl));
    console.log(
      `${row('roster --all --ndjson --concurrency 1', median(times.sequential), curl)}  ${range(times.sequential)}`,
    );
    console.log(
      `${row('roster --all --ndjson (concurrency 4)', median(times.parallel), curl, RATIO_GOAL)}  ${range(times.parallel)}`,
    );
  } finally {
    sandbox.stop();
  }
}

await memoryAndThroughput();
if (!process.argv.includes('--skip-compare')) await parallelAgainstCurl();
