// Quick harness for issue 23's resume goal: how long a re-run of `invite send --file` takes before its first
// request leaves, after a run killed at 60% of a district's rows. The district bench (district.js --only send)
// measures the same once, in minutes; this one kills a run once, keeps its state folder aside and times the
// re-run's start several times against copies of it (each re-run is stopped at its first in-flight entry).
//   node test/bench/resume-start.js [--rows 80000] [--runs 5] [--prof DIR] [--full] [--keep DIR]
// --keep DIR: the killed run's file and state are kept in DIR and reused by the next call with the same DIR
// (the sandbox then listens on a fixed port, which the database's name depends on).
// --prof DIR: each re-run writes a V8 CPU profile there (stopped by SIGINT, so the profile is written).
// --full: one more re-run sent to the end, for its peak RSS.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  demoEnv,
  followedRun,
  inviteCsv,
  journalFollower,
  median,
  numberFlag,
  requireBuild,
  sendArgs,
  startSandbox,
  stringFlag,
} from './lib.js';

const ROWS = numberFlag('--rows', 80_000);
const RUNS = numberFlag('--runs', 5);
const PROF = stringFlag('--prof');
const FULL = process.argv.slice(2).includes('--full');
const KEEP = stringFlag('--keep');
const PORT = 47_231;

requireBuild();

/** A send (`stop` as followedRun's), its journal followed (`resumed`: from what the killed run left). */
function run(env, file, { resumed = false, stop, nodeArgs }) {
  const follower = journalFollower(env.XDG_STATE_HOME);
  if (resumed) follower.restart();
  return followedRun(env, sendArgs(file), { follower, stop, nodeArgs });
}

const sandbox = await startSandbox(['--latency', '1', ...(KEEP ? ['--port', String(PORT)] : [])]);
try {
  const env = demoEnv(sandbox.baseUrl);
  const dir = KEEP ?? mkdtempSync(join(tmpdir(), 'roster-resume-'));
  mkdirSync(dir, { recursive: true });
  const saved = join(dir, 'state-saved');
  const file = join(dir, 'resume.csv'); // inviteCsv's name for the tag 'resume'
  const state = env.XDG_STATE_HOME;
  if (!existsSync(saved)) {
    inviteCsv(dir, 'resume', ROWS);
    const killAt = Math.floor(ROWS * 0.6);
    const first = await run(env, file, { stop: (seen) => seen.sent >= killAt && 'SIGKILL' });
    console.log(
      `killed run: ${first.sent} sent in ${(first.ms / 1000).toFixed(1)} s, peak RSS ${first.peakMb.toFixed(1)} MB`,
    );
    spawnSync('cp', ['-a', state, saved]);
  }
  const restore = () => {
    spawnSync('rm', ['-rf', state]);
    spawnSync('cp', ['-a', saved, state]);
  };
  restore();
  const times = [];
  for (let i = 0; i < RUNS; i++) {
    restore();
    const nodeArgs = PROF ? ['--cpu-prof', '--cpu-prof-dir', PROF] : [];
    const r = await run(env, file, {
      resumed: true,
      nodeArgs,
      stop: (seen) => seen.firstInFlightAt !== undefined && (PROF ? 'SIGINT' : 'SIGKILL'),
    });
    times.push(r.firstMs);
    console.log(
      `re-run ${i + 1}: first request after ${r.firstMs?.toFixed(0)} ms, peak RSS by then ${r.peakMb.toFixed(1)} MB`,
    );
  }
  console.log(`median time to first request: ${median(times).toFixed(0)} ms`);
  if (FULL) {
    restore();
    const r = await run(env, file, { resumed: true });
    console.log(
      `full re-run: exit ${r.code}, ${r.sent} sent in ${(r.ms / 1000).toFixed(1)} s, first request after ${r.firstMs?.toFixed(0)} ms, peak RSS ${r.peakMb.toFixed(1)} MB`,
    );
  }
} finally {
  sandbox.stop();
}
