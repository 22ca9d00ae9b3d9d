// Every file roster writes goes through here, so that nobody else's file is ever written through:
// - a file roster writes is created fresh by roster (O_CREAT|O_EXCL, never following a symlink or a hard
//   link planted at its name), mode 0600, then renamed over its final name where it must appear whole;
// - a file roster reads back and trusts (a journal, an export's state and files) must be a regular file of
//   the user's that others cannot write;
// - roster's own folders are created 0700, and one that another user owns or others can write to is
//   refused (they could plant files there: a journal seeded with "sent" rows, a token, a config);
// - a failing disk (full, quota, I/O error, read-only) or a path that is a folder, a FIFO or a device is one
//   FileError naming the file and what to do, never a stack trace or a hang.
// On Windows there are no POSIX owners or modes to check or set, nor folders to fsync (platform.ts says
// why): there roster's files are private because they live in the user's own profile folders.
import { closeSync, fstatSync, fsyncSync, openSync, readFileSync, type Stats, statSync } from 'node:fs';
import { constants, type FileHandle, lstat, mkdir, open, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, sep } from 'node:path';
import { RosterError } from './errors.js';
import { EXCEL_BOM } from './output/csv.js';
import { canSyncFolders, hasPosixOwners, quotePath, renameRefusedForNow } from './platform.js';

// Windows has no O_NOFOLLOW or O_NONBLOCK, nor owners to check: there the flags are 0 and checks skipped.
const { O_RDONLY, O_WRONLY, O_RDWR, O_CREAT, O_EXCL, O_APPEND } = constants;
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
/** A FIFO opened without it waits for a writer forever. */
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;
const FRESH = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW;

type Action = 'read' | 'write' | 'create' | 'open';

/** A file roster cannot use: one line naming it and what went wrong, exit 1. */
export class FileError extends RosterError {
  constructor(
    readonly path: string,
    /** What is wrong, without the path: "it is a folder, not a file". */
    readonly reason: string,
    hint?: string,
    options: { action?: Action; untrusted?: boolean } = {},
  ) {
    super('failure', `${options.action ? `Cannot ${options.action} ` : ''}${path}: ${reason}`, hint);
    this.name = 'FileError';
    this.untrusted = options.untrusted ?? false;
  }

  /** Another user owns it or may write to it (as opposed to a failing disk or a wrong kind of file). */
  readonly untrusted: boolean;
}

const REASONS: Record<string, [reason: string, hint?: string]> = {
  ENOSPC: ['no space left on the device', 'Free space on that disk.'],
  EDQUOT: ['disk quota exceeded', 'Free space, or ask for a larger quota.'],
  EIO: ['input/output error (a failing disk or a lost network drive)', 'Check the disk.'],
  EROFS: ['the file system is read-only', 'Use a writable folder.'],
  EACCES: ['permission denied', 'Check the permissions of the file and its folder.'],
  EPERM: ['operation not permitted', 'Check the owner and permissions of the file and its folder.'],
  EISDIR: ['it is a folder, not a file', 'Move it aside.'],
  ENOTDIR: ['a part of its path is not a folder', 'Check the path.'],
  ELOOP: ['it is a symbolic link, which roster does not follow here (or a loop of links)', 'Move it aside.'],
  ENXIO: ['it is a socket or a device, not a file', 'Move it aside.'],
  EEXIST: ['it keeps reappearing after roster removed it', 'Check who else writes to that folder.'],
  ENAMETOOLONG: ['the name is too long', 'Use a shorter path.'],
};

/** The error as a FileError naming `path` (`Cannot write …: no space left on the device`). */
export function fileError(error: unknown, path: string, action: Action): unknown {
  if (error instanceof RosterError) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const known = code ? REASONS[code] : undefined;
  if (!known && !(error instanceof Error && code)) return error;
  const [reason, hint] = known ?? [(error as Error).message];
  return new FileError(path, reason, hint, { action });
}

/** The user's uid, or undefined where files have no POSIX owners (Windows): then nothing is distrusted. */
const uid = () => (hasPosixOwners() ? process.getuid?.() : undefined);

/** Why a stat-ed file or folder cannot be trusted, or undefined when it is the user's (or root's). */
function distrust(mode: number, owner: number, sharedOk: boolean): string | undefined {
  const me = uid();
  if (me === undefined) return undefined;
  if (owner !== me && owner !== 0) return `it belongs to another user (uid ${owner})`;
  const sticky = (mode & 0o1000) !== 0;
  if (mode & 0o002 && !(sharedOk && sticky)) return `other users can write to it (mode ${octal(mode)})`;
  if (mode & 0o020 && !sharedOk) return `its group can write to it (mode ${octal(mode)})`;
  return undefined;
}

const octal = (mode: number) => (mode & 0o7777).toString(8).padStart(4, '0');
/** A path as one word of a shell command line (PowerShell's on Windows), quoted only when it must be. */
export const shell = (path: string) => quotePath(path);

function kindOf(s: { isDirectory(): boolean; isFIFO(): boolean; isSocket(): boolean }): string {
  if (s.isDirectory()) return 'it is a folder, not a file';
  if (s.isFIFO()) return 'it is a named pipe (FIFO), not a file';
  if (s.isSocket()) return 'it is a socket, not a file';
  return 'it is a device, not a file';
}

/**
 * roster's own folder `dir` (config, cache, state), created 0700 when missing. It and every folder
 * between `root` and it must be the user's and writable by nobody else: otherwise refused, with the fix.
 * With `create: false` a missing folder is left missing (nothing to read there).
 */
export async function privateFolder(
  dir: string,
  root: string = dir,
  options: { create?: boolean } = {},
): Promise<void> {
  if (options.create !== false) {
    try {
      await mkdir(dir, { recursive: true, mode: 0o700 });
    } catch (error) {
      throw fileError(error, dir, 'create');
    }
  }
  const steps = relative(root, dir).split(sep).filter(Boolean);
  const chain = [root, ...steps.map((_, i) => join(root, ...steps.slice(0, i + 1)))];
  for (const folder of chain) {
    let s: Stats;
    try {
      // Synchronous, like readPrivateFile: a few stats at start-up, no thread-pool round trips.
      s = statSync(folder);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT' && options.create === false) return;
      throw fileError(error, folder, 'read');
    }
    if (!s.isDirectory()) {
      throw new FileError(folder, 'it is not a folder', 'Move it aside and run the command again.');
    }
    const why = distrust(s.mode, s.uid, false);
    if (why) {
      const fix =
        s.uid === uid() || s.uid === 0
          ? `Run: chmod 700 ${shell(folder)}`
          : `If it is yours, run: chown -R ${uid()} ${shell(folder)} && chmod 700 ${shell(folder)}; otherwise move it aside`;
      throw new FileError(folder, `${why}, so roster will not trust files in it`, `${fix}.`, {
        untrusted: true,
      });
    }
  }
}

/**
 * A folder the user chose for output, created 0700 when missing: the one rule for every file roster writes
 * where the user says (export --out, changes --csv, plan --out and --uncovered-csv, send --failed-csv).
 * Refused when another user owns it or others can write to it without the sticky bit (they could replace
 * the files after roster wrote them); a folder its group can write to is allowed with a warning. `what`
 * names the files in the messages.
 */
export async function outputFolder(
  dir: string,
  warn: (line: string) => void,
  what = 'the exported files',
): Promise<void> {
  let s: Stats;
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    s = statSync(dir);
  } catch (error) {
    throw fileError(error, dir, 'create');
  }
  if (!s.isDirectory()) throw new FileError(dir, 'it is not a folder', 'Choose a folder.');
  const why = distrust(s.mode, s.uid, true);
  if (why) {
    const fix = s.uid === uid() ? `Run: chmod o-w ${shell(dir)}, or choose` : 'Choose';
    throw new FileError(dir, `${why}, so they could replace ${what}`, `${fix} a folder of your own.`, {
      untrusted: true,
    });
  }
  if (uid() !== undefined && s.mode & 0o020 && !(s.mode & 0o1000)) {
    warn(
      `${dir} can be written to by its group (gid ${s.gid}): its members could replace ${what}. Run chmod g-w ${shell(dir)} to prevent it.`,
    );
  }
}

/** The folder of an output file the user named (`--out plan.csv`), checked by the rule of outputFolder. */
export function outputFileFolder(path: string, warn: (line: string) => void): Promise<void> {
  return outputFolder(dirname(path), warn, `${basename(path)} after roster wrote it`);
}

/** How readPrivateFile trusts a file: see there. */
export interface ReadOptions {
  own?: boolean;
  /** It holds a secret: readable by the user alone, as ssh wants of a private key. */
  secret?: boolean;
  followLinks?: boolean;
}

/**
 * The file's text, or undefined when it does not exist. A folder, FIFO, device or socket at the path is a
 * FileError (never a hang on a FIFO). With `own`, roster trusts what it reads there: the file must be the
 * user's and writable by nobody else; with `secret`, readable by nobody else either; with
 * `followLinks: false`, not a symbolic link.
 */
export async function readPrivateFile(path: string, options: ReadOptions = {}): Promise<string | undefined> {
  // Synchronous: roster's own files are small and read before any work starts, and each asynchronous
  // step (open, stat, read, close) is a thread-pool round trip: ~2 ms of CPU of a run with a cached
  // token (test/bench/startup.js).
  return readPrivateFileSync(path, options);
}

/** readPrivateFile, for a caller that cannot wait (under a lock, deciding a batch). */
export function readPrivateFileSync(path: string, options: ReadOptions = {}): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, O_RDONLY | O_NONBLOCK | (options.followLinks === false ? O_NOFOLLOW : 0));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw fileError(error, path, 'read');
  }
  try {
    const s = fstatSync(fd);
    trusted(s, path, Boolean(options.own || options.secret));
    if (options.secret) refuseReadableByOthers(s, path);
    return readFileSync(fd, 'utf8');
  } catch (error) {
    throw fileError(error, path, 'read');
  } finally {
    closeSync(fd);
  }
}

/**
 * The bytes of `path` when it is a regular file of the user's that nobody else can write, opened without
 * following a link (checked on the opened file); undefined for anything else or nothing there.
 */
export function readOwnBytesSync(path: string): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    trusted(fstatSync(fd), path, true);
    return readFileSync(fd);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** Refuses an opened file that is not a regular file (or, with `own`, not the user's alone). */
function trusted(s: Stats, path: string, own: boolean, action: 'read' | 'open' = 'read'): void {
  if (!s.isFile()) {
    throw new FileError(path, kindOf(s), 'Move it aside and run the command again.', { action });
  }
  const why = own ? distrust(s.mode, s.uid, false) : undefined;
  if (why) {
    const hint =
      s.uid === uid() || s.uid === 0
        ? `Run: chmod 600 ${shell(path)}`
        : 'Move it aside (another user may have planted it) and run the command again';
    throw new FileError(path, `${why}, so roster will not trust it`, `${hint}.`, {
      action,
      untrusted: true,
    });
  }
}

/**
 * Refuses a file of secrets that others than its owner may read (or use): ssh refuses a private key so. The
 * secret in it may be someone else's already; roster will not keep using it unnoticed.
 */
function refuseReadableByOthers(s: Stats, path: string): void {
  if (uid() === undefined || !(s.mode & 0o077)) return;
  const who = s.mode & 0o004 ? 'other users' : s.mode & 0o040 ? 'its group' : 'others than you';
  const verb = s.mode & 0o044 ? 'read' : 'use';
  throw new FileError(
    path,
    `${who} can ${verb} it (mode ${octal(s.mode)}), so roster will not use the secrets in it`,
    `Run: chmod 600 ${shell(path)}. If anyone else may have read it, have the district issue a new secret.`,
    { action: 'read', untrusted: true },
  );
}

/**
 * Creates `path` fresh for writing, mode 0600: never through a symbolic or hard link planted at its name.
 * Whatever is there already (a stale `.partial` of a killed run, a planted link) is removed first, and if
 * something reappears at once the creation is refused.
 */
export async function createFresh(path: string): Promise<FileHandle> {
  for (let attempt = 0; ; attempt++) {
    try {
      const handle = await open(path, FRESH, 0o600);
      // The umask may have taken bits away; never more than 0600 either way.
      await handle.chmod(0o600).catch(() => {});
      return handle;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) {
        throw fileError(error, path, 'create');
      }
      // rm unlinks a link itself, never what it points to; a folder there stays and is reported.
      await rm(path, { force: true }).catch((e) => {
        throw fileError(e, path, 'create');
      });
    }
  }
}

/** forExcel: the BOM of a CSV for office staff (output/csv.ts says why), before its text. */
function* withExcelBom(content: string | Iterable<string>): Iterable<string> {
  yield EXCEL_BOM;
  if (typeof content === 'string') yield content;
  else yield* content;
}

/**
 * Writes the file atomically: a fresh temporary sibling (O_EXCL, mode 0600) renamed over the target, so a
 * crash or a second roster process never leaves half a file, and a link planted at the target is replaced,
 * never written through. `durable` also survives a power cut (an fsync before the rename).
 */
export async function writePrivateFile(
  path: string,
  /** The text, or its pieces in order (a large file need not be held as one string: planCsvPieces), or bytes. */
  content: string | Iterable<string> | Uint8Array,
  options: { durable?: boolean; forExcel?: boolean } = {},
): Promise<void> {
  if (options.forExcel && !(content instanceof Uint8Array)) content = withExcelBom(content);
  try {
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  } catch (error) {
    throw fileError(error, dirname(path), 'create');
  }
  // node:crypto loads here, not at start-up: a run with a cached token never writes (test/bench/startup.js).
  // Imported statically, even on first use only, its stand-in costs every run 3.5 M instructions (2%).
  const { randomBytes } = await import('node:crypto');
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    const handle = await createFresh(temp);
    try {
      await writeFile(handle, content);
      // durable: on disk before it replaces the target, so a power cut leaves the old file or the new one.
      if (options.durable) await handle.sync();
    } finally {
      await handle.close();
    }
    await renameOver(temp, path);
    // ...and the rename itself on disk.
    if (options.durable) syncFolder(dirname(path));
  } catch (error) {
    await rm(temp, { force: true });
    throw fileError(error, path, 'write');
  }
}

/** rename(), retried for up to about a second where the target's readers can refuse it for now (Windows). */
async function renameOver(from: string, to: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await rename(from, to);
    } catch (error) {
      if (attempt >= 10 || !renameRefusedForNow((error as NodeJS.ErrnoException).code)) throw error;
      await new Promise((resolve) => setTimeout(resolve, attempt * 20));
    }
  }
}

/**
 * Opens a journal for appending: created 0600 when missing, otherwise only a regular file of the user's
 * that nobody else can write (checked on the opened file, not by a racy look before opening).
 */
export async function openOwnAppendable(path: string): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(path, O_RDWR | O_APPEND | O_CREAT | O_NOFOLLOW, 0o600);
  } catch (error) {
    throw fileError(error, path, 'open');
  }
  try {
    trusted(await handle.stat(), path, true, 'open');
    return handle;
  } catch (error) {
    await handle.close();
    throw fileError(error, path, 'open');
  }
}

/** Puts a folder's entries (a file just created or renamed into it) on disk; nothing to do on Windows. */
export function syncFolder(path: string): void {
  if (!canSyncFolders()) return;
  const fd = openSync(path, O_RDONLY);
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** openOwnAppendable as a file descriptor, without the thread pool: for small files rewritten often. */
export function openOwnAppendableSync(path: string): number {
  let fd: number;
  try {
    fd = openSync(path, O_RDWR | O_APPEND | O_CREAT | O_NOFOLLOW, 0o600);
  } catch (error) {
    throw fileError(error, path, 'open');
  }
  try {
    trusted(fstatSync(fd), path, true, 'open');
    return fd;
  } catch (error) {
    closeSync(fd);
    throw fileError(error, path, 'open');
  }
}

/**
 * Whether `path` is there (created 0600 first with `create`): only a regular file of the user's that nobody
 * else can write, opened without following a link, else a FileError; false when there is nothing.
 */
export function checkOwnFileSync(path: string, options: { create: boolean }): boolean {
  let fd: number;
  try {
    fd = openSync(path, (options.create ? O_RDWR | O_CREAT : O_RDONLY) | O_NONBLOCK | O_NOFOLLOW, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' && !options.create) return false;
    throw fileError(error, path, 'open');
  }
  try {
    trusted(fstatSync(fd), path, true, 'open');
    return true;
  } catch (error) {
    throw fileError(error, path, 'open');
  } finally {
    closeSync(fd);
  }
}

/** True when `path` is a regular file of the user's that nobody else can write (no link followed). */
export async function isOwnFile(path: string): Promise<boolean> {
  try {
    const s = await lstat(path);
    return s.isFile() && distrust(s.mode, s.uid, false) === undefined;
  } catch {
    return false;
  }
}

/** True when anything (a file, a link, a folder) is at `path`. */
export async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}
