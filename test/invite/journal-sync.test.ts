// How the journal waits for its fsyncs (Journal.sync): on the main thread while the disk syncs fast, through
// the thread pool once it proves slow on average, and never slow because of one stall. The disk's speed is
// simulated (unit layer): node:fs's fsyncSync stalls for as long as each test says.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

const calls = { sync: 0, async: 0 };
let stallMs = 0;
vi.mock('node:fs', async (original) => {
  const real = await original<typeof import('node:fs')>();
  return {
    ...real,
    fsyncSync: (fd: number) => {
      calls.sync++;
      const until = performance.now() + stallMs;
      while (performance.now() < until);
      real.fsyncSync(fd);
    },
    fsync: (fd: number, callback: (error: NodeJS.ErrnoException | null) => void) => {
      calls.async++;
      real.fsync(fd, callback);
    },
  };
});

const { contentHash, Journal } = await import('../../src/invite/store/index.js');
const { tempDir } = await import('../helpers/context.js');

const header = {
  journal: 'roster invite send' as const,
  version: 1 as const,
  file: '/data/invites.csv',
  destination: { baseUrl: 'https://a.example/v1', clientId: 'c1' },
  sha256: contentHash('x'),
};
const entry = (n: number) => ({
  key: `p${n}@x.org s1`,
  line: n,
  state: 'sent' as const,
  at: new Date().toISOString(),
});

/** Opens a journal and appends `rows` entries one at a time, each waited for, with fsyncs stalling as said. */
async function appendRows(rows: number, stall: (n: number) => number) {
  const path = join(tempDir(), 'state', 'a.jsonl');
  fs.mkdirSync(join(path, '..'), { recursive: true, mode: 0o700 });
  const journal = await Journal.open(path, header, new Date());
  calls.sync = 0;
  calls.async = 0;
  for (let n = 0; n < rows; n++) {
    stallMs = stall(n);
    await journal.record([entry(n)]);
  }
  stallMs = 0;
  await journal.close();
  const lines = fs.readFileSync(path, 'utf8').trim().split('\n');
  return { ...calls, lines: lines.length };
}

describe('Journal fsyncs', () => {
  afterEach(() => {
    stallMs = 0;
  });

  it('are waited for on the main thread while the disk syncs fast, every entry on disk', async () => {
    const seen = await appendRows(40, () => 0);
    expect(seen).toEqual({ sync: 40, async: 0, lines: 41 });
  });

  it('go through the thread pool once the disk proves slow on average', async () => {
    const seen = await appendRows(40, () => 3);
    expect(seen.sync).toBeGreaterThan(5);
    expect(seen.sync).toBeLessThan(25);
    expect(seen.sync + seen.async).toBe(40);
    expect(seen.lines).toBe(41);
  });

  it('one stall (the disk busy with something else) does not make a fast disk slow', async () => {
    const seen = await appendRows(40, (n) => (n === 3 ? 50 : 0));
    expect(seen).toEqual({ sync: 40, async: 0, lines: 41 });
  });
});
