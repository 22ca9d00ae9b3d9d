import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  createFresh,
  FileError,
  fileError,
  openOwnAppendable,
  outputFolder,
  privateFolder,
  readPrivateFile,
  writePrivateFile,
} from '../../src/files.js';
import { tempDir } from '../helpers/context.js';
import { asRoot, expectOwnPrivate, expectUntouched, ME, NOBODY, victim } from '../helpers/planted.js';

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

describe('readPrivateFile', () => {
  it('returns undefined for a missing file; a folder is a FileError naming it', async () => {
    const dir = tempDir();
    expect(await readPrivateFile(join(dir, 'nope'))).toBeUndefined();
    await expect(readPrivateFile(dir)).rejects.toThrow(`Cannot read ${dir}: it is a folder, not a file`);
  });
});

// Files and folders planted by someone else: real links, FIFOs, devices, and (as root, as CI runs) files
// owned by `nobody`.
describe('createFresh', () => {
  it('replaces a symbolic link planted at the name, never writing through it', async () => {
    const target = victim();
    const path = join(tempDir(), 'users.csv.partial');
    symlinkSync(target, path);
    const handle = await createFresh(path);
    await handle.writeFile('secret rows\n');
    await handle.close();
    expectUntouched(target);
    expectOwnPrivate(path);
    expect(readFileSync(path, 'utf8')).toBe('secret rows\n');
  });

  it('replaces a hard link planted at the name (O_NOFOLLOW alone would write through it)', async () => {
    const dir = tempDir();
    const target = join(dir, 'victim.txt');
    writeFileSync(target, 'the victim\n', { mode: 0o644 });
    const path = join(dir, 'users.csv.partial');
    linkSync(target, path);
    const handle = await createFresh(path);
    await handle.writeFile('secret rows\n');
    await handle.close();
    expectUntouched(target);
    expectOwnPrivate(path);
  });

  it.skipIf(!asRoot)(
    'replaces a 0666 file owned by another user: theirs keeps their content, ours is 0600',
    async () => {
      const dir = tempDir();
      const path = join(dir, 'users.csv.partial');
      writeFileSync(path, 'planted\n');
      chmodSync(path, 0o666);
      chownSync(path, NOBODY, NOBODY);
      const theirs = join(tempDir(), 'their-copy');
      linkSync(path, theirs); // the other user keeps a link to read what lands in "their" file
      const handle = await createFresh(path);
      await handle.writeFile('secret rows\n');
      await handle.close();
      expectOwnPrivate(path);
      expect(readFileSync(theirs, 'utf8')).toBe('planted\n');
    },
  );

  it('a folder at the name is refused with one line naming it', async () => {
    const path = join(tempDir(), 'users.csv.partial');
    mkdirSync(path);
    await expect(createFresh(path)).rejects.toThrow(`Cannot create ${path}: `);
  });
});

describe('writePrivateFile through planted links', () => {
  it('a symbolic link at the target is replaced by the file; what it pointed at is untouched', async () => {
    const target = victim();
    const path = join(tempDir(), 'manifest.csv');
    symlinkSync(target, path);
    await writePrivateFile(path, 'rows\n');
    expectUntouched(target);
    expectOwnPrivate(path);
  });
});

describe('readPrivateFile: what is not a regular file, or not the user’s', () => {
  it('a FIFO is refused at once (never waited on), a device too', async () => {
    const dir = tempDir();
    const fifo = join(dir, 'config.json');
    execFileSync('mkfifo', [fifo]);
    await expect(readPrivateFile(fifo)).rejects.toThrow(
      `Cannot read ${fifo}: it is a named pipe (FIFO), not a file`,
    );
    const device = join(dir, 'device.json');
    symlinkSync('/dev/null', device);
    await expect(readPrivateFile(device)).rejects.toThrow(
      `Cannot read ${device}: it is a device, not a file`,
    );
  });

  it('with own: a file others can write is refused with the chmod that fixes it; a link is refused', async () => {
    const dir = tempDir();
    const path = join(dir, 'state.json');
    writeFileSync(path, '{}');
    chmodSync(path, 0o666);
    const error = (await readPrivateFile(path, { own: true }).catch((e) => e)) as FileError;
    expect(error).toBeInstanceOf(FileError);
    expect(error.untrusted).toBe(true);
    expect(`${error.message}. ${error.hint}`).toBe(
      `Cannot read ${path}: other users can write to it (mode 0666), so roster will not trust it. Run: chmod 600 ${path}.`,
    );
    const link = join(dir, 'link.json');
    symlinkSync(victim(), link);
    await expect(readPrivateFile(link, { own: true, followLinks: false })).rejects.toThrow(
      `Cannot read ${link}: it is a symbolic link`,
    );
  });

  it.skipIf(!asRoot)('with own: a file of another user is refused', async () => {
    const path = join(tempDir(), 'state.json');
    writeFileSync(path, '{}', { mode: 0o600 });
    chownSync(path, NOBODY, NOBODY);
    await expect(readPrivateFile(path, { own: true })).rejects.toThrow(
      `Cannot read ${path}: it belongs to another user (uid ${NOBODY}), so roster will not trust it`,
    );
  });
});

describe('openOwnAppendable (journals)', () => {
  it('creates the file 0600, appends to the user’s own one', async () => {
    const path = join(tempDir(), 'j.jsonl');
    const first = await openOwnAppendable(path);
    await first.appendFile('a\n');
    await first.close();
    const second = await openOwnAppendable(path);
    await second.appendFile('b\n');
    await second.close();
    expect(readFileSync(path, 'utf8')).toBe('a\nb\n');
    expectOwnPrivate(path);
  });

  it('refuses a symbolic link (the file it points at is untouched) and a file others can write', async () => {
    const target = victim();
    const dir = tempDir();
    const link = join(dir, 'j.jsonl');
    symlinkSync(target, link);
    await expect(openOwnAppendable(link)).rejects.toThrow(`${link}: it is a symbolic link`);
    expectUntouched(target);
    const open = join(dir, 'open.jsonl');
    writeFileSync(open, '');
    chmodSync(open, 0o620);
    await expect(openOwnAppendable(open)).rejects.toThrow(/its group can write to it \(mode 0620\)/);
  });

  it.skipIf(!asRoot)('refuses a journal owned by another user', async () => {
    const path = join(tempDir(), 'j.jsonl');
    writeFileSync(path, '{"seeded":true}\n', { mode: 0o600 });
    chownSync(path, NOBODY, NOBODY);
    await expect(openOwnAppendable(path)).rejects.toThrow(/belongs to another user/);
    expect(readFileSync(path, 'utf8')).toBe('{"seeded":true}\n');
  });
});

describe('privateFolder (roster’s own config, cache and state folders)', () => {
  it('creates missing folders 0700; a missing one is left missing with create: false', async () => {
    const root = join(tempDir(), 'roster');
    await privateFolder(join(root, 'invites'), root, { create: false });
    expect(existsSync(root)).toBe(false);
    await privateFolder(join(root, 'invites'), root);
    expect(statSync(root).mode & 0o777).toBe(0o700);
    expect(statSync(join(root, 'invites')).mode & 0o777).toBe(0o700);
  });

  it('refuses a folder others or its group can write, anywhere from roster’s folder down, with the fix', async () => {
    const root = join(tempDir(), 'roster');
    mkdirSync(join(root, 'invites'), { recursive: true, mode: 0o700 });
    chmodSync(root, 0o777);
    const error = (await privateFolder(join(root, 'invites'), root).catch((e) => e)) as FileError;
    expect(`${error.message}. ${error.hint}`).toBe(
      `${root}: other users can write to it (mode 0777), so roster will not trust files in it. Run: chmod 700 ${root}.`,
    );
    chmodSync(root, 0o700);
    chmodSync(join(root, 'invites'), 0o770);
    await expect(privateFolder(join(root, 'invites'), root)).rejects.toThrow(
      `${join(root, 'invites')}: its group can write to it (mode 0770)`,
    );
  });

  it.skipIf(!asRoot)(
    'refuses a folder another user owns (they could seed a journal), naming chown',
    async () => {
      const root = join(tempDir(), 'roster');
      mkdirSync(root, { mode: 0o700 });
      chownSync(root, NOBODY, NOBODY);
      const error = (await privateFolder(root).catch((e) => e)) as FileError;
      expect(error.untrusted).toBe(true);
      expect(`${error.message}. ${error.hint}`).toBe(
        `${root}: it belongs to another user (uid ${NOBODY}), so roster will not trust files in it. If it is yours, run: chown -R ${ME} ${root} && chmod 700 ${root}; otherwise move it aside.`,
      );
    },
  );
});

describe('outputFolder (export --out)', () => {
  it('refuses a folder anyone can write without the sticky bit; allows /tmp-like ones; warns for group-writable', async () => {
    const dir = join(tempDir(), 'out');
    mkdirSync(dir);
    chmodSync(dir, 0o777);
    const warnings: string[] = [];
    await expect(outputFolder(dir, (w) => warnings.push(w))).rejects.toThrow(
      `${dir}: other users can write to it (mode 0777), so they could replace the exported files`,
    );
    chmodSync(dir, 0o1777);
    await outputFolder(dir, (w) => warnings.push(w));
    expect(warnings).toEqual([]);
    chmodSync(dir, 0o770);
    await outputFolder(dir, (w) => warnings.push(w));
    expect(warnings).toEqual([
      `${dir} can be written to by its group (gid ${statSync(dir).gid}): its members could replace the exported files. Run chmod g-w ${dir} to prevent it.`,
    ]);
  });

  it.skipIf(!asRoot)('refuses a folder another user owns', async () => {
    const dir = join(tempDir(), 'out');
    mkdirSync(dir, { mode: 0o755 });
    chownSync(dir, NOBODY, NOBODY);
    await expect(outputFolder(dir, () => {})).rejects.toThrow(
      `${dir}: it belongs to another user (uid ${NOBODY})`,
    );
  });
});

describe('fileError: a failing disk is one line naming the file', () => {
  // ENOSPC is produced for real on a small tmpfs (test/reliability/full-disk.test.ts); a quota or an I/O
  // error cannot be produced for root in a test, so their wording is checked here.
  const errno = (code: string) => Object.assign(new Error(`${code}: something, write`), { code });
  it.each([
    ['ENOSPC', 'no space left on the device. Free space on that disk.'],
    ['EDQUOT', 'disk quota exceeded. Free space, or ask for a larger quota.'],
    ['EIO', 'input/output error (a failing disk or a lost network drive). Check the disk.'],
    ['EROFS', 'the file system is read-only. Use a writable folder.'],
  ])('%s', (code, text) => {
    const error = fileError(errno(code), '/x/users.csv.partial', 'write') as FileError;
    expect(error).toBeInstanceOf(FileError);
    expect(error.code).toBe('failure');
    expect(`${error.message}. ${error.hint}`).toBe(`Cannot write /x/users.csv.partial: ${text}`);
  });
});
