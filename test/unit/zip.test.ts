// The export's ZIP writer (yazl): archives that other tools read back exactly, and nothing left on failure.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeZip } from '../../src/output/zip.js';
import { tempDir } from '../helpers/context.js';

// The reader this test trusts is Python's zipfile: without python3 on PATH the test is skipped, saying so.
const hasPython = spawnSync('python3', ['--version'], { stdio: 'ignore' }).status === 0;

describe('writeZip', () => {
  it('writes an archive python3 zipfile (and unzip -t, when installed) read back exactly', async ({
    skip,
  }) => {
    skip(!hasPython, 'needs python3 (its zipfile module reads the archive back); not found on PATH');
    const dir = tempDir();
    const big = Array.from({ length: 50_000 }, (_, i) => `stu-${i},Zoë,"a,b"\n`).join('');
    writeFileSync(join(dir, 'a.csv'), big);
    writeFileSync(join(dir, 'empty.csv'), '');
    writeFileSync(join(dir, 'b.csv'), 'propertyName,value\n');
    const zip = join(dir, 'out.zip');
    await writeZip(
      zip,
      ['a.csv', 'empty.csv', 'b.csv'].map((name) => ({ name, path: join(dir, name) })),
      new Date(2026, 0, 2, 3, 4, 6),
    );
    expect(statSync(zip).mode & 0o777).toBe(0o600);
    expect(statSync(zip).size).toBeLessThan(big.length / 5);
    expect(readdirSync(dir).filter((f) => f.endsWith('.partial'))).toEqual([]);
    const script = [
      'import json, sys, zipfile',
      'z = zipfile.ZipFile(sys.argv[1])',
      'print(json.dumps({"bad": z.testzip(), "names": z.namelist(),',
      ' "sizes": [i.file_size for i in z.infolist()], "time": list(z.infolist()[0].date_time),',
      ' "a": z.read("a.csv").decode("utf-8")}))',
    ].join('\n');
    const read = JSON.parse(
      execFileSync('python3', ['-c', script, zip], { encoding: 'utf8', maxBuffer: 64 << 20 }),
    );
    expect(read).toMatchObject({
      bad: null,
      names: ['a.csv', 'empty.csv', 'b.csv'],
      sizes: [Buffer.byteLength(big), 0, 19],
      time: [2026, 1, 2, 3, 4, 6],
    });
    expect(read.a).toBe(big);
    if (existsSync('/usr/bin/unzip')) {
      expect(execFileSync('unzip', ['-t', zip], { encoding: 'utf8' })).toContain('No errors detected');
    }
  });

  it('leaves nothing behind when a file cannot be read', async () => {
    const dir = tempDir();
    const zip = join(dir, 'out.zip');
    await expect(
      writeZip(zip, [{ name: 'x.csv', path: join(dir, 'missing.csv') }], new Date()),
    ).rejects.toThrow(/ENOENT/);
    expect(readdirSync(dir)).toEqual([]);
  });
});
