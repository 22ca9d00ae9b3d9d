// How the journal waits for its fsyncs (Journal.sync): on the main thread while the disk syncs fast, through
// the thread pool once it proves slow on average or stalls once for long, never slow because of one short
// stall; each entry's promise resolved only once its fsync is done, either way. The disk is simulated (unit
// layer): node:fs's fsyncSync takes as long as each test says, and both fsyncs can fail.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

const disk = { sync: 0, async: 0, done: 0, stallMs: 0, fail: false };
vi.mock('node:fs', async (original) => {
  const real = await original<typeof import('node:fs')>();
  const eio = () => Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
  return {
    ...real,
    fsyncSync: () => {
      disk.sync++;
      const until = performance.now() + disk.stallMs;
      while (performance.now() < until);
      if (disk.fail) throw eio();
      disk.done++;
    },
    fsync: (fd: number, callback: (error: NodeJS.ErrnoException | null) => void) => {
      disk.async++;
      real.fsync(fd, (error) => {
        if (disk.fail) return callback(eio());
        disk.done++;
        callback(error);
      });
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

async function openJournal() {
  const path = join(tempDir(), 'state', 'a.jsonl');
  fs.mkdirSync(join(path, '..'), { recursive: true, mode: 0o700 });
  const journal = await Journal.open(path, header, new Date());
  Object.assign(disk, { sync: 0, async: 0, done: 0 });
  return { path, journal };
}

/**
 * Appends `rows` entries one at a time, each fsync stalling `stall(n)` ms; each append is checked to resolve
 * only once its fsync is done. What the disk saw, and the lines on it.
 */
async function appendRows(rows: number, stall: (n: number) => number) {
  const { path, journal } = await openJournal();
  for (let n = 0; n < rows; n++) {
    disk.stallMs = stall(n);
    await journal.record([entry(n)]);
    expect(disk.done).toBe(n + 1);
  }
  await journal.close();
  const lines = fs.readFileSync(path, 'utf8').trim().split('\n').length;
  return { sync: disk.sync, async: disk.async, lines };
}

describe('Journal fsyncs', () => {
  afterEach(() => {
    Object.assign(disk, { stallMs: 0, fail: false });
  });

  it('are waited for on the main thread while the disk syncs fast', async () => {
    expect(await appendRows(40, () => 0)).toEqual({ sync: 40, async: 0, lines: 41 });
  });

  it('go through the thread pool once the disk proves slow on average', async () => {
    const seen = await appendRows(40, () => 3);
    expect(seen.sync).toBeGreaterThan(5);
    expect(seen.sync).toBeLessThan(25);
    expect(seen).toMatchObject({ async: 40 - seen.sync, lines: 41 });
  });

  it('one short stall (the disk busy with something else) does not make a fast disk slow', async () => {
    expect(await appendRows(40, (n) => (n === 3 ? 20 : 0))).toEqual({ sync: 40, async: 0, lines: 41 });
  });

  it('one long stall sends every later fsync through the thread pool', async () => {
    expect(await appendRows(40, (n) => (n === 3 ? 60 : 0))).toEqual({ sync: 4, async: 36, lines: 41 });
  });

  it('a failed fsync fails its entries, on the main thread or through the thread pool', async () => {
    for (const stall of [0, 60]) {
      const { journal } = await openJournal();
      disk.stallMs = stall;
      await journal.record([entry(0)]);
      disk.fail = true;
      await expect(journal.record([entry(1)])).rejects.toThrow(/Could not write the journal .*EIO/);
      expect(stall === 0 ? disk.async : disk.sync).toBe(stall === 0 ? 0 : 1);
      disk.fail = false;
      await journal.close();
    }
  });
});
