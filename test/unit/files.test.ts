import { readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readIfExists, writePrivateFile } from '../../src/files.js';
import { tempDir } from '../helpers/context.js';

describe('writePrivateFile', () => {
  it('creates missing directories (0700) and the file (0600), replacing it whole', async () => {
    const dir = join(tempDir(), 'a', 'b');
    const path = join(dir, 'f.json');
    await writePrivateFile(path, 'one');
    await writePrivateFile(path, 'two');
    expect(readFileSync(path, 'utf8')).toBe('two');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(readdirSync(dir)).toEqual(['f.json']);
  });

  it('leaves no temporary file behind when the rename fails', async () => {
    const dir = tempDir();
    const target = join(dir, 'is-a-directory');
    await mkdir(join(target, 'child'), { recursive: true });
    await expect(writePrivateFile(target, 'x')).rejects.toThrow();
    expect(readdirSync(dir)).toEqual(['is-a-directory']);
  });

  it('survives concurrent writers: the file always holds one whole content', async () => {
    const path = join(tempDir(), 'f');
    const contents = Array.from({ length: 20 }, (_, i) => `content-${i}-${'x'.repeat(10_000)}`);
    await Promise.all(contents.map((c) => writePrivateFile(path, c)));
    expect(contents).toContain(readFileSync(path, 'utf8'));
  });
});

describe('readIfExists', () => {
  it('returns undefined for a missing file and throws other errors', async () => {
    const dir = tempDir();
    expect(await readIfExists(join(dir, 'nope'))).toBeUndefined();
    await expect(readIfExists(dir)).rejects.toThrow(/EISDIR/);
  });
});
