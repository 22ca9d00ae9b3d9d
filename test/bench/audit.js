// Audit benchmark (issue 22): `roster roster audit` of a district of 50,000 students (25 schools, ~80,000
// guardians, every collection the audit reads) beside `roster roster export --out DIR` of the same district
// in the same run: both read orgs, academic sessions, courses, classes, users and enrollments once through
// the pager; the export writes them, the audit indexes them and runs its checks. Both run as their own
// processes against the sandbox (its own process, not counted); peak RSS is reported by each client itself.
// Goals: the audit at most 1.5× the export's time, at most 400 MB peak RSS.
//
//   npm run bench -- audit            (builds first)
//   node test/bench/audit.js --students 50000 --schools 25 --rounds 3
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { demoEnv, median, numberFlag, requireBuild, row, startDistrictSandbox, timedRoster } from './lib.js';

const STUDENTS = numberFlag('--students', 50_000);
const SCHOOLS = numberFlag('--schools', 25);
const ROUNDS = numberFlag('--rounds', 3);
const TIME_GOAL = 1.5;
const MEMORY_GOAL_MB = 400;

requireBuild();

console.log(
  `# ${STUDENTS.toLocaleString('en')} students in ${SCHOOLS} schools: audit against export (node ${process.version})`,
);
// With the family traps, as the figures in docs/performance.md were measured: findings to keep and report.
const sandbox = await startDistrictSandbox(STUDENTS, SCHOOLS);
try {
  const env = demoEnv(sandbox.baseUrl);
  const dir = mkdtempSync(join(tmpdir(), 'roster-audit-bench-'));
  const exportArgs = ['roster', 'export', '--out', join(dir, 'export')];
  // The district's traps are warnings and errors: never fail.
  const auditArgs = ['roster', 'audit', '--fail-on', 'never'];
  // Warm-up: the token, the sandbox's pages rendered once.
  await timedRoster(env, exportArgs);
  const warm = await timedRoster(env, auditArgs);
  console.log(warm.stderr.trim().split('\n').at(-1));
  const times = { export: [], audit: [] };
  const peaks = { export: [], audit: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const [label, args] of [
      ['export', exportArgs],
      ['audit', auditArgs],
    ]) {
      const { ms, peakMb } = await timedRoster(env, args);
      times[label].push(ms);
      peaks[label].push(peakMb);
    }
  }
  const base = median(times.export);
  const range = (list) =>
    `(range ${(Math.min(...list) / base).toFixed(2)}–${(Math.max(...list) / base).toFixed(2)}×)`;
  console.log(`median of ${ROUNDS} interleaved rounds`);
  console.log(
    `${row('roster roster export --out DIR', base, base)}  peak RSS ${Math.max(...peaks.export).toFixed(1)} MB`,
  );
  console.log(`${row('roster roster audit', median(times.audit), base, TIME_GOAL)}  ${range(times.audit)}`);
  const peak = Math.max(...peaks.audit);
  console.log(
    `audit peak RSS ${peak.toFixed(1)} MB  ${peak <= MEMORY_GOAL_MB ? `goal ≤ ${MEMORY_GOAL_MB} MB met` : `goal ≤ ${MEMORY_GOAL_MB} MB NOT met`}`,
  );
} finally {
  sandbox.stop();
}
