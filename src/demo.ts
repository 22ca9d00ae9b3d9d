// `npm run demo`: starts the sandbox in this process and walks through an admin's main jobs with the
// real CLI (bin/roster.js in child processes), printing what the admin would see. Touches nothing of the
// user's own: a private HOME for the run, removed at the end.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSandbox } from './sandbox/server.js';

const bin = fileURLToPath(new URL('../bin/roster.js', import.meta.url));
const bold = (text: string) =>
  process.stdout.isTTY && !process.env.NO_COLOR ? `\u001b[1m${text}\u001b[22m` : text;

interface Step {
  say: string;
  /** Runs before the command (the sandbox's district changing, say). */
  before?: () => void;
  args: string[];
  env?: Record<string, string>;
  input?: string;
}

const quote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`;

/**
 * On a terminal each step runs under `script`, in a pseudo-terminal as wide as this one, so the demo shows
 * exactly what an admin sees (tables, colour); elsewhere (CI logs) through plain pipes.
 */
function command(args: string[]): [string, string[]] {
  if (!process.stdout.isTTY || !existsSync('/usr/bin/script')) return [process.execPath, [bin, ...args]];
  const line = [process.execPath, bin, ...args].map(quote).join(' ');
  const width = Math.max(60, (process.stdout.columns || 100) - 4);
  return ['/usr/bin/script', ['-qec', `stty cols ${width} 2>/dev/null; exec ${line}`, '/dev/null']];
}

function run(step: Step, env: NodeJS.ProcessEnv): Promise<number | null> {
  return new Promise((resolve) => {
    const [file, args] = command(step.args);
    const child = spawn(file, args, { env: { ...env, ...step.env }, stdio: ['pipe', 'pipe', 'pipe'] });
    const indent = (chunk: Buffer) =>
      chunk
        .toString()
        .replace(/\r\n/g, '\n')
        .replace(/^(?=.)/gm, '    ');
    child.stdout.on('data', (chunk: Buffer) => process.stdout.write(indent(chunk)));
    child.stderr.on('data', (chunk: Buffer) => process.stdout.write(indent(chunk)));
    child.on('close', resolve);
    child.stdin.end(step.input ?? '');
  });
}

// With the family traps, so the campaign shows who it cannot reach and why.
const sandbox = await startSandbox({ oneroster: { students: 1200, familyTraps: true } });
const home = mkdtempSync(join(tmpdir(), 'roster-demo-'));
const allowed = sandbox.clients.find((c) => c.clientId === 'demo-allowed')!;
const refused = sandbox.clients.find((c) => c.clientId === 'demo-refused')!;
const baseEnv: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  HOME: home,
  XDG_CONFIG_HOME: join(home, 'config'),
  XDG_CACHE_HOME: join(home, 'cache'),
  XDG_STATE_HOME: join(home, 'state'),
  NO_COLOR: process.env.NO_COLOR,
  ROSTER_BASE_URL: sandbox.baseUrl,
  ROSTER_CLIENT_ID: allowed.clientId,
  ROSTER_CLIENT_SECRET: allowed.clientSecret,
};

/** The campaign plan of Alder Elementary, written to a file in the demo's home, with more flags if given. */
const planAlder = (file: string, ...more: string[]) => [
  'invite',
  'plan',
  '--school',
  'Alder Elementary School',
  '--out',
  join(home, file),
  ...more,
  '--no-input',
];

const steps: Step[] = [
  { say: 'Get an access token (cached for the next commands)', args: ['token'] },
  { say: 'Which profile, which credentials, which token', args: ['status'] },
  { say: 'Go-live check for attendance-daily: an allowed client', args: ['attendance', 'check'] },
  {
    say: 'The same check for a client the district has not enabled (exit 3)',
    args: ['attendance', 'check'],
    env: { ROSTER_CLIENT_ID: refused.clientId, ROSTER_CLIENT_SECRET: refused.clientSecret },
  },
  {
    say: 'Send one enrollment invitation, the school given by name (--yes: no confirmation prompt in a script)',
    args: [
      'invite',
      'send',
      '--email',
      'parent@example.org',
      '--school-id',
      'Alder Elementary School',
      '--sent-by-user-id',
      'adm-001',
      '--yes',
    ],
  },
  { say: 'List the invitations sent', args: ['invite', 'list', '--school-id', 'org-sch-1'] },
  {
    say: "A campaign: plan the re-enrolment at Alder from the roster's families (one invitation per family e-mail, counting its children; who is left out, and why)",
    args: planAlder('alder.csv', '--uncovered-csv', join(home, 'alder-uncovered.csv')),
  },
  {
    say: 'Send the plan with the bulk sender (its journal: resumable, each family e-mailed exactly once)',
    before: () => {
      const lines = readFileSync(join(home, 'alder-uncovered.csv'), 'utf8').trim().split(/\r?\n/);
      console.log(
        `  The students left out, for the office to fix in the SIS (${lines.length - 1}; the first few):`,
      );
      for (const line of lines.slice(0, 6)) console.log(`    ${line}`);
    },
    args: ['invite', 'send', '--file', join(home, 'alder.csv'), '--sent-by-user-id', 'adm-001', '--yes'],
  },
  {
    say: 'Plan again right after: nobody left to invite (roster keeps a record of the invitations it sent)',
    args: planAlder('alder-again.csv'),
  },
  {
    say: "The go-live data audit: the SIS records behind those left out, and what else to fix (--fail-on never: report, don't fail)",
    args: ['roster', 'audit', '--school', 'Alder Elementary School', '--fail-on', 'never'],
  },
  { say: 'Read students over OneRoster 1.1', args: ['roster', 'students', '--limit', '5'] },
  {
    say: 'The same in OneRoster 1.2, filtered, as NDJSON for a script',
    args: [
      'roster',
      'students',
      '--oneroster',
      '1.2',
      '--filter',
      "givenName='Zoë'",
      '--limit',
      '2',
      '--ndjson',
      '--fields',
      'sourcedId,givenName,familyName',
    ],
  },
  {
    say: 'What changed: a first --since last run reads everything (here into CSV files) and keeps the server clock',
    args: [
      'roster',
      'changes',
      'users',
      'enrollments',
      '--since',
      'last',
      '--csv',
      '--out',
      join(home, 'changes'),
    ],
  },
  {
    say: 'The district changes (POST /__sandbox/churn?n=8); the next --since last reports exactly those records',
    before: () => {
      for (const c of sandbox.churn(8)) console.log(`  sandbox: ${c.change} ${c.collection}/${c.sourcedId}`);
    },
    args: ['roster', 'changes', 'users', 'enrollments', '--since', 'last'],
  },
];

console.log(
  bold(`roster demo: a sandbox of the Rostering and Enrollment API is running at ${sandbox.baseUrl}`),
);
console.log(
  `Credentials come from the environment here (ROSTER_CLIENT_ID=${allowed.clientId}, ROSTER_CLIENT_SECRET=…).\n`,
);
let failures = 0;
try {
  for (const step of steps) {
    console.log(bold(`# ${step.say}`));
    step.before?.();
    console.log(`$ roster ${step.args.map((a) => (/[\s'"=]/.test(a) ? `"${a}"` : a)).join(' ')}`);
    const code = await run(step, baseEnv);
    const expected = step.env?.ROSTER_CLIENT_ID === refused.clientId ? 3 : 0;
    if (code !== expected) failures++;
    console.log(`  (exit ${code})\n`);
  }
  const sent = sandbox.outbox[0];
  if (sent)
    console.log(
      bold(
        `The sandbox "sent" ${sandbox.outbox.length} e-mail(s); the first, to ${sent.to}, links to ${sent.enrollmentLink.replace(/token=.*/, 'token=…')}`,
      ),
    );
} finally {
  await sandbox.close();
  rmSync(home, { recursive: true, force: true });
}
if (failures > 0) {
  console.log(`${failures} step(s) did not end as expected.`);
  process.exitCode = 1;
}
