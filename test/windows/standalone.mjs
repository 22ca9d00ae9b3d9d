// The Windows standalone executable (`npm run release`: release/work/win-x64/roster.exe) as Windows runs it,
// end to end against the sandbox, under Wine 10 in a Debian 13 folder (wine10.mjs; Node 26 for Windows
// aborts at start under Debian 12's Wine 8: "Fatal process out of memory: SegmentedTable::InitializeTable"). The
// sandbox and this script run under Linux Node on 127.0.0.1 and count what reached the server. Each check
// prints "ok" or "FAIL"; the last line is `windows-standalone: N passed, N failed` (exit 1 when any failed).
// Needs root (chroot). Run: ROSTER_WINE_ROOT=<folder> node test/windows/standalone.mjs
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import {
  closeSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { startBundledSandbox } from './sandbox.mjs';
import { wineIn, wineRoot } from './wine10.mjs';

const execFileAsync = promisify(execFile);
const repo = join(import.meta.dirname, '..', '..');
const chroot = wineRoot();
const exe = join(repo, 'release', 'work', 'win-x64', 'roster.exe');
const log = (line) => console.log(line);

if (!chroot || !existsSync(exe)) {
  log(`Needs ROSTER_WINE_ROOT (a Debian 13 folder with wine64) and ${relative(repo, exe)} (npm run release)`);
  log('windows-standalone: 0 passed, 1 failed');
  process.exit(1);
}

const { inside, windowsPath, spawnWine, stopWineserver } = wineIn(chroot);
const work = mkdtempSync(join(chroot, 'tmp', 'roster-'));
copyFileSync(exe, join(work, 'roster.exe'));
const runtime = join(work, 'run');
mkdirSync(runtime, { mode: 0o700 });

/** roster.exe ARGS under Wine 10: stdin from a file holding `input` (Wine cannot take a Unix pipe). */
async function roster(args, { input = '', env = {} } = {}) {
  const id = Math.random().toString(36).slice(2);
  const files = ['in', 'out', 'err'].map((name) => join(work, `${id}.${name}`));
  writeFileSync(files[0], input);
  const vars = {
    HOME: inside(work),
    WINEPREFIX: inside(join(work, 'prefix')),
    WINEDEBUG: '-all',
    XDG_RUNTIME_DIR: inside(runtime),
    PATH: '/usr/bin:/bin',
    NO_COLOR: '1',
    ...env,
  };
  const fds = [openSync(files[0], 'r'), openSync(files[1], 'w'), openSync(files[2], 'w')];
  const child = spawnWine(['roster.exe', ...args], { cwd: work, env: vars, stdio: fds });
  for (const fd of fds) closeSync(fd);
  const timer = setTimeout(() => child.kill('SIGKILL'), 180_000);
  const code = await new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (exitCode) => resolve(exitCode ?? 1));
  });
  clearTimeout(timer);
  const [out, err] = files.slice(1).map((file) => readFileSync(file, 'utf8').replace(/\r\n/g, '\n'));
  for (const file of files) rmSync(file, { force: true });
  return { code, stdout: out, stderr: err };
}

/** The same command from the Linux npm build, for the same answers. */
async function linux(args, env) {
  const run = await execFileAsync(process.execPath, [join(repo, 'bin', 'roster.js'), ...args], {
    env: { PATH: process.env.PATH, HOME: join(work, 'linux-home'), NO_COLOR: '1', ...env },
  }).catch((error) => error);
  return { code: run.code ?? 0, stdout: run.stdout, stderr: run.stderr };
}

async function main() {
  const sandbox = await startBundledSandbox(work);
  const secret = sandbox.clients.find((c) => c.clientId === 'demo-allowed').clientSecret;
  const envCredentials = {
    ROSTER_BASE_URL: sandbox.baseUrl,
    ROSTER_CLIENT_ID: 'demo-allowed',
    ROSTER_CLIENT_SECRET: secret,
  };
  const checks = [
    [
      '--version: the standalone build',
      async () => {
        const { code, stdout } = await roster(['--version']);
        assert.equal(code, 0);
        assert.equal(stdout, '0.1.0 (standalone build)\n');
        const json = JSON.parse((await roster(['--version', '--json'])).stdout);
        assert.equal(json.platform, 'win32');
        assert.equal(json.node, 'v26.10.0');
      },
    ],
    [
      'attendance check and a read: what Linux roster prints',
      async () => {
        for (const args of [
          ['attendance', 'check'],
          ['roster', 'students', '--limit', '5', '--json'],
        ]) {
          const windows = await roster(args, { env: envCredentials });
          const linuxRun = await linux(args, envCredentials);
          assert.equal(windows.code, 0, windows.stderr);
          assert.equal(windows.stdout, linuxRun.stdout);
        }
      },
    ],
    [
      'login into Windows Credential Manager (secret on stdin ending in CRLF), status, token, logout',
      async () => {
        const login = await roster(
          ['login', '--base-url', sandbox.baseUrl, '--client-id', 'demo-allowed', '--client-secret-stdin'],
          { input: `${secret}\r\n` },
        );
        assert.equal(login.code, 0, login.stderr);
        assert.match(login.stderr, /the client secret to Windows Credential Manager/);
        assert.match((await roster(['status'])).stdout, /Secret from: keychain/);
        const token = await roster(['token']);
        assert.equal(token.code, 0, token.stderr);
        const logout = await roster(['logout']);
        assert.equal(logout.code, 0, logout.stderr);
        assert.match(logout.stderr, /Removed the client secret from Windows Credential Manager/);
        assert.notEqual((await roster(['token', '--refresh'])).code, 0);
      },
    ],
    [
      'a bulk send from a CRLF CSV, run twice: every family e-mailed once',
      async () => {
        const emails = Array.from({ length: 20 }, (_, i) => `win-standalone-${i}@example.org`);
        const csv = join(work, 'families.csv');
        writeFileSync(csv, `email,schoolId\r\n${emails.map((e) => `${e},org-sch-1\r\n`).join('')}`);
        const args = ['invite', 'send', '--file', windowsPath(csv), '--sent-by-user-id', 'usr-1'];
        const first = await roster(args, { env: envCredentials });
        assert.equal(first.code, 0, first.stderr);
        const again = await roster(args, { env: envCredentials });
        assert.equal(again.code, 0, again.stderr);
        for (const email of emails) {
          assert.equal(sandbox.outbox.filter((m) => m.to === email).length, 1, email);
        }
      },
    ],
  ];
  let passed = 0;
  let failed = 0;
  for (const [name, check] of checks) {
    try {
      await check();
      passed++;
      log(`ok   ${name}`);
    } catch (error) {
      failed++;
      log(`FAIL ${name}\n     ${String(error.message).split('\n').join('\n     ')}`);
    }
  }
  await sandbox.close();
  await stopWineserver(join(work, 'prefix'));
  rmSync(work, { recursive: true, force: true });
  log(`windows-standalone: ${passed} passed, ${failed} failed`);
  process.exitCode = failed > 0 ? 1 : 0;
}

await main();
