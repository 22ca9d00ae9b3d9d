// Start-up benchmark: median wall time of roster commands against `node -e 0` (and curl for the
// attendance request), measured in the same run, in interleaved rounds, because absolute times drift on
// shared machines.
// Run: npm run build && node test/bench/startup.js [runs]
import { execFileSync } from 'node:child_process';
import { benchEnv, interleavedMedians, ROSTER, row, startSandbox } from './lib.js';

const runs = Number(process.argv[2] ?? 25);
const sandbox = await startSandbox();
try {
  const env = benchEnv({
    ROSTER_BASE_URL: sandbox.baseUrl,
    ROSTER_CLIENT_ID: 'demo-allowed',
    ROSTER_CLIENT_SECRET: 'riverside-secret-2024',
  });
  // Caches a token for the runs below.
  const token = JSON.parse(
    execFileSync(process.execPath, [ROSTER, 'token', '--json'], { env, encoding: 'utf8' }),
  ).access_token;
  const roster = (...args) => [process.execPath, [ROSTER, ...args], env];
  const t = interleavedMedians(
    {
      node: [process.execPath, ['-e', '0'], env],
      version: roster('--version'),
      help: roster('--help'),
      token: roster('token'),
      attendance: roster('attendance', 'check'),
      curl: [
        'curl',
        ['-sf', '-H', `Authorization: Bearer ${token}`, `${sandbox.baseUrl}/attendance/status`],
        env,
      ],
    },
    runs,
  );

  console.log(`Start-up, median of ${runs} interleaved runs (node ${process.version})`);
  console.log(row('node -e 0 (baseline)', t.node, t.node));
  console.log(row('roster --version', t.version, t.node, 1.3));
  console.log(row('roster --help', t.help, t.node));
  console.log(row('roster token (cached)', t.token, t.node, 1.6));
  console.log(row('roster attendance check (cached token)', t.attendance, t.node, 2.0));
  console.log(row('curl, the same attendance request', t.curl, t.node));
} finally {
  sandbox.stop();
}
