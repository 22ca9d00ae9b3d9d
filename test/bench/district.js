// District-scale benchmark (issue 23): what a district's reads, export, sends and plans cost the client.
//
//   npm run bench -- district                  (builds first)
//   node test/bench/district.js --students 50000 --schools 25 --rounds 3 --latency 20 --big 200000
//   node test/bench/district.js --only cpu      (one part: cpu, curl, memory, send or plan)
//   node test/bench/district.js --only send --rows 80000 --starts 5
//
// Reads and export (this file's part):
// 1. CPU per record: `roster roster export --out DIR` and `roster roster students --all --ndjson` of a
//    district of 50,000 students (25 schools, the family traps, as docs/performance.md's figures), no added
//    latency. CPU is the client process's own user + system time (process.cpuUsage() read at exit by a
//    preloaded script: every thread, the garbage collector's included, start-up included), divided by the
//    records read from the server (the export: rows written plus rows left out, over every file; the read:
//    lines written). A busy machine stretches wall time, much less CPU time. Goal: ≤ 15 µs per record.
// 2. Parallel pages: `roster roster students --all --ndjson` of 50,000 students at 20 ms sandbox latency,
//    pages of 1,000, against a sequential curl loop over the same 50 pages (one curl process, keep-alive,
//    output discarded), interleaved rounds, medians. Goal: ≤ 0.5× the curl loop. Beside it, the sandbox's own
//    CPU while it serves the curl loop's pages (from /proc): it renders them on one thread, so no client can
//    read them all in less.
// 3. Memory: peak RSS of the read of 200,000 students (goal ≤ 150 MB), and of every run above.
// 4. Sends (--only send): `roster invite send --file` of a district's --rows invitations (default 80,000) at
//    --latency ms (20), --concurrency 8: wall time against the ideal rows × latency / concurrency (goal ≤
//    1.2×), CPU per row (the child's user + system, goal ≤ 0.3 ms), peak RSS (goal ≤ 150 MB, whatever the
//    row count). Then resume: a fresh file's run killed (SIGKILL) once 75% of its rows are journaled sent
//    (row 60,000 of 80,000, as issue 23 puts it; the rounds before its sixth killed at 60%),
//    and run again: how long until its first request leaves (its first in-flight entry in the journal,
//    goal < 2 s: the median of --starts starts from the killed state, 5 by default, the re-run's one of
//    them) and its rate of rows after that against the first run's. Beside the whole run, the floor under it:
//    a bare node:http client (no journal, no record, no checks) POSTing 16,000 invitations at the same
//    concurrency to the same sandbox, its time against its ideal and its CPU a POST.
// 5. Plan (--only plan): `roster invite plan --all-schools` of the district against `roster roster users
//    --all --ndjson` of it (goal ≤ 1.3×), peak RSS (goal ≤ 250 MB).
// The sandbox runs as its own process: its CPU and memory are not counted.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  bareClientPosts,
  cpuMsOf,
  curlStudentPages,
  demoEnv,
  followedRun,
  inviteCsv,
  journalFollower,
  median,
  numberFlag,
  ROSTER,
  requireBuild,
  row,
  sendArgs,
  startDistrictSandbox,
  startSandbox,
  stringFlag,
  USAGE_PRELOAD,
} from './lib.js';

const STUDENTS = numberFlag('--students', 50_000);
const SCHOOLS = numberFlag('--schools', 25);
const ROUNDS = numberFlag('--rounds', 3);
const LATENCY_MS = numberFlag('--latency', 20);
const BIG = numberFlag('--big', 200_000);
const PAGE_SIZE = 1000;
const CPU_GOAL_US = 15;
/** Times one page is decoded and parsed for the reads' floor (pageFloor). */
const PAGE_FLOOR_TRIES = 50;
const CURL_GOAL = 0.5;
const MEMORY_GOAL_MB = 150;
const ROWS = numberFlag('--rows', 80_000);
const CONCURRENCY = 8;
const SEND_GOAL = 1.2;
const SEND_CPU_GOAL_MS = 0.3;
const RESUME_GOAL_MS = 2000;
const RESUME_AT = 0.75;
/** POSTs of the bare client that gives the send its floor (its CPU a POST does not depend on the count). */
const BARE_ROWS = 16_000;
const RESUME_STARTS = numberFlag('--starts', 5);
const PLAN_GOAL = 1.3;
const PLAN_MEMORY_GOAL_MB = 250;

requireBuild();

/**
 * Runs roster; resolves with wall ms, CPU µs, peak RSS MB, the lines of stdout (counted, not kept) and
 * stdout itself when `keep` (a --json summary).
 */
function measured(env, args, keep = false) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, ['--import', USAGE_PRELOAD, ROSTER, ...args], {
      env,
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    });
    let lines = 0;
    let kept = '';
    let stderr = '';
    let usage = '';
    child.stdout.on('data', (chunk) => {
      if (keep) kept += chunk;
      for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) lines++;
    });
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.stdio[3].on('data', (chunk) => (usage += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (code !== 0)
        return reject(new Error(`roster ${args.join(' ')} exited with ${code}: ${stderr.trim()}`));
      const { cpuUs, maxRssKb } = JSON.parse(usage);
      resolve({ ms, cpuUs, peakMb: maxRssKb / 1024, lines, stdout: kept });
    });
  });
}

const spread = (list, scale = (v) => v) =>
  `${scale(Math.min(...list)).toFixed(1)}–${scale(Math.max(...list)).toFixed(1)}`;

/** Records an export read: rows written plus rows left out, over its files (the manifest aside). */
function exportRecords(summary) {
  return JSON.parse(summary)
    .files.filter((f) => f.name !== 'manifest.csv')
    .reduce((sum, f) => sum + f.rows + f.omitted, 0);
}

/**
 * What one page of students costs before any of roster's own work: its bytes decoded from UTF-8 and parsed
 * (JSON.parse), in this process, PAGE_FLOOR_TRIES times: the CPU (user + system) per record. Writing the
 * records out again costs more on top.
 */
async function pageFloor(baseUrl, env) {
  const token = spawnSync(process.execPath, [ROSTER, 'token', '--endpoint', 'v1p1'], {
    env,
    encoding: 'utf8',
  });
  const answer = await fetch(`${baseUrl}/ims/oneroster/v1p1/students?limit=${PAGE_SIZE}&offset=0`, {
    headers: { authorization: `Bearer ${token.stdout.trim()}` },
  });
  const bytes = Buffer.from(await answer.arrayBuffer());
  const records = JSON.parse(bytes.toString('utf8')).users.length;
  JSON.parse(bytes.toString('utf8')); // warm-up
  const before = process.cpuUsage();
  for (let i = 0; i < PAGE_FLOOR_TRIES; i++) JSON.parse(bytes.toString('utf8'));
  const used = process.cpuUsage(before);
  return { records, us: (used.user + used.system) / PAGE_FLOOR_TRIES / records };
}

async function cpuPerRecord() {
  console.log(
    `\n# CPU per record: a district of ${STUDENTS.toLocaleString('en')} students in ${SCHOOLS} schools, no added latency (node ${process.version})`,
  );
  const sandbox = await startDistrictSandbox(STUDENTS, SCHOOLS);
  const dir = mkdtempSync(join(tmpdir(), 'roster-district-'));
  try {
    const env = demoEnv(sandbox.baseUrl);
    const runs = {
      'roster roster export --out DIR': {
        args: ['roster', 'export', '--out', join(dir, 'export'), '--force', '--json'],
        records: (result) => exportRecords(result.stdout),
        keep: true,
      },
      'roster roster students --all --ndjson': {
        args: ['roster', 'students', '--all', '--ndjson'],
        records: (result) => result.lines,
        keep: false,
      },
    };
    // Warm-up: the token, the sandbox's pages rendered once.
    for (const run of Object.values(runs)) await measured(env, run.args, run.keep);
    const results = Object.fromEntries(Object.keys(runs).map((label) => [label, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const [label, run] of Object.entries(runs)) {
        const result = await measured(env, run.args, run.keep);
        results[label].push({ ...result, records: run.records(result) });
      }
    }
    console.log(`median of ${ROUNDS} interleaved rounds (CPU: user + system of the client, every thread)`);
    for (const [label, list] of Object.entries(results)) {
      const perRecord = list.map((r) => r.cpuUs / r.records);
      const us = median(perRecord);
      const verdict = us <= CPU_GOAL_US ? `goal ≤ ${CPU_GOAL_US} µs met` : `goal ≤ ${CPU_GOAL_US} µs NOT met`;
      const records = list[0].records;
      console.log(
        `${label.padEnd(40)} ${records.toLocaleString('en').padStart(9)} records  ${us.toFixed(1).padStart(5)} µs CPU/record (${spread(perRecord)})  ${verdict}`,
      );
      console.log(
        `${''.padEnd(40)} CPU ${(median(list.map((r) => r.cpuUs)) / 1e6).toFixed(2)} s, wall ${(median(list.map((r) => r.ms)) / 1000).toFixed(2)} s, peak RSS ${Math.max(...list.map((r) => r.peakMb)).toFixed(1)} MB`,
      );
    }
    const floor = await pageFloor(sandbox.baseUrl, env);
    console.log(
      `${'one page alone: UTF-8 decode, JSON.parse'.padEnd(40)} ${floor.records.toLocaleString('en').padStart(9)} records  ${floor.us.toFixed(1).padStart(5)} µs CPU/record (the floor of any client that parses the pages whole, on this machine)`,
    );
  } finally {
    sandbox.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function againstCurl() {
  if (spawnSync('curl', ['--version']).status !== 0) {
    console.log('\n(curl not found: the comparison with a curl loop is skipped)');
    return;
  }
  console.log(
    `\n# Parallel pages: ${STUDENTS.toLocaleString('en')} students, pages of ${PAGE_SIZE}, sandbox latency ${LATENCY_MS} ms`,
  );
  const sandbox = await startSandbox([
    ...['--students', String(STUDENTS), '--schools', String(SCHOOLS), '--family-traps'],
    ...['--latency', String(LATENCY_MS)],
  ]);
  try {
    const env = demoEnv(sandbox.baseUrl);
    const read = ['roster', 'students', '--all', '--ndjson', '--page-size', String(PAGE_SIZE)];
    await measured(env, read); // warm-up
    const times = { curl: [], read: [], serving: [] };
    for (let round = 0; round < ROUNDS; round++) {
      const before = cpuMsOf(sandbox.pid);
      times.curl.push(curlStudentPages(sandbox.baseUrl, env, STUDENTS, PAGE_SIZE));
      const after = cpuMsOf(sandbox.pid);
      if (before !== undefined && after !== undefined) times.serving.push(after - before);
      times.read.push((await measured(env, read)).ms);
    }
    const curl = median(times.curl);
    console.log(`median of ${ROUNDS} interleaved rounds`);
    console.log(row('sequential curl loop (baseline)', curl, curl));
    console.log(
      `${row('roster roster students --all --ndjson', median(times.read), curl, CURL_GOAL)}  (range ${spread(times.read, (ms) => ms / curl)}×)`,
    );
    // The sandbox renders every page on one thread: no client, however fast, gets them all sooner.
    if (times.serving.length > 0)
      console.log(
        `${row("the sandbox's CPU serving them (a floor)", median(times.serving), curl)}  (range ${spread(times.serving, (ms) => ms / curl)}×)`,
      );
  } finally {
    sandbox.stop();
  }
}

async function bigRead() {
  console.log(`\n# Memory: ${BIG.toLocaleString('en')} students, --all --ndjson, pages of ${PAGE_SIZE}`);
  const sandbox = await startSandbox(['--students', String(BIG)]);
  try {
    const env = demoEnv(sandbox.baseUrl);
    const read = ['roster', 'students', '--all', '--ndjson', '--page-size', String(PAGE_SIZE)];
    await measured(env, read); // warm-up
    const { lines, peakMb, cpuUs } = await measured(env, read);
    if (lines !== BIG) throw new Error(`expected ${BIG} records, got ${lines}`);
    const verdict =
      peakMb <= MEMORY_GOAL_MB ? `goal ≤ ${MEMORY_GOAL_MB} MB met` : `goal ≤ ${MEMORY_GOAL_MB} MB NOT met`;
    console.log(
      `roster roster students --all --ndjson: peak RSS ${peakMb.toFixed(1)} MB  ${verdict}  (${(cpuUs / lines).toFixed(1)} µs CPU/record)`,
    );
  } finally {
    sandbox.stop();
  }
}

/** A send followed to its end; exit 5 (partial) is fine: rows in flight when a last run was killed are in doubt. */
async function followedSend(env, file, follower, stop) {
  const run = await followedRun(env, sendArgs(file, CONCURRENCY), { follower, stop });
  if (!stop && run.code !== 0 && run.code !== 5)
    throw new Error(`roster exited with ${run.code}: ${run.stderr.trim()}`);
  return run;
}

async function sends() {
  console.log(
    `\n# Sends: roster invite send --file of ${ROWS.toLocaleString('en')} invitations, sandbox latency ${LATENCY_MS} ms, --concurrency ${CONCURRENCY} (node ${process.version})`,
  );
  const sandbox = await startSandbox(['--latency', String(LATENCY_MS)]);
  const dir = mkdtempSync(join(tmpdir(), 'roster-district-send-'));
  try {
    const env = demoEnv(sandbox.baseUrl);
    // Warm-up: the token cached, as a second run in a day would have it. Its journal is another file's.
    await measured(env, sendArgs(inviteCsv(dir, 'warm-up', 2 * CONCURRENCY), CONCURRENCY));
    // Each measured run with a state folder of its own, so the follower finds its journal alone.
    const fresh = (tag) => ({ ...env, XDG_STATE_HOME: join(dir, `state-${tag}`) });
    const ideal = (ROWS * LATENCY_MS) / CONCURRENCY;
    const whole = fresh('whole');
    const follower = journalFollower(whole.XDG_STATE_HOME);
    const run = await followedSend(whole, inviteCsv(dir, 'whole', ROWS), follower);
    const cpuMs = run.cpuUs / 1000 / ROWS;
    console.log(row('ideal: rows × latency / concurrency', ideal, ideal));
    console.log(row('roster invite send --file', run.ms, ideal, SEND_GOAL));
    console.log(
      `CPU ${(run.cpuUs / 1e6).toFixed(1)} s, ${cpuMs.toFixed(3)} ms/row  ${cpuMs <= SEND_CPU_GOAL_MS ? 'goal' : 'goal NOT'} met (≤ ${SEND_CPU_GOAL_MS} ms);` +
        ` peak RSS ${run.peakMb.toFixed(1)} MB  ${run.peakMb <= MEMORY_GOAL_MB ? 'goal' : 'goal NOT'} met (≤ ${MEMORY_GOAL_MB} MB)`,
    );
    // The floor under both: what the requests alone cost, against the same sandbox, on this machine.
    const bareRows = Math.min(ROWS, BARE_ROWS);
    const bare = bareClientPosts(sandbox.baseUrl, env, bareRows, CONCURRENCY);
    const bareIdeal = (bareRows * LATENCY_MS) / CONCURRENCY;
    console.log(
      `${row(`a bare node:http client, ${bareRows.toLocaleString('en')} POSTs (the floor)`, bare.ms, bareIdeal)}  CPU ${(bare.cpuUs / 1000 / bareRows).toFixed(3)} ms/POST`,
    );

    // Resume: killed at 75% sent, then the same command again.
    const killAt = Math.floor(ROWS * RESUME_AT);
    const resumeEnv = fresh('resume');
    const file = inviteCsv(dir, 'resume', ROWS);
    const resumeFollower = journalFollower(resumeEnv.XDG_STATE_HOME);
    const killed = await followedSend(
      resumeEnv,
      file,
      resumeFollower,
      (seen) => seen.sent >= killAt && 'SIGKILL',
    );
    const sentBefore = resumeFollower.poll().sent;
    // Kept, so that the start can be measured again from the same state: one start is this machine's noise.
    const killedState = join(dir, 'killed-state');
    cpSync(resumeEnv.XDG_STATE_HOME, killedState, { recursive: true });
    resumeFollower.restart();
    const resumed = await followedSend(resumeEnv, file, resumeFollower);
    const starts = [resumed.firstMs, ...(await restarts(resumeEnv, file, killedState))];
    const start = median(starts);
    const left = ROWS - sentBefore;
    const firstRate = (1000 * ROWS) / (run.ms - (run.firstMs ?? 0));
    const rate = (1000 * left) / (resumed.ms - (resumed.firstMs ?? 0));
    console.log(
      `resume: killed after ${sentBefore.toLocaleString('en')} rows sent (${(killed.ms / 1000).toFixed(1)} s, peak RSS ${killed.peakMb.toFixed(1)} MB);` +
        ` re-run's first request after ${(start / 1000).toFixed(2)} s (median of ${starts.length} starts from that state, ${(Math.min(...starts) / 1000).toFixed(2)}–${(Math.max(...starts) / 1000).toFixed(2)} s; the re-run's own ${((resumed.firstMs ?? Number.NaN) / 1000).toFixed(2)} s)` +
        `  ${start < RESUME_GOAL_MS ? 'goal' : 'goal NOT'} met (< ${RESUME_GOAL_MS / 1000} s)`,
    );
    console.log(
      `        then ${left.toLocaleString('en')} rows at ${rate.toFixed(0)} rows/s against ${firstRate.toFixed(0)} rows/s in the whole run (${(rate / firstRate).toFixed(2)}×);` +
        ` re-run ${(resumed.ms / 1000).toFixed(1)} s, ${(resumed.cpuUs / 1000 / left).toFixed(3)} ms CPU/row, peak RSS ${resumed.peakMb.toFixed(1)} MB`,
    );
  } finally {
    sandbox.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The resumed run's start again (RESUME_STARTS in all, the whole re-run's among them), each from a copy of the
 * killed run's state and stopped (SIGINT) once its first request is journaled: ms to that request.
 */
async function restarts(env, file, killedState) {
  const starts = [];
  for (let i = 1; i < RESUME_STARTS; i++) {
    rmSync(env.XDG_STATE_HOME, { recursive: true, force: true });
    cpSync(killedState, env.XDG_STATE_HOME, { recursive: true });
    const follower = journalFollower(env.XDG_STATE_HOME);
    follower.restart();
    const run = await followedSend(
      env,
      file,
      follower,
      (seen) => seen.firstInFlightAt !== undefined && 'SIGINT',
    );
    starts.push(run.firstMs ?? Number.NaN);
  }
  return starts;
}

/**
 * The district's re-enrolment plan: `roster invite plan --all-schools` (one invitation per family and school
 * of every school) against `roster roster users --all --ndjson` of the same district (the read the plan
 * streams), interleaved rounds, medians; peak RSS of each.
 */
async function plans() {
  console.log(
    `\n# Plan: invite plan --all-schools of ${STUDENTS.toLocaleString('en')} students in ${SCHOOLS} schools, no added latency (node ${process.version})`,
  );
  const sandbox = await startDistrictSandbox(STUDENTS, SCHOOLS);
  const dir = mkdtempSync(join(tmpdir(), 'roster-district-plan-'));
  try {
    const env = demoEnv(sandbox.baseUrl);
    const read = ['roster', 'users', '--all', '--ndjson'];
    const out = join(dir, 'plan.csv');
    const plan = ['invite', 'plan', '--all-schools', '--out', out];
    await measured(env, read); // warm-up: the token, the sandbox's pages rendered once
    await measured(env, plan);
    const invitations = readFileSync(out, 'utf8').trimEnd().split('\n').length - 1;
    const runs = { read: [], plan: [] };
    for (let round = 0; round < ROUNDS; round++) {
      runs.read.push(await measured(env, read));
      runs.plan.push(await measured(env, plan));
    }
    const readMs = median(runs.read.map((r) => r.ms));
    const planMs = median(runs.plan.map((r) => r.ms));
    const peak = (list) => Math.max(...list.map((r) => r.peakMb));
    console.log(
      `median of ${ROUNDS} interleaved rounds; the plan holds ${invitations.toLocaleString('en')} invitations`,
    );
    console.log(
      `${row('roster roster users --all --ndjson (baseline)', readMs, readMs)}  peak RSS ${peak(runs.read).toFixed(1)} MB`,
    );
    console.log(
      `${row('roster invite plan --all-schools', planMs, readMs, PLAN_GOAL)}  peak RSS ${peak(runs.plan).toFixed(1)} MB  ${peak(runs.plan) <= PLAN_MEMORY_GOAL_MB ? 'goal' : 'goal NOT'} met (≤ ${PLAN_MEMORY_GOAL_MB} MB)`,
    );
  } finally {
    sandbox.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

// Each part as it prints.
const PARTS = [
  ['cpu', cpuPerRecord],
  ['curl', againstCurl],
  ['memory', bigRead],
  ['send', sends],
  ['plan', plans],
];

const only = stringFlag('--only');
for (const [part, measure] of PARTS) if (!only || only === part) await measure();
