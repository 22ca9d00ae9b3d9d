// The sandbox for the Windows scripts (lane.mjs, standalone.mjs), run by Linux Node in the script's own
// process: src/sandbox bundled by esbuild into `work` (the scripts run without a TypeScript loader).
import { join } from 'node:path';

const repo = join(import.meta.dirname, '..', '..');

export async function startBundledSandbox(work) {
  const { build } = await import('esbuild');
  await build({
    entryPoints: [join(repo, 'src', 'sandbox', 'server.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: join(work, 'sandbox.mjs'),
    logLevel: 'error',
  });
  const { startSandbox } = await import(join(work, 'sandbox.mjs'));
  return startSandbox();
}
