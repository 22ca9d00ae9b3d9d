// Start-up benchmark: median wall time of roster commands against `node -e 0` (and curl for the
// attendance request), measured in the same run because absolute times drift on shared machines.
// Run: npm run build && node test/bench/startup.js [runs]
import { benchEnv, medianMs, ROSTER, row, startSandbox } from './lib.js';

const runs = Number(process.argv[2] ?? 25);
const sandbox = await startSandbox();
try {
  const env = benchEnv({
    ROSTER_BASE_URL: sandbox.baseUrl,
    ROSTER_CLIENT_ID: 'demo-allowed',
    ROSTER_CLIENT_SECRET: 'riverside-secret-2024',
  });
  const roster = (...args) => medianMs(process.execPath, [ROSTER, ...args], env, runs);
  roster('token'); // caches a token for the runs below

  const node = medianMs(process.execPath, ['-e', '0'], env, runs);
  const token = JSON.parse(
    (await import('node:child_process')).execFileSync(process.execPath, [ROSTER, 'token', '--json'], {
      env,
      encoding: 'utf8',
    }),
  ).access_token;
  const curl = medianMs(
    'curl',
    ['-sf', '-H', `Authorization: Bearer ${token}`, `${sandbox.baseUrl}/attendance/status`],
    env,
    runs,
  );

  console.log(`Start-up, median of ${runs} runs (node ${process.version})`);
  console.log(row('node -e 0 (baseline)', node, node));
  console.log(row('roster --version', roster('--version'), node, 1.3));
  console.log(row('roster --help', roster('--help'), node));
  console.log(row('roster token (cached)', roster('token'), node, 1.6));
  console.log(row('roster attendance check (cached token)', roster('attendance', 'check'), node, 2.0));
  console.log(row('curl, the same attendance request', curl, node));
} finally {
  sandbox.stop();
}
