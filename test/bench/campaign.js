// Campaign benchmark (issue 14): `roster invite plan` for one school of 2,000 students in a district of
// 50,000 students (25 schools) and ~80,000 guardians, beside `roster roster users --all --ndjson > /dev/null`
// of the same district, in the same run: the plan reads the school's students and streams the district's
// users once, so its time is that read's, plus a little. Both run as their own processes against the
// sandbox (its own process, not counted); peak RSS is reported by each client itself as it exits.
// Goals: the plan at most 1.3× the read's time, at most 250 MB peak RSS.
//
//   npm run bench -- campaign            (builds first)
//   node test/bench/campaign.js --students 50000 --schools 25 --rounds 3
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { demoEnv, median, numberFlag, requireBuild, row, startDistrictSandbox, timedRoster } from './lib.js';

const STUDENTS = numberFlag('--students', 50_000);
const SCHOOLS = numberFlag('--schools', 25);
const ROUNDS = numberFlag('--rounds', 3);
const TIME_GOAL = 1.3;
const MEMORY_GOAL_MB = 250;

requireBuild();

console.log(
  `# ${STUDENTS.toLocaleString('en')} students in ${SCHOOLS} schools; the plan for org-sch-1 (node ${process.version})`,
);
// With the family traps, as the figures in docs/performance.md were measured: students left out, refused e-mails.
const sandbox = await startDistrictSandbox(STUDENTS, SCHOOLS);
try {
  const env = demoEnv(sandbox.baseUrl);
  const out = join(mkdtempSync(join(tmpdir(), 'roster-campaign-')), 'plan.csv');
  const read = ['roster', 'users', '--all', '--ndjson'];
  const plan = ['invite', 'plan', '--school', 'org-sch-1', '--out', out];
  // Warm-up: the token and the schools cached, the sandbox's pages rendered once.
  await timedRoster(env, read);
  const warm = await timedRoster(env, plan);
  console.log(
    warm.stderr
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('Alder'))
      .join('\n'),
  );
  const times = { read: [], plan: [] };
  const peaks = { read: [], plan: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const [label, args] of [
      ['read', read],
      ['plan', plan],
    ]) {
      const { ms, peakMb } = await timedRoster(env, args);
      times[label].push(ms);
      peaks[label].push(peakMb);
    }
  }
  const base = median(times.read);
  const range = (list) =>
    `(range ${(Math.min(...list) / base).toFixed(2)}–${(Math.max(...list) / base).toFixed(2)}×)`;
  console.log(`median of ${ROUNDS} interleaved rounds`);
  console.log(
    `${row('roster roster users --all --ndjson > /dev/null', base, base)}  peak RSS ${Math.max(...peaks.read).toFixed(1)} MB`,
  );
  console.log(
    `${row('roster invite plan --school org-sch-1 --out FILE', median(times.plan), base, TIME_GOAL)}  ${range(times.plan)}`,
  );
  const peak = Math.max(...peaks.plan);
  console.log(
    `invite plan peak RSS ${peak.toFixed(1)} MB  ${peak <= MEMORY_GOAL_MB ? `goal ≤ ${MEMORY_GOAL_MB} MB met` : `goal ≤ ${MEMORY_GOAL_MB} MB NOT met`}`,
  );
} finally {
  sandbox.stop();
}
