// The Linux standalone executable as an admin without Node runs it: nothing but `roster` on PATH, against
// the sandbox started from the executable itself. It must behave as the npm install does (same stdout,
// stderr and exit code), send a file interrupted and resumed without e-mailing anyone twice, read and
// export. The keychain, from the executable, is in keychain.test.ts.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startCli, until } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { startPty } from '../helpers/pty.js';
import {
  runStandalone,
  STANDALONE,
  type StandaloneSandbox,
  standalonePath,
  startStandaloneSandbox,
  testStandalone,
} from '../helpers/standalone.js';

const NODE_EMBEDDED = 'v26.10.0';

describe.runIf(testStandalone)(`the standalone executable (${STANDALONE})`, () => {
  let sandbox: StandaloneSandbox;
  let env: Record<string, string>;
  beforeAll(async () => {
    sandbox = await startStandaloneSandbox(tempDir(), ['--latency', '10']);
    env = {
      ROSTER_BASE_URL: sandbox.baseUrl,
      ROSTER_CLIENT_ID: 'demo-allowed',
      ROSTER_CLIENT_SECRET: 'riverside-secret-2024',
    };
  }, 60_000);
  afterAll(() => sandbox?.close());

  it('says its version, that it is the standalone build, and the Node inside it', async () => {
    const home = tempDir();
    expect(await runStandalone(['--version'], home)).toEqual({
      code: 0,
      stdout: '0.1.0 (standalone build)\n',
      stderr: '',
    });
    const json = await runStandalone(['--version', '--json'], home);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      version: '0.1.0',
      build: 'standalone',
      node: NODE_EMBEDDED,
      platform: 'linux',
      arch: 'x64',
    });
  });

  it('runs with no node on its PATH', () => {
    const node = spawnSync('node', ['--version'], { env: { PATH: standalonePath() } });
    expect((node.error as NodeJS.ErrnoException | undefined)?.code).toBe('ENOENT');
  });

  it.each([
    [['attendance', 'check']],
    [['attendance', 'check', '--json']],
    [['roster', 'students', '--limit', '3', '--json']],
    [['roster', 'schools']],
    [['invite', 'send', '--email', 'not-an-address', '--school-id', 'org-sch-1', '--sent-by-user-id', 'u']],
    [['invite', 'list', '--json']],
    [['--help']],
    [['invite', 'send', '--help']],
    [['completion', 'bash']],
    [['nosuch']],
    [['status']],
  ])('roster %j: the same stdout, stderr and exit code as the npm install', async (args) => {
    const home = tempDir(); // one HOME: paths in the output are the same
    const standalone = await runStandalone(args, home, { env });
    const npm = await runCli(args, home, { env });
    expect(standalone).toEqual(npm);
  });

  it('asks on a terminal as the npm install does: the school picker, colour, the question, then sends', async () => {
    const email = 'terminal@example.org';
    const args = ['invite', 'send', '--email', email, '--sent-by-user-id', 'usr-1'];
    const run = startPty(args, tempDir(), { ...env, NO_COLOR: undefined }, { executable: STANDALONE });
    await run.waitFor('School (type to search by name, identifier or sourcedId)');
    run.type('cedar');
    await run.waitFor('Use "cedar" as typed');
    run.type('\r');
    await run.waitFor('(Cedar Elementary School)');
    await run.waitFor(`Send it to ${email}?`);
    run.type('y\r');
    const result = await run.done;
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Invitation sent to ${email}`);
    expect(result.stdout).toMatch(/\u001b\[3\d?m/); // coloured, as on a terminal
    expect((await sandbox.deliveries()).get(email)).toBe(1);
  });

  it('a bulk send interrupted with Ctrl-C and run again: every family e-mailed exactly once', async () => {
    const home = tempDir();
    const emails = Array.from({ length: 200 }, (_, i) => `standalone-${i}@example.org`);
    const file = join(tempDir(), 'families.csv');
    writeFileSync(
      file,
      `email,schoolId\n${emails.map((e, i) => `${e},org-sch-${(i % 5) + 1}`).join('\n')}\n`,
    );
    const args = ['invite', 'send', '--file', file, '--sent-by-user-id', 'usr-1', '--concurrency', '4'];
    const first = startCli(args, home, {
      executable: 'roster',
      env: { PATH: standalonePath(), ...env },
      timeoutMs: 120_000,
    });
    let delivered = 0;
    await until(() => {
      sandbox.deliveries().then((d) => (delivered = emails.filter((e) => d.has(e)).length));
      return delivered >= 30;
    }, 60_000);
    first.child.kill('SIGINT');
    const interrupted = await first.done;
    expect(interrupted.code).toBe(130);
    expect(interrupted.stderr).toMatch(/Sent \d+ of 200 invitations from .* before the interrupt\./);
    const again = await runStandalone(args, home, { env, timeoutMs: 120_000 });
    expect(again.code).toBe(0);
    const counts = await sandbox.deliveries();
    expect(emails.map((e) => counts.get(e) ?? 0)).toEqual(emails.map(() => 1));
  }, 180_000);

  it('reads every student, and exports the same files as the npm install', async () => {
    const read = await runStandalone(['roster', 'students', '--all', '--ndjson'], tempDir(), { env });
    expect(read.code).toBe(0);
    expect(read.stdout.trim().split('\n')).toHaveLength(1200);
    const outStandalone = join(tempDir(), 'export');
    const outNpm = join(tempDir(), 'export');
    const exported = await runStandalone(['roster', 'export', '--out', outStandalone], tempDir(), { env });
    expect(exported.code).toBe(0);
    expect((await runCli(['roster', 'export', '--out', outNpm], tempDir(), { env })).code).toBe(0);
    const files = readdirSync(outStandalone).sort();
    expect(files).toEqual(readdirSync(outNpm).sort());
    expect(files).toContain('users.csv');
    for (const name of files.filter((f) => f.endsWith('.csv') && f !== 'manifest.csv')) {
      expect(readFileSync(join(outStandalone, name), 'utf8'), name).toBe(
        readFileSync(join(outNpm, name), 'utf8'),
      );
    }
  }, 120_000);
});
