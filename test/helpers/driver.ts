// A small program run as its own process against the module under test (the store, as a second roster
// process would use it): `contents` is bundled from src/ once, then started as often as a test needs.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { build } from 'esbuild';
import { tempDir } from './context.js';

const ROOT = join(import.meta.dirname, '..', '..');

/** Bundles `contents` (TypeScript, importing from './src/…') into a program; resolves with its path. */
export async function bundleDriver(name: string, contents: string): Promise<string> {
  const outfile = join(tempDir(), `${name}.mjs`);
  await build({
    stdin: { contents, resolveDir: ROOT, loader: 'ts' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile,
    logLevel: 'error',
  });
  return outfile;
}

/** Starts the program with `args`; `done` resolves with its exit code and what it printed. */
export function startDriver(driver: string, args: string[]) {
  const child = spawn(process.execPath, [driver, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  child.stderr.on('data', (d) => {
    err += d;
  });
  const done = new Promise<{ code: number | null; out: string; err: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, out, err })),
  );
  return { child, done };
}
