// files.ts as it behaves on Windows, on whatever machine runs the tests: platform.ts answers for win32.
// No folder to fsync, no POSIX owners to check, and a rename over a file that another process has open
// at that instant (a reader, an antivirus scan) refused for now with EPERM, then retried.
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import * as fsp from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readPrivateFile, syncFolder, writePrivateFile } from '../../src/files.js';
import { tempDir } from '../helpers/context.js';

vi.mock('../../src/platform.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/platform.js')>();
  return {
    ...real,
    canSyncFolders: () => real.canSyncFolders('win32'),
    hasPosixOwners: () => real.hasPosixOwners('win32'),
    renameRefusedForNow: (code: string | undefined) => real.renameRefusedForNow(code, 'win32'),
  };
});
vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  return { ...real, rename: vi.fn(real.rename) };
});

const rename = vi.mocked(fsp.rename);
afterEach(() => rename.mockReset());

const refused = (code: string) => Object.assign(new Error(`${code}: rename`), { code });

describe('files on Windows', () => {
  it('a rename refused for now (EPERM, EACCES, EBUSY) is retried: the file is written whole', async () => {
    const real = (await vi.importActual<typeof import('node:fs/promises')>('node:fs/promises')).rename;
    const path = join(tempDir(), 'config.json');
    writeFileSync(path, 'old');
    rename
      .mockRejectedValueOnce(refused('EPERM'))
      .mockRejectedValueOnce(refused('EACCES'))
      .mockRejectedValueOnce(refused('EBUSY'))
      .mockImplementation(real);
    await writePrivateFile(path, 'new');
    expect(readFileSync(path, 'utf8')).toBe('new');
    expect(rename).toHaveBeenCalledTimes(4);
  });

  it('a rename refused for good is a FileError after the retries, and no temporary file is left', async () => {
    const dir = tempDir();
    rename.mockRejectedValue(refused('EPERM'));
    await expect(writePrivateFile(join(dir, 'config.json'), 'new')).rejects.toThrow(
      `Cannot write ${join(dir, 'config.json')}: operation not permitted`,
    );
    expect(rename).toHaveBeenCalledTimes(10);
    expect((await fsp.readdir(dir)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('another error is not retried', async () => {
    rename.mockRejectedValue(refused('ENOSPC'));
    await expect(writePrivateFile(join(tempDir(), 'config.json'), 'new')).rejects.toThrow('no space left');
    expect(rename).toHaveBeenCalledTimes(1);
  });

  it('has no folder to fsync: syncFolder opens nothing (a missing folder is no error)', () => {
    expect(() => syncFolder(join(tempDir(), 'not-there'))).not.toThrow();
  });

  it('has no POSIX owners: a file others could write to (by its mode) is read, its folder the profile', async () => {
    const path = join(tempDir(), 'credentials.json');
    writeFileSync(path, '{}');
    chmodSync(path, 0o666);
    await expect(readPrivateFile(path, { own: true })).resolves.toBe('{}');
  });
});
