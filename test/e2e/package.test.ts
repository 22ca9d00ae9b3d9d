// Installable as a package: `npm pack` makes a tarball of only what runs, `npm install -g` puts it in a
// clean prefix (dependencies from the npm cache, or the registry when missing there), and the installed
// `roster` works from any folder, on the Node under test (first on PATH, as for a user).
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type CliResult, cliEnv } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';

const ROOT = join(import.meta.dirname, '..', '..');
const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
const PATH = `${dirname(process.execPath)}:${process.env.PATH}`;

let prefix: string;
let packed: { files: { path: string }[]; filename: string; size: number };

/** npm with its own cache and settings, and the Node under test first on PATH. */
function npm(args: string[], cwd: string): string {
  return execFileSync('npm', args, { cwd, env: { ...process.env, PATH }, encoding: 'utf8' });
}

/** npm as `npm()`, returning what it wrote on stderr (it fails the test if npm fails). */
function npmStderr(args: string[], cwd: string): string {
  const result = spawnSync('npm', args, { cwd, env: { ...process.env, PATH }, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`npm ${args.join(' ')} failed: ${result.stderr}`);
  return result.stderr;
}

/** Runs the installed roster from a folder that is not the checkout. */
function installed(args: string[], home: string, env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(join(prefix, 'bin', 'roster'), args, {
      cwd: tempDir(),
      env: cliEnv(home, { PATH, ...env }),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Why the installed package cannot be tested here (the install fetches what the npm cache lacks), or undefined. */
function registryUnreachable(): string | undefined {
  try {
    npm(['ping', '--fetch-retries=0', '--fetch-timeout=5000', '--loglevel=silent'], ROOT);
    return undefined;
  } catch {
    return 'needs the npm registry, and `npm ping` cannot reach it';
  }
}
const unreachable = registryUnreachable();

/** What `npm install -g` of the tarball printed on stderr (npm's warnings). */
let installWarnings = '';

beforeAll(() => {
  const work = tempDir();
  // --ignore-scripts: `prepack` would rebuild dist/ under the other tests' feet (the suite built it).
  [packed] = JSON.parse(npm(['pack', '--ignore-scripts', '--json', '--pack-destination', work], ROOT));
  if (unreachable) return;
  prefix = join(work, 'prefix');
  installWarnings = npmStderr(
    [
      'install',
      '--global',
      '--prefix',
      prefix,
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      join(work, packed.filename),
    ],
    work,
  );
}, 180_000);

describe('the npm package', () => {
  it('is named roster-cli (roster is taken in the registry), publishable, and runs on Node 22.13 to 26 (node:sqlite)', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    expect(manifest).toMatchObject({ name: 'roster-cli', bin: { roster: 'bin/roster.js' } });
    expect(manifest.private).toBeUndefined();
    expect(manifest.engines.node).toBe('^22.13 || ^24 || ^26');
    // Nothing of roster's own runs when a user installs it: no install script, and no prepare.
    for (const script of ['preinstall', 'install', 'postinstall', 'prepare']) {
      expect(manifest.scripts[script], script).toBeUndefined();
    }
  });

  it('holds only what runs, and the docs its README links to: bin, dist (no demo, no source maps), docs, README, CHANGELOG, LICENSE and package.json', () => {
    const files = packed.files.map((f) => f.path).sort();
    expect(files).toContain('bin/roster.js');
    expect(files).toContain('dist/cli.js');
    expect(files).toContain('README.md');
    expect(files).toContain('LICENSE');
    expect(files).toContain('package.json');
    const chunks = readdirSync(join(ROOT, 'dist', 'chunks')).map((name) => `dist/chunks/${name}`);
    expect(files).toEqual(
      [
        'CHANGELOG.md',
        'LICENSE',
        'README.md',
        'bin/roster.js',
        ...chunks,
        'dist/cli.js',
        'dist/commands.json',
        ...readdirSync(join(ROOT, 'docs')).map((name) => `docs/${name}`),
        'package.json',
      ].sort(),
    );
    // Every relative link of the packaged README leads to a file in the package.
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const links = [...readme.matchAll(/\]\(((?:docs\/)?[^)#:]+?)(?:#[^)]*)?\)/g)].map((m) => m[1] as string);
    expect(links.length).toBeGreaterThan(5);
    for (const link of links) expect(files, link).toContain(link);
    expect(files.filter((f) => /\.map$|\.ts$|^test\/|^src\/|demo/.test(f))).toEqual([]);
  });

  it('installs into a clean prefix and answers --version and --help from another folder', async ({
    skip,
  }) => {
    skip(unreachable !== undefined, unreachable);
    const home = tempDir();
    const v = await installed(['--version'], home);
    expect(v).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
    const json = await installed(['--version', '--json'], home);
    expect(JSON.parse(json.stdout)).toMatchObject({ version, build: 'npm', node: process.version });
    // No script of roster's own was there to run or be warned about, and no dev dependency came along.
    expect(installWarnings).not.toMatch(/install-scripts|allow-scripts/);
    const modules = join(prefix, 'lib', 'node_modules', 'roster-cli', 'node_modules');
    for (const dev of ['vitest', 'esbuild', 'typescript', '@biomejs', 'fast-check']) {
      expect(existsSync(join(modules, dev)), dev).toBe(false);
    }
    const help = await installed(['--help'], home);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: roster /);
    expect(help.stderr).toBe('');
  });

  describe('runs its own sandbox and talks to it', () => {
    let sandbox: ChildProcess;
    let baseUrl: string;
    beforeEach(({ skip }) => skip(unreachable !== undefined, unreachable));
    beforeAll(async () => {
      if (unreachable) return;
      sandbox = spawn(join(prefix, 'bin', 'roster'), ['sandbox', '--port', '0', '--quiet'], {
        cwd: tempDir(),
        env: cliEnv(tempDir(), { PATH }),
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      baseUrl = await new Promise((resolve, reject) => {
        let out = '';
        sandbox.stdout?.on('data', (chunk) => {
          out += chunk;
          const match = /Sandbox listening on (\S+)/.exec(out);
          if (match?.[1]) resolve(match[1]);
        });
        sandbox.on('exit', (code) => reject(new Error(`the installed sandbox exited with ${code}`)));
      });
    });
    // Ended before the file's folders are removed: its HOME is one of them.
    afterAll(async () => {
      if (!sandbox || sandbox.exitCode !== null) return;
      sandbox.kill('SIGINT');
      await once(sandbox, 'exit');
    });

    it('roster attendance check against it', async () => {
      const run = await installed(['attendance', 'check', '--json'], tempDir(), {
        ROSTER_BASE_URL: baseUrl,
        ROSTER_CLIENT_ID: 'demo-allowed',
        ROSTER_CLIENT_SECRET: 'riverside-secret-2024',
      });
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout)).toEqual({
        success: true,
        clientLabel: 'Riverside Unified School District',
      });
    });
  });
});
