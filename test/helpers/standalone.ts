// The standalone executable (`npm run release`, release/work/<target>/roster) in real processes: started
// with nothing but itself on PATH (no node), as on a machine without Node, its sandbox included.
import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type CliOptions, type CliResult, runCli, startCli, until } from './cli.js';
import { tempDir } from './context.js';

export const STANDALONE = resolve(
  process.env.ROSTER_STANDALONE ??
    join(import.meta.dirname, '..', '..', 'release', 'work', 'linux-x64', 'roster'),
);

/** CI builds the executable before the suite (.ci/run), so there it must be present; elsewhere, if built. */
export const testStandalone = process.env.CI === 'true' || existsSync(STANDALONE);

/** A PATH holding the executable as `roster` and nothing else: no node, no npm. */
export function standalonePath(): string {
  const bin = join(tempDir(), 'bin');
  mkdirSync(bin);
  symlinkSync(STANDALONE, join(bin, 'roster'));
  return bin;
}

/** Runs the executable (found by name on a PATH without node) under a private HOME. */
export function runStandalone(args: string[], home: string, options: CliOptions = {}): Promise<CliResult> {
  return runCli(args, home, {
    ...options,
    executable: 'roster',
    env: { PATH: standalonePath(), ...options.env },
  });
}

export interface StandaloneSandbox {
  baseUrl: string;
  /** The e-mails the sandbox "sent", by recipient. */
  deliveries(): Promise<Map<string, number>>;
  close(): Promise<void>;
}

/** `roster sandbox --port 0` of the executable itself, once it says where it listens. */
export async function startStandaloneSandbox(home: string, flags: string[] = []): Promise<StandaloneSandbox> {
  const run = startCli(['sandbox', '--port', '0', ...flags], home, {
    executable: 'roster',
    env: { PATH: standalonePath() },
    stdinOpen: true,
    timeoutMs: 600_000,
  });
  let stdout = '';
  run.child.stdout?.on('data', (d) => (stdout += d));
  await until(() => /listening on (\S+)/.test(stdout), 30_000);
  const baseUrl = (/listening on (\S+)/.exec(stdout) as RegExpExecArray)[1] as string;
  return {
    baseUrl,
    async deliveries() {
      const answer = await fetch(`${new URL(baseUrl).origin}/__sandbox/outbox`);
      const sent = (await answer.json()) as { to: string }[];
      const counts = new Map<string, number>();
      for (const { to } of sent) counts.set(to, (counts.get(to) ?? 0) + 1);
      return counts;
    },
    async close() {
      run.child.kill('SIGINT');
      await run.done;
    },
  };
}
