// Node ≥ 22.1: bin/roster.js keeps V8's compiled code of dist/ in roster's cache folder, 0700, and only in a
// folder that is ours and that nobody else can write to (a planted cache is code that would run). Node 20
// has no compile cache: there roster writes nothing. NODE_DEBUG_NATIVE=COMPILE_CACHE makes Node say on
// stderr what it read and accepted, which is how these tests see the cache used.
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import nodeModule from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileCacheDir, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';

const supported = typeof (nodeModule as { enableCompileCache?: unknown }).enableCompileCache === 'function';
const DEBUG = { NODE_DEBUG_NATIVE: 'COMPILE_CACHE' };
const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);
const help = (home: string, env: Record<string, string | undefined> = {}) =>
  runCli(['--help'], home, { env });
/** Node's own lines on stderr (with NODE_DEBUG_NATIVE), set apart from roster's. */
const rosterStderr = (stderr: string) =>
  stderr
    .split('\n')
    .filter((line) => !line.startsWith('[compile cache]'))
    .join('\n');
// Node 22 says "cache for file:… was accepted", Node 24 "V8 code cache for ESM file:… was accepted".
const accepted = (stderr: string) => stderr.match(/cache for (ESM )?\S+ was accepted/g) ?? [];

describe.runIf(supported)('the compile cache (Node ≥ 22.1)', () => {
  it('is written on the first run under <cacheDir>/compile, 0700 folders and 0600 files, and used by the next', async () => {
    const home = tempDir();
    const first = await help(home, DEBUG);
    expect(first.code).toBe(0);
    expect(accepted(first.stderr)).toEqual([]);
    const dir = compileCacheDir(home);
    const [version] = readdirSync(dir);
    expect(version).toContain(process.version);
    for (const folder of [
      join(home, '.cache'),
      join(home, '.cache', 'roster'),
      dir,
      join(dir, `${version}`),
    ]) {
      expect(`${folder}: ${mode(folder)}`).toBe(`${folder}: 700`);
    }
    const entries = readdirSync(join(dir, `${version}`));
    expect(entries.length).toBeGreaterThan(0);
    for (const entry of entries) expect(mode(join(dir, `${version}`, entry))).toBe('600');

    const second = await help(home, DEBUG);
    expect(second.code).toBe(0);
    expect(second.stdout).toBe(first.stdout);
    expect(rosterStderr(second.stderr)).toBe(rosterStderr(first.stderr));
    expect(accepted(second.stderr)).toContainEqual(expect.stringContaining('/dist/cli.js'));
  });

  it('follows XDG_CACHE_HOME, and HOME/.cache without it', async () => {
    const home = tempDir();
    const xdg = join(tempDir(), 'elsewhere');
    expect((await help(home, { XDG_CACHE_HOME: xdg })).code).toBe(0);
    expect(readdirSync(join(xdg, 'roster', 'compile'))).toHaveLength(1);
    expect(existsSync(join(home, '.cache'))).toBe(false);

    expect((await help(home, { XDG_CACHE_HOME: undefined })).code).toBe(0);
    expect(readdirSync(compileCacheDir(home))).toHaveLength(1);
  });

  it('--version answers before any of it: no folder', async () => {
    const home = tempDir();
    expect((await runCli(['--version'], home)).code).toBe(0);
    expect(readdirSync(home)).toEqual([]);
  });

  it.each([
    ['writable by others', (dir: string) => chmodSync(dir, 0o777)],
    ['owned by another user', (dir: string) => chownSync(dir, 65534, 65534)],
    ['its parent writable by others', (dir: string) => chmodSync(join(dir, '..'), 0o777)],
  ])('a planted folder (%s) is not used, and roster runs as without it', async (_, plant) => {
    const home = tempDir();
    const dir = compileCacheDir(home);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    plant(dir);
    const run = await help(home, DEBUG);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Usage: roster');
    expect(run.stderr).toBe('');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('an unwritable cache folder is skipped silently', async () => {
    const home = tempDir();
    const notAFolder = join(home, 'cache-file');
    writeFileSync(notAFolder, '');
    const run = await help(home, { XDG_CACHE_HOME: notAFolder });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Usage: roster');
    expect(run.stderr).toBe('');
  });

  it('NODE_DISABLE_COMPILE_CACHE and NODE_COMPILE_CACHE leave the choice to Node', async () => {
    const home = tempDir();
    expect((await help(home, { NODE_DISABLE_COMPILE_CACHE: '1' })).code).toBe(0);
    expect(existsSync(join(home, '.cache'))).toBe(false);

    const chosen = join(tempDir(), 'chosen');
    expect((await help(home, { NODE_COMPILE_CACHE: chosen })).code).toBe(0);
    expect(readdirSync(chosen)).toHaveLength(1);
    expect(existsSync(join(home, '.cache'))).toBe(false);
  });
});

describe.skipIf(supported)('no compile cache (Node < 22.1)', () => {
  it('roster writes no cache folder', async () => {
    const home = tempDir();
    const run = await help(home);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    expect(readdirSync(home)).toEqual([]);
  });
});
