// roster's lock between processes for the config file (config-file.ts's updateConfig), made of plain files
// so it works wherever the config folder does: held for one change by whichever process holds it, waited
// for (waitForLock), up to LOCK_WAIT_MS, never a failure before that. (The state of sending invitations
// coordinates through its database's own locking: invite/store/database.ts.) It also says which processes
// still run (isRunning), for the store's claims and runs.
//
// How it is made:
// - Taken atomically: the owner record (pid, the process's start time where the OS tells it, host, a random
//   token) is written to a private temporary file first and link()ed to the lock's name, which fails when the
//   lock exists. Nobody ever sees a lock without its owner.
// - Where the folder has no hard links (FAT and exFAT drives, some network shares: link() fails with EPERM,
//   ENOTSUP or EXDEV, or EISDIR for Windows' "invalid function"), the lock's name itself is created with
//   O_EXCL, which is as atomic, and the record written and fsynced into it. For that instant a reader may
//   find the lock empty or half-written: such a lock counts as held (its writer is a few microseconds from
//   done) until it has been unreadable for UNREADABLE_GRACE_MS, as a lock of a writer killed right there is.
//   The writer then reads its lock back, so a writer stalled past that grace and taken over never believes
//   it holds a lock it lost.
// - A stale lock (its owner dead: kill -9, power cut, or its pid now another process) is taken over without a
//   delete-then-create race: the right to remove one particular stale lock is itself a lock, named after that
//   lock's token, so exactly one process removes it, and only after reading that it is still that very lock.
//   A taker killed half-way leaves such a claim behind; it is stale in turn and taken over the same way.
// - Released only by its owner: a lock that is not ours (any more) is left alone.
// - Synchronous system calls behind a promise: a lock is a handful of tiny file operations, each a thread-pool
//   round trip if asynchronous.
import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  linkSync,
  openSync,
  readFileSync,
  rmSync,
  type Stats,
  statSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { RosterError } from './errors.js';
import { fileError } from './files.js';

export interface LockOwner extends ProcessRef {
  /** Unique to one taking of the lock. */
  token: string;
}

/** The lock is held by a live process (or one on another host, which cannot be checked). */
export class LockHeld extends Error {
  constructor(
    readonly path: string,
    readonly owner: LockOwner,
  ) {
    super(`${path} is held by pid ${owner.pid}`);
  }
}

/** Tokens of the locks this process holds: a lock naming our own pid is ours only if its token is here. */
const held = new Set<string>();
/** Nested takeovers allowed (each needs another run killed in the middle of a takeover). */
const MAX_DEPTH = 3;
/** An unreadable lock younger than this may be one created in place (no hard links), written just after. */
const UNREADABLE_GRACE_MS = 10_000;

/** How long a lock taken by waitForLock is waited for (each holder keeps it for one write and fsync). */
const LOCK_WAIT_MS = 30_000;

/**
 * A lock held for one short change by whichever process holds it (the config file's), so waited for; `what`
 * is what cannot be written while another holds it.
 */
export async function waitForLock(path: string, what: string): Promise<string> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (let delay = 2; ; delay = Math.min(delay * 2, 100)) {
    try {
      // Held for one batch: not worth an fsync of its own (see acquireLock).
      return await acquireLock(path, { durable: false });
    } catch (error) {
      if (!(error instanceof LockHeld)) throw fileError(error, path, 'create');
      if (Date.now() > deadline) {
        throw new RosterError(
          'failure',
          `Could not write ${what}: pid ${error.owner.pid} has held ${path} for ${LOCK_WAIT_MS / 1000} s.`,
          `If no roster runs any more, delete ${path}.`,
        );
      }
      await sleep(delay + Math.random() * delay);
    }
  }
}

/**
 * Takes the lock at `path` or throws LockHeld; returns the token that releases it. `durable: false` skips
 * the fsync of the owner record, for a lock held for milliseconds: after a power cut such a lock is stale
 * whatever it holds, and one found empty is stale too once UNREADABLE_GRACE_MS has passed (a reboot takes
 * longer).
 */
export async function acquireLock(
  path: string,
  { durable = true }: { durable?: boolean } = {},
): Promise<string> {
  return take(path, 0, durable);
}

/** Removes the lock if it is still the one `token` took. */
export async function releaseLock(path: string, token: string): Promise<void> {
  release(path, token);
}

function release(path: string, token: string): void {
  held.delete(token);
  if (readOwner(path)?.owner.token === token) rmSync(path, { force: true });
}

function take(path: string, depth: number, durable: boolean): string {
  const owner: LockOwner = { ...thisProcess(), token: randomBytes(8).toString('hex') };
  const temp = `${path}.${owner.token}.tmp`;
  const fd = openSync(temp, 'wx', 0o600);
  try {
    writeSync(fd, JSON.stringify(owner));
    // On disk before it is visible under the lock's name: after a power cut a lock is whole or absent.
    if (durable) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    held.add(owner.token);
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        if (noHardLinks.has(dirname(path))) createWritten(path, owner);
        else linkSync(temp, path);
        return owner.token;
      } catch (error) {
        const { code } = error as NodeJS.ErrnoException;
        if (code !== undefined && NO_HARD_LINKS.has(code) && !noHardLinks.has(dirname(path))) {
          noHardLinks.add(dirname(path));
          attempt--; // the same attempt, without a link
          continue;
        }
        if (code !== 'EEXIST') throw error;
      }
      const found = readOwner(path);
      if (found === undefined) continue; // released in between: try again
      if (isAlive(found)) throw new LockHeld(path, found.owner);
      if (depth >= MAX_DEPTH) throw new LockHeld(path, found.owner);
      removeStale(path, found.id, depth, durable);
    }
    throw new LockHeld(path, readOwner(path)?.owner ?? { pid: 0, token: '' });
  } catch (error) {
    held.delete(owner.token);
    throw error;
  } finally {
    rmSync(temp, { force: true });
  }
}

/** link() errors that mean the file system has no hard links (not that the lock exists or the disk fails). */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'EXDEV', 'ENOSYS', 'EISDIR']);
/** Folders where link() failed so: their locks are created in place (createWritten). */
const noHardLinks = new Set<string>();

/**
 * Creates the lock at `path` with O_EXCL (EEXIST when it is held) and writes the owner record into it,
 * fsynced; then reads it back: if it was taken over meanwhile (see the top of this file), LockHeld.
 */
function createWritten(path: string, owner: LockOwner): void {
  const fd = openSync(path, 'wx', 0o600);
  try {
    writeSync(fd, JSON.stringify(owner));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  const found = readOwner(path);
  if (found?.owner.token !== owner.token) {
    throw new LockHeld(path, found?.owner ?? { pid: 0, token: '' });
  }
}

/** Removes the lock at `path` if it is still the stale one identified by `id`, under a claim on that id. */
function removeStale(path: string, id: string, depth: number, durable: boolean): void {
  const claim = `${path}.${id}.takeover`;
  // Throws LockHeld when a live process is taking this very lock over: it will be the one to hold it.
  const token = take(claim, depth + 1, durable);
  try {
    // Only a holder of this claim removes this lock, and its dead owner cannot: it is still there, unchanged.
    if (readOwner(path)?.id === id) rmSync(path, { force: true });
  } finally {
    release(claim, token);
  }
}

interface Found {
  owner: LockOwner;
  /** Names this very lock file (its token; for a lock without one, its inode, time and content). */
  id: string;
  /** The owner could not be read: empty (created in place and not yet written, or a crash) or damaged. */
  unreadable?: { ageMs: number };
}

function readOwner(path: string): Found | undefined {
  let text: string;
  let info: Stats;
  try {
    info = statSync(path);
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const owner = parseOwner(text);
  if (owner) return { owner, id: owner.token };
  // An unreadable lock: named by what the file is.
  const id = createHash('sha256')
    .update(`${info.dev}:${info.ino}:${info.mtimeMs}:${text}`)
    .digest('hex')
    .slice(0, 16);
  // An mtime ahead of this machine's clock (a file server's clock, a touch) is as old as it is far ahead:
  // a lock stamped a year ahead would otherwise stand for a year.
  return { owner: { pid: 0, token: '' }, id, unreadable: { ageMs: Math.abs(Date.now() - info.mtimeMs) } };
}

function parseOwner(text: string): LockOwner | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockOwner>;
    if (
      Number.isSafeInteger(value.pid) &&
      (value.pid as number) > 0 &&
      typeof value.token === 'string' &&
      /^[0-9a-f]{16}$/.test(value.token)
    )
      return value as LockOwner;
  } catch {}
  return undefined;
}

function isAlive({ owner, unreadable }: Found): boolean {
  if (unreadable) return unreadable.ageMs < UNREADABLE_GRACE_MS;
  // Our own pid: held by this very process, or left by an earlier process that had the same pid.
  if (owner.pid === process.pid && (owner.host ?? hostname()) === hostname()) return held.has(owner.token);
  return isRunning(owner);
}

/** A process as another process can recognise it later: pid, host and, where the OS tells it, start time. */
export interface ProcessRef {
  pid: number;
  host?: string;
  /** When the process started (Linux: clock ticks since boot), so a reused pid is not taken for it. */
  started?: string;
}

let me: ProcessRef | undefined;

/** This process. */
export function thisProcess(): ProcessRef {
  if (!me) {
    const started = startTime(process.pid);
    me = { pid: process.pid, host: hostname(), ...(started !== undefined && { started }) };
  }
  return me;
}

/** True while the process runs (one on another host, which cannot be checked, is assumed to). */
export function isRunning(ref: ProcessRef): boolean {
  // Another machine's process (a shared folder) cannot be checked from here: assume it is running.
  if (ref.host !== undefined && ref.host !== hostname()) return true;
  try {
    process.kill(ref.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  // The pid is in use: by that process, unless it started at another time (the pid was reused).
  const started = ref.started === undefined ? undefined : startTime(ref.pid);
  return started === undefined || started === ref.started;
}

/** The process's start time where the OS tells it cheaply (Linux /proc), else undefined. */
function startTime(pid: number): string | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 22; the command name (field 2) is in parentheses and may hold spaces, so count after it.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}
