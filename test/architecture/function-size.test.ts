// The function-size check (.ci/function-size/check.mjs, run by `npm run lint`) over a small tree of its own:
// a function new over a limit fails naming it, its size and the limit; one grown past its recorded size
// fails; one back within the limit fails until its line leaves the baseline, which so only shrinks.
import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp.js';

const repo = resolve(import.meta.dirname, '../..');
const checker = join(repo, '.ci/function-size/check.mjs');
const BASELINE = 'baseline.json';

let folder: string;

/** A function of `lines` statements, each adding 1 to a local variable. */
const longFunction = (name: string, lines: number) =>
  `export function ${name}(): number {\n  let total = 0;\n${'  total += 1;\n'.repeat(lines)}  return total;\n}\n`;

/** A function nesting ifs in loops, far over a cognitive complexity of 20, as a method and as a callback. */
const tangled = `if (a > 0) { for (const x of xs) { if (x > a) { while (a < x) { if (a % 2) a += 1; else a += 2; } } } }
    if (a > 1) { for (const x of xs) { if (x > a) { while (a < x) { if (a % 3) a += 1; else a += 3; } } } }`;
const complexFunctions = `export class Reader {
  read(xs: number[], a: number): number {
    ${tangled}
    return a;
  }
}
export function register(hooks: { on(callback: (xs: number[], a: number) => number): void }): void {
  hooks.on((xs, a) => {
    ${tangled}
    return a;
  });
}
`;

async function plant(files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(folder, path, '..'), { recursive: true });
    await writeFile(join(folder, path), text);
  }
}

async function check(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return promisify(execFile)(process.execPath, [checker, '--baseline', BASELINE, ...args], {
    cwd: folder,
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
}

const emptyBaseline = JSON.stringify({ 'outside the sandbox (goal: none)': {} });

beforeEach(async () => {
  folder = tempDir('roster-function-size-');
  await plant({ 'src/short.ts': longFunction('short', 10), [BASELINE]: emptyBaseline });
});

describe('the function-size check', () => {
  it('passes a tree whose functions are within the limits', async () => {
    const { code, stdout } = await check();
    expect(code).toBe(0);
    expect(stdout).toContain('0 by lines and 0 by complexity outside the sandbox');
  });

  it('fails on a planted long function, naming it, its size and the limit', async () => {
    await plant({ 'src/planted.ts': longFunction('planted', 70) });
    const { code, stderr } = await check();
    expect(code).toBe(1);
    expect(stderr).toMatch(
      /^src\/planted\.ts: planted has 7\d lines \(limit 60, noExcessiveLinesPerFunction\): split it/m,
    );
    expect(stderr).not.toContain('short');
  });

  it('fails on complex functions, named by their place', async () => {
    await plant({ 'src/tangled.ts': complexFunctions });
    const { code, stderr } = await check();
    expect(code).toBe(1);
    const limit = /has a cognitive complexity of \d+ \(limit 20, noExcessiveCognitiveComplexity\)/.source;
    expect(stderr).toMatch(new RegExp(`^src/tangled\\.ts: Reader › read ${limit}`, 'm'));
    expect(stderr).toMatch(new RegExp(`^src/tangled\\.ts: register › on callback ${limit}`, 'm'));
  });

  it('passes a listed function, fails it once grown, and fails its line once it is short', async () => {
    await plant({ 'src/planted.ts': longFunction('planted', 70), 'src/sandbox/server.ts': complexFunctions });
    expect((await check('--write')).code).toBe(0);
    const baseline = JSON.parse(await readFile(join(folder, BASELINE), 'utf8'));
    const recorded = baseline['outside the sandbox (goal: none)'].noExcessiveLinesPerFunction;
    expect(Object.keys(recorded)).toEqual(['src/planted.ts: planted']);
    expect(Object.keys(baseline['the sandbox (src/sandbox/)'].noExcessiveCognitiveComplexity)).toEqual([
      'src/sandbox/server.ts: Reader › read',
      'src/sandbox/server.ts: register › on callback',
    ]);
    expect((await check()).stdout).toContain(
      '1 by lines and 0 by complexity outside the sandbox, 0 and 2 in it',
    );

    await plant({ 'src/planted.ts': longFunction('planted', 75) });
    const grown = await check();
    expect(grown.code).toBe(1);
    expect(grown.stderr).toContain(`more than its ${recorded['src/planted.ts: planted']} in the baseline`);

    await plant({ 'src/planted.ts': longFunction('planted', 20) });
    const stale = await check();
    expect(stale.code).toBe(1);
    expect(stale.stderr).toMatch(
      /^src\/planted\.ts: planted is within the limit of noExcessiveLinesPerFunction now \(recorded: \d+\): delete its line from baseline\.json\.$/m,
    );
  });

  it('prints the functions over a limit as a baseline', async () => {
    await plant({ 'src/planted.ts': longFunction('planted', 70) });
    const { code, stdout } = await check('--print');
    expect(code).toBe(0);
    expect(JSON.parse(stdout)['outside the sandbox (goal: none)'].noExcessiveLinesPerFunction).toEqual({
      'src/planted.ts: planted': expect.any(Number),
    });
  });
});
