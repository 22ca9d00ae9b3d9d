// The journal lock on a file system without hard links (FAT and exFAT drives, some network shares), where
// link() fails with EPERM, ENOTSUP or EXDEV: simulated by making node:fs's linkSync fail that way. The lock
// must still be exclusive, released only by its owner, and a torn owner record (a writer killed between
// creating the lock and writing it) held for a grace period, then taken over.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { acquireLock, LockHeld, releaseLock } from '../../src/lock.js';
import { tempDir } from '../helpers/context.js';

vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  return { ...real, linkSync: vi.fn(real.linkSync) };
});

const linkSync = vi.mocked(fs.linkSync);
afterEach(() => linkSync.mockReset());

function linkFails(code: string): void {
  linkSync.mockImplementation(() => {
    throw Object.assign(new Error(`${code}: link`), { code });
  });
}

const record = (path: string) => JSON.parse(fs.readFileSync(path, 'utf8'));
/** A pid no process has any more. */
const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid as number;

describe.each(['EPERM', 'ENOTSUP', 'EXDEV'])('the lock where link() fails with %s', (code) => {
  it('is created in place with its owner record, exclusive, and released by its owner only', async () => {
    linkFails(code);
    const path = join(tempDir(), 'file.jsonl.lock');
    const token = await acquireLock(path);
    expect(record(path)).toMatchObject({ pid: process.pid, token });
    await expect(acquireLock(path)).rejects.toBeInstanceOf(LockHeld);
    await releaseLock(path, 'someone-else');
    expect(fs.existsSync(path)).toBe(true);
    await releaseLock(path, token);
    expect(fs.existsSync(path)).toBe(false);
    const again = await acquireLock(path);
    expect(record(path).token).toBe(again);
    await releaseLock(path, again);
    // Tried once per folder: later locks there are created in place straight away.
    expect(linkSync).toHaveBeenCalledTimes(1);
    // No temporary owner file is left beside it.
    expect(fs.readdirSync(join(path, '..'))).toEqual([]);
  });

  it('takes over a lock whose owner is dead, and leaves one whose owner lives', async () => {
    linkFails(code);
    const dir = tempDir();
    const path = join(dir, 'file.jsonl.lock');
    fs.writeFileSync(path, JSON.stringify({ pid: deadPid(), token: '0123456789abcdef' }));
    const token = await acquireLock(path);
    expect(record(path)).toMatchObject({ pid: process.pid, token });
    await releaseLock(path, token);

    const parent = { pid: process.ppid, token: 'fedcba9876543210' };
    fs.writeFileSync(path, JSON.stringify(parent));
    await expect(acquireLock(path)).rejects.toMatchObject({ owner: parent });
    expect(record(path)).toEqual(parent);
  });
});

describe('a torn owner record (the lock created, its writer killed before the record was whole)', () => {
  it('counts as held while younger than the grace period, then is taken over', async () => {
    linkFails('EPERM');
    const path = join(tempDir(), 'file.jsonl.lock');
    fs.writeFileSync(path, '{"pid":12');
    await expect(acquireLock(path)).rejects.toBeInstanceOf(LockHeld);
    expect(fs.readFileSync(path, 'utf8')).toBe('{"pid":12');

    const old = new Date(Date.now() - 11_000);
    fs.utimesSync(path, old, old);
    const token = await acquireLock(path);
    expect(record(path)).toMatchObject({ pid: process.pid, token });
    await releaseLock(path, token);
  });

  it('an empty lock is torn too', async () => {
    linkFails('ENOTSUP');
    const path = join(tempDir(), 'file.jsonl.lock');
    fs.writeFileSync(path, '');
    await expect(acquireLock(path)).rejects.toBeInstanceOf(LockHeld);
  });
});

describe('link() failing for another reason', () => {
  it('is an error, not a lock created another way', async () => {
    linkFails('ENOSPC');
    const path = join(tempDir(), 'file.jsonl.lock');
    await expect(acquireLock(path)).rejects.toMatchObject({ code: 'ENOSPC' });
    expect(fs.existsSync(path)).toBe(false);
  });
});
