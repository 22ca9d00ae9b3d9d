// A full disk and files that are not files, for real: `roster roster export` onto a small tmpfs that fills
// up mid-export (and again during --zip), then resumed once there is room; a config, credentials file and
// token cache that are a folder, a FIFO or a device. Mounting needs root (CI runs as root); without it the
// full-disk tests are skipped and the wording of ENOSPC/EDQUOT/EIO is checked in test/unit/files.test.ts.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { demoEnv, insecureLogin } from '../helpers/sandbox.js';

/** Mounts a tmpfs of `size` at `dir`; false where this machine does not let us (not root, a container). */
function mountTmpfs(dir: string, size: string): boolean {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const probe = tempDir();
const canMount = mountTmpfs(probe, '64k');
if (canMount) execFileSync('umount', [probe]);

let sandbox: Sandbox;
let home: string;
beforeAll(async () => {
  // A fixed seed: the files' sizes, and so where the disk fills up, are the same on every run.
  sandbox = await startSandbox({ seed: 7, oneroster: { students: 300 } });
});
afterAll(() => sandbox.close());
beforeEach(() => {
  home = tempDir();
  sandbox.requests.length = 0;
});

const roster = (args: string[], env: Record<string, string> = {}) =>
  runCli(args, home, { env: demoEnv(sandbox, 'demo-allowed', env), timeoutMs: 60_000 });
const read = (collection: string) =>
  sandbox.requests.filter((r) => r.method === 'GET' && r.path.endsWith(`/${collection}`)).length;
const oneLine = (stderr: string) => {
  const lines = stderr.trimEnd().split('\n');
  expect(lines, stderr).toHaveLength(1);
  return lines[0] ?? '';
};

describe.skipIf(!canMount)('a disk that fills up during roster roster export', () => {
  const mounts: string[] = [];
  afterAll(() => {
    for (const dir of mounts) execFileSync('umount', [dir]);
  });
  function disk(size: string): string {
    const dir = join(tempDir(), 'disk');
    mkdirSync(dir);
    expect(mountTmpfs(dir, size)).toBe(true);
    mounts.push(dir);
    return dir;
  }
  const grow = (dir: string) => execFileSync('mount', ['-o', 'remount,size=4m', dir]);

  it('mid-file: one line naming the file and what to do, exit 1, nothing partial left; with room, the re-run resumes', async () => {
    // 256 KiB: orgs, sessions, courses, classes and users (with the families) fit (~180 KiB); enrollments
    // (~180 KiB) does not.
    const out = disk('256k');
    const first = await roster(['roster', 'export', '--out', out]);
    expect(first.code).toBe(1);
    expect(oneLine(first.stderr)).toBe(
      `Error: Cannot write ${join(out, 'enrollments.csv.partial')}: no space left on the device. Free space on that disk. Then run the same command again to resume (5 complete files kept).`,
    );
    expect(readdirSync(out).filter((n) => n.endsWith('.partial') || n.endsWith('.tmp'))).toEqual([]);
    const state = JSON.parse(readFileSync(join(out, '.roster-export.json'), 'utf8'));
    expect(Object.keys(state.files).sort()).toEqual(
      ['academicSessions.csv', 'classes.csv', 'courses.csv', 'orgs.csv', 'users.csv'].sort(),
    );
    expect(state.finishedAt).toBeUndefined();

    grow(out);
    sandbox.requests.length = 0;
    const again = await roster(['roster', 'export', '--out', out]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('Resuming the export started');
    expect(read('users')).toBe(0); // kept, not read again
    expect(read('enrollments')).toBeGreaterThan(0);
    expect(JSON.parse(readFileSync(join(out, '.roster-export.json'), 'utf8')).finishedAt).toEqual(
      expect.any(String),
    );
    expect(readFileSync(join(out, 'enrollments.csv'), 'utf8')).toMatch(/^sourcedId,/);
  });

  it('while writing the ZIP: one line naming it, exit 1, every CSV kept; with room, the re-run only writes the ZIP', async () => {
    // Every CSV fits (~400 KiB in 4 KiB pages); the ~45 KiB ZIP does not.
    const out = disk('416k');
    const first = await roster(['roster', 'export', '--out', out, '--zip']);
    expect(first.code).toBe(1);
    expect(oneLine(first.stderr)).toBe(
      `Error: Cannot write ${join(out, 'oneroster-1.1.zip')}: no space left on the device. Free space on that disk. Then run the same command again to resume (7 complete files kept).`,
    );
    expect(existsSync(join(out, 'oneroster-1.1.zip.partial'))).toBe(false);

    grow(out);
    sandbox.requests.length = 0;
    const again = await roster(['roster', 'export', '--out', out, '--zip']);
    expect(again.code, again.stderr).toBe(0);
    expect(sandbox.requests.filter((r) => !r.path.endsWith('/token'))).toEqual([]);
    expect(statSync(join(out, 'oneroster-1.1.zip')).size).toBeGreaterThan(1000);
  });
});

describe('a config, credentials file or token cache that is not a file', () => {
  const configDir = () => join(home, '.config', 'roster');
  const configFile = () => join(configDir(), 'config.json');
  const fifo = (path: string) => execFileSync('mkfifo', [path]);
  const kinds: [string, (path: string) => void, string][] = [
    ['a folder', (path) => mkdirSync(path), 'it is a folder, not a file'],
    ['a FIFO', fifo, 'it is a named pipe (FIFO), not a file'],
    ['a device', (path) => symlinkSync('/dev/null', path), 'it is a device, not a file'],
  ];

  for (const [what, make, reason] of kinds) {
    it(`config.json is ${what}: one line naming it and what to do, exit 1, no wait, nothing sent`, async () => {
      mkdirSync(configDir(), { recursive: true, mode: 0o700 });
      make(configFile());
      for (const args of [['profiles'], ['token']]) {
        const result = await roster(args);
        expect({ args, code: result.code }).toEqual({ args, code: 1 });
        expect(oneLine(result.stderr)).toBe(
          `Error: The config file ${configFile()} cannot be read: ${reason}. Fix it by hand, or remove it and run \`roster login\` again.`,
        );
      }
      expect(sandbox.requests).toEqual([]);
    });
  }

  it('the config folder is a file: one line naming it, exit 1', async () => {
    mkdirSync(join(home, '.config'), { recursive: true });
    execFileSync('touch', [configDir()]);
    const result = await roster(['profiles']);
    expect(result.code).toBe(1);
    expect(oneLine(result.stderr)).toBe(
      `Error: ${configDir()}: it is not a folder. Move it aside and run the command again.`,
    );
  });

  for (const [what, make, reason] of kinds) {
    it(`credentials.json (login --insecure-storage) is ${what}: one line, exit 1`, async () => {
      // A saved profile, its secret in the opt-in file: no environment credentials.
      const { args, input } = insecureLogin(sandbox);
      const login = await runCli(args, home, { input });
      expect(login.code, login.stderr).toBe(0);
      const file = join(configDir(), 'credentials.json');
      rmSync(file);
      make(file);
      rmSync(join(home, '.cache'), { recursive: true }); // no cached token: the secret is needed
      const result = await runCli(['token'], home);
      expect(result.code).toBe(1);
      expect(oneLine(result.stderr)).toBe(
        `Error: The credentials file ${file} cannot be read: ${reason}. Move it aside and run \`roster login --insecure-storage\` again.`,
      );
    });
  }

  for (const [what, make] of kinds) {
    it(`a cached token that is ${what} is ignored and replaced: the command works, the next one uses the cache`, async () => {
      expect((await roster(['token'])).code).toBe(0);
      const tokens = join(home, '.cache', 'roster', 'tokens');
      const [name] = readdirSync(tokens);
      const file = join(tokens, name ?? '');
      rmSync(file);
      make(file);
      sandbox.requests.length = 0;
      const tokenRequests = () => sandbox.requests.filter((r) => r.path.endsWith('/token')).length;
      const result = await roster(['token']);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toBe('');
      expect(tokenRequests()).toBe(1);
      if (what !== 'a folder') {
        // Replaced by a real cache file: the next command needs no token request.
        expect(statSync(file).isFile()).toBe(true);
        expect((await roster(['token'])).code).toBe(0);
        expect(tokenRequests()).toBe(1);
      }
    });
  }
});
