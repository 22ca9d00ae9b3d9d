// Shared by the benchmark scripts: start the sandbox as its own process, time commands, print ratios.

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const ROOT = new URL('../..', import.meta.url).pathname;
export const ROSTER = join(ROOT, 'bin', 'roster.js');

/** Starts `roster sandbox` on an ephemeral port; resolves with its base URL and a stop function. */
export function startSandbox(args = []) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [ROSTER, 'sandbox', '--port', '0', '--quiet', ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = /Sandbox listening on (\S+)/.exec(out);
      if (match) resolve({ baseUrl: match[1], pid: child.pid, stop: () => child.kill('SIGINT') });
    });
    child.on('exit', (code) => reject(new Error(`sandbox exited with ${code}`)));
  });
}

/** The district the figures of docs/performance.md were measured on: `students` in `schools`, with the family traps. */
export function startDistrictSandbox(students, schools) {
  return startSandbox(['--students', String(students), '--schools', String(schools), '--family-traps']);
}

/** The value of a command-line flag of a bench script (`--keep DIR`), or undefined. */
export function stringFlag(name) {
  const argv = process.argv.slice(2);
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
}

/** A numeric command-line flag of a bench script (`--students 50000`), or its default. */
export function numberFlag(name, fallback) {
  const value = stringFlag(name);
  return value !== undefined ? Number(value) : fallback;
}

/** Exits with a hint when dist/ has not been built (the scripts also run alone). */
export function requireBuild() {
  if (!existsSync(join(ROOT, 'dist', 'cli.js'))) {
    console.error('dist/ is missing: run `npm run build` first.');
    process.exit(2);
  }
}

/**
 * CPU time (user + system, ms) a running process has used so far, from /proc (clock ticks of 10 ms, Linux's
 * USER_HZ); undefined where there is no /proc.
 */
export function cpuMsOf(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/** A preload (node --import) that reports the process's own peak RSS (kB) on file descriptor 3 as it exits. */
export const PEAK_RSS_PRELOAD = `data:text/javascript,${encodeURIComponent(
  "import{writeSync}from'node:fs';process.on('exit',()=>{try{writeSync(3,String(process.resourceUsage().maxRSS))}catch{}});",
)}`;

/** A preload that reports, at exit and on file descriptor 3, the process's CPU time (µs, every thread) and peak RSS (kB). */
export const USAGE_PRELOAD = `data:text/javascript,${encodeURIComponent(
  "import{writeSync}from'node:fs';process.on('exit',()=>{try{const u=process.cpuUsage();writeSync(3,JSON.stringify({cpuUs:u.user+u.system,maxRssKb:process.resourceUsage().maxRSS}))}catch{}});",
)}`;

/**
 * Follows the peak RSS of a child started with PEAK_RSS_PRELOAD and file descriptor 3 piped: its own report
 * at exit, or /proc polling where it could not report. Returns a function giving MB once the child closed.
 */
export function followPeakRss(child) {
  let reported = '';
  let polledKb = 0;
  child.stdio[3].on('data', (chunk) => (reported += chunk));
  const poll = setInterval(() => {
    try {
      const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      if (match) polledKb = Math.max(polledKb, Number(match[1]));
    } catch {
      // no /proc here, or the process just ended
    }
  }, 20);
  child.on('close', () => clearInterval(poll));
  return () => Math.max(Number(reported) || 0, polledKb) / 1024;
}

/** Runs roster with stdout discarded; resolves with milliseconds, peak RSS in MB and stderr. */
export function timedRoster(env, args) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, ['--import', PEAK_RSS_PRELOAD, ROSTER, ...args], {
      env,
      stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const peakMb = followPeakRss(child);
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (code !== 0)
        return reject(new Error(`roster ${args.join(' ')} exited with ${code}: ${stderr.trim()}`));
      resolve({ ms, peakMb: peakMb(), stderr });
    });
  });
}

/** A private HOME so benchmarks never touch the user's profiles or token cache. */
export function benchEnv(extra = {}) {
  const home = mkdtempSync(join(tmpdir(), 'roster-bench-'));
  return {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: join(home, 'config'),
    XDG_CACHE_HOME: join(home, 'cache'),
    XDG_STATE_HOME: join(home, 'state'),
    NO_COLOR: '1',
    ...extra,
  };
}

/** benchEnv with the sandbox's demo credentials in the environment (no login, nothing saved). */
export function demoEnv(baseUrl) {
  return benchEnv({
    ROSTER_BASE_URL: baseUrl,
    ROSTER_CLIENT_ID: 'demo-allowed',
    ROSTER_CLIENT_SECRET: 'riverside-secret-2024',
  });
}

/** The middle value of a list of numbers (the upper one of an even list). */
export const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];

/** Median wall time in ms of `runs` runs of a command (after one warm-up run). */
export function medianMs(command, args, env, runs) {
  const times = [];
  for (let i = 0; i <= runs; i++) {
    const started = process.hrtime.bigint();
    const result = spawnSync(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    if (result.status !== 0) {
      throw new Error(`${command} ${args.join(' ')} failed (${result.status}): ${result.stderr}`);
    }
    if (i > 0) times.push(ms);
  }
  return median(times);
}

/**
 * Wall times in ms of several commands measured in interleaved rounds (one run of each per round, after one
 * warm-up round), so a machine that gets busier or quieter mid-run shifts them all alike.
 * `commands` maps a label to [command, args, env]; the result maps it to its times, round by round.
 */
export function interleavedTimes(commands, runs) {
  const times = Object.fromEntries(Object.keys(commands).map((label) => [label, []]));
  for (let i = 0; i <= runs; i++) {
    for (const [label, [command, args, env]] of Object.entries(commands)) {
      const started = process.hrtime.bigint();
      const result = spawnSync(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (result.status !== 0) {
        throw new Error(`${command} ${args.join(' ')} failed (${result.status}): ${result.stderr}`);
      }
      if (i > 0) times[label].push(ms);
    }
  }
  return times;
}

export function row(label, ms, baselineMs, goal) {
  const ratio = ms / baselineMs;
  const verdict =
    goal === undefined ? '' : ratio <= goal ? `  goal ≤ ${goal}× met` : `  goal ≤ ${goal}× NOT met`;
  return `${label.padEnd(44)} ${ms.toFixed(1).padStart(8)} ms  ${ratio.toFixed(2).padStart(5)}×${verdict}`;
}

/**
 * A sequential curl loop over the students' pages (one curl process, keep-alive, output discarded), with a
 * token roster got for it: the wall milliseconds of the pages alone, the yardstick of a read.
 */
export function curlStudentPages(baseUrl, env, students, pageSize) {
  const token = spawnSync(process.execPath, [ROSTER, 'token', '--endpoint', 'v1p1'], {
    env,
    encoding: 'utf8',
  });
  if (token.status !== 0) throw new Error(`roster token failed: ${token.stderr}`);
  const args = ['-sf', '-H', `Authorization: Bearer ${token.stdout.trim()}`];
  for (let offset = 0; offset < students; offset += pageSize) {
    args.push(`${baseUrl}/ims/oneroster/v1p1/students?limit=${pageSize}&offset=${offset}`, '-o', '/dev/null');
  }
  const started = process.hrtime.bigint();
  const result = spawnSync('curl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) throw new Error(`curl failed (${result.status}): ${result.stderr}`);
  return ms;
}

/** A CSV of `rows` invitations to fresh addresses (rows already in a journal would be skipped, not sent). */
export function inviteCsv(dir, tag, rows) {
  const file = join(dir, `${tag}.csv`);
  const lines = ['email,schoolId,studentCount'];
  for (let i = 0; i < rows; i++) lines.push(`${tag}-${i}@example.org,org-sch-${(i % 5) + 1},1`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

/**
 * Follows the journal of a run (in the one database under the private state folder's sent/) as it grows:
 * counts rows journaled sent and notes when the first in-flight entry appeared. Call poll() on a timer.
 */
export function journalFollower(stateHome) {
  const folder = join(stateHome, 'roster', 'sent');
  const { DatabaseSync } = createRequire(import.meta.url)('node:sqlite');
  let path;
  /** What was there when restart() was called: the sent rows, and the latest in-flight entry's time. */
  const base = { sent: 0, inFlightAt: '' };
  const seen = { sent: 0, firstInFlightAt: undefined };
  const read = () => {
    if (!path) {
      try {
        const name = readdirSync(folder).find((f) => f.endsWith('.db'));
        if (name) path = join(folder, name);
      } catch {}
      if (!path) return undefined;
    }
    try {
      const db = new DatabaseSync(path, { readOnly: true });
      try {
        return db
          .prepare(
            `SELECT (SELECT COUNT(*) FROM journal WHERE state = 'sent') AS sent,
              (SELECT COALESCE(MAX(at), '') FROM journal WHERE state = 'in-flight') AS inFlightAt`,
          )
          .get();
      } finally {
        db.close();
      }
    } catch {
      return undefined; // not made yet, or being made
    }
  };
  const poll = () => {
    const now = read();
    if (!now) return seen;
    seen.sent = now.sent - base.sent;
    if (seen.firstInFlightAt === undefined && now.inFlightAt > base.inFlightAt)
      seen.firstInFlightAt = process.hrtime.bigint();
    return seen;
  };
  /** Reads what is there, then counts afresh: what follows is a new run's. */
  const restart = () => {
    Object.assign(base, read() ?? { sent: 0, inFlightAt: '' });
    seen.sent = 0;
    seen.firstInFlightAt = undefined;
  };
  return { poll, restart };
}

/** `roster invite send --file` of a bench's CSV: every row confirmed, no prompt. */
export const sendArgs = (file, concurrency = 8) => [
  ...['invite', 'send', '--file', file, '--yes', '--sent-by-user-id', 'usr-1'],
  ...['--concurrency', String(concurrency)],
];

/** A bare client's POSTs (bareClientPosts): node:http, keep-alive, no journal, record or checks. */
const BARE_CLIENT = `
import http from 'node:http';
const { BARE_URL, BARE_TOKEN } = process.env;
const n = Number(process.env.BARE_N);
const concurrency = Number(process.env.BARE_CONCURRENCY);
const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
const post = (i) => new Promise((resolve, reject) => {
  const body = JSON.stringify({ email: 'bare-' + i + '@example.org', schoolId: 'org-sch-1', scopes: ['fillEnrollment'], studentCount: 1, sentByUserId: 'usr-1' });
  const headers = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: 'Bearer ' + BARE_TOKEN };
  const req = http.request(BARE_URL + '/enrollment/invitations', { method: 'POST', agent, headers }, (res) => {
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (chunk) => (text += chunk));
    res.on('end', () => (res.statusCode === 201 || res.statusCode === 200 ? resolve(JSON.parse(text)) : reject(new Error(res.statusCode + ' ' + text))));
  });
  req.on('error', reject);
  req.end(body);
});
let next = 0;
const started = performance.now();
await Promise.all(Array.from({ length: concurrency }, async () => { while (next < n) await post(next++); }));
const ms = performance.now() - started;
const usage = process.cpuUsage();
agent.destroy();
console.log(JSON.stringify({ ms, cpuUs: usage.user + usage.system }));
`;

/**
 * The floor under a send: a bare node:http client (keep-alive, `concurrency` sockets; no journal, no record,
 * no checks) POSTing `n` invitations to the sandbox, in a process of its own, with a token roster got for
 * it. Wall ms of the POSTs, and the process's CPU µs (start-up included, ~50 ms).
 */
export function bareClientPosts(baseUrl, env, n, concurrency) {
  const token = spawnSync(process.execPath, [ROSTER, 'token', '--endpoint', 'v1p1'], {
    env,
    encoding: 'utf8',
  });
  if (token.status !== 0) throw new Error(`roster token failed: ${token.stderr}`);
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', BARE_CLIENT], {
    env: {
      ...env,
      BARE_URL: baseUrl,
      BARE_TOKEN: token.stdout.trim(),
      BARE_N: String(n),
      BARE_CONCURRENCY: String(concurrency),
    },
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`the bare client failed: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

/**
 * Runs roster (stdout discarded) under USAGE_PRELOAD, polling `follower` (journalFollower) every 5 ms;
 * `stop(seen)` returning a signal name sends it that signal, once. Resolves with wall ms, the exit code,
 * stderr, CPU µs (when it exited by itself), peak RSS MB, ms to its first in-flight entry and the rows
 * journaled sent.
 */
export function followedRun(env, args, { follower, stop, nodeArgs = [] }) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, [...nodeArgs, '--import', USAGE_PRELOAD, ROSTER, ...args], {
      env,
      stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let usage = '';
    let signalled = false;
    let firstMs;
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.stdio[3].on('data', (chunk) => (usage += chunk));
    const peakMb = followPeakRss(child);
    const timer = setInterval(() => {
      const seen = follower.poll();
      if (firstMs === undefined && seen.firstInFlightAt !== undefined)
        firstMs = Number(seen.firstInFlightAt - started) / 1e6;
      const signal = !signalled && stop?.(seen);
      if (signal) {
        signalled = true;
        child.kill(signal);
      }
    }, 5);
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(timer);
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      let report = {};
      try {
        report = JSON.parse(usage);
      } catch {} // killed: no report
      resolve({
        ms,
        code,
        stderr,
        cpuUs: report.cpuUs,
        peakMb: Math.max(peakMb(), (report.maxRssKb ?? 0) / 1024),
        firstMs,
        sent: follower.poll().sent,
      });
    });
  });
}
