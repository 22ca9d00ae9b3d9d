// Claims on invitations being sent, kept beside roster's record of sent invitations (`<record>.claims`). The
// record says who was invited; the claims say who is being invited right now and by which run, so runs of
// different files (each with its own journal) never send one family at the same time, and a run killed with
// a request in flight leaves that family in doubt for every other run, as its own journal does for itself.
//
// - One JSON object per line; an invitation's last line is its claim: `sending` (held by a run that sends
//   it next: claimed a little ahead of its request, or with the request about to leave or out, until a
//   deadline), `in-doubt` (the run could not tell whether it was sent) or `done` (sent and in the record, or
//   certainly not sent).
// - Read and written only under the record's lock (sent-record.ts), in whole lines, fsynced before any
//   request leaves. Read incrementally (what was appended since), and rewritten with the unsettled claims
//   alone once most of its lines are settled.
// - A rewritten file starts with a line of its own, `{"rewrite": <random>}`. A process reading on from
//   where it stopped first checks that the file still starts as it did: the inode alone does not say the
//   file was replaced, since a file system may give the new file the old one's inode number.

import { randomUUID } from 'node:crypto';
import { closeSync, fstatSync, ftruncateSync, readSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { RosterError } from '../../errors.js';
import {
  fileError,
  openOwnAppendableSync,
  readPrivateFile,
  syncFolder,
  writePrivateFile,
} from '../../files.js';
import { type ProcessRef, syncFd } from '../../lock.js';
import { forEachLine } from './json-lines.js';

export type ClaimState = 'sending' | 'in-doubt' | 'done';

/** A run as its claims name it: its journal's path (or a single send's name), its file, when its journal began. */
export interface ClaimingRun {
  run: string;
  file?: string;
  began?: string;
}

export interface Claim extends ProcessRef {
  /** The invitation (invitationIdentity). */
  id: string;
  /** The run that claimed it: its journal's path. */
  run: string;
  /** The file that run sends, for a message naming it. */
  file?: string;
  /** When that run's journal began (its header's createdAt): the journal a dead run's claim is read against. */
  began?: string;
  /** Taken over another run's doubt (--resend-*): if its run dies, the row stays in doubt, whatever its journal says. */
  over?: 'in-doubt';
  state: ClaimState;
  at: string;
  /**
   * A `sending` claim's deadline: past it the request has certainly ended (every attempt timed out), so a
   * claim still unsettled was left by a run that stopped, or hangs (suspended, or a pid since reused).
   */
  until?: string;
}

/**
 * Past this many lines, a file whose claims are mostly settled is rewritten with the unsettled ones. Each
 * rewrite costs two fsyncs (the file, its folder) while every row waits; a file of this many lines (some
 * 250 KB) is still read in a few milliseconds by a process that opens it, and only once.
 */
const COMPACT_AFTER = 1024;

/** One process's view of a claims file: the latest claim per invitation, read up to `offset`. */
export class ClaimsFile {
  private readonly latest = new Map<string, Claim>();
  private offset = 0;
  private lines = 0;
  private inode = -1;
  /** The file's first line as this process read it: another first line means another file. */
  private firstLine = Buffer.alloc(0);

  constructor(readonly path: string) {}

  /**
   * Under the record's lock: reads what was appended since the last call (all of it after a rewrite),
   * lets `decide` see the latest claim of each invitation and return the claims to add, and writes them
   * (fsynced) before returning. Synchronous system calls but the fsync (syncFd): this runs for every batch of rows, while their
   * requests wait for it.
   */
  async update(decide: (latest: ReadonlyMap<string, Claim>) => Claim[]): Promise<void> {
    const fd = openOwnAppendableSync(this.path);
    let open = true;
    try {
      const { ino, size } = fstatSync(fd);
      // Rewritten (another inode, another first line) or cut shorter than we read: read it again from the start.
      if (ino !== this.inode || size < this.offset || !this.startsAsRead(fd)) this.reset(ino);
      const bytes = Buffer.alloc(size - this.offset);
      readSync(fd, bytes, 0, bytes.length, this.offset);
      // A torn last line (a writer killed mid-write) never became a claim: cut off before appending.
      const whole = bytes.lastIndexOf(10) + 1;
      if (this.offset === 0) this.noteFirstLine(bytes);
      this.ingest(bytes.toString('utf8', 0, whole));
      this.offset += whole;
      const added = decide(this.latest);
      for (const claim of added) this.latest.set(claim.id, claim);
      const lines = this.lines + added.length;
      // Listed only when the file is long enough to compact: every batch of rows comes through here.
      const unsettled = lines > COMPACT_AFTER ? unsettledOf(this.latest) : [];
      if (lines > COMPACT_AFTER && unsettled.length * 4 < lines) {
        // Closed first: Windows cannot replace a file that is open, even by the process replacing it (EPERM).
        closeSync(fd);
        open = false;
        const header = `${JSON.stringify({ rewrite: randomUUID() })}\n`;
        await writePrivateFile(this.path, header + serialize(unsettled), { durable: true });
        this.reset(-1);
        return;
      }
      if (added.length === 0) return;
      if (this.offset < size) ftruncateSync(fd, this.offset);
      const text = serialize(added);
      if (this.offset === 0) this.noteFirstLine(Buffer.from(text));
      writeFileSync(fd, text);
      await syncFd(fd);
      // A file just created: its name too must survive a power cut.
      if (this.offset === 0) syncFolder(dirname(this.path));
      this.offset += Buffer.byteLength(text);
      this.lines = lines;
    } catch (error) {
      throw fileError(error, this.path, 'write');
    } finally {
      if (open) closeSync(fd);
    }
  }

  private reset(inode: number): void {
    this.latest.clear();
    this.offset = 0;
    this.lines = 0;
    this.inode = inode;
    this.firstLine = Buffer.alloc(0);
  }

  private noteFirstLine(start: Buffer): void {
    this.firstLine = Buffer.from(start.subarray(0, start.indexOf(10) + 1));
  }

  private startsAsRead(fd: number): boolean {
    if (this.offset === 0) return true;
    const now = Buffer.alloc(this.firstLine.length);
    readSync(fd, now, 0, now.length, 0);
    return now.equals(this.firstLine);
  }

  /** Whole lines read elsewhere (readClaims). */
  takeIn(text: string): void {
    this.ingest(text);
  }

  /** The latest claim of each invitation read so far. */
  get claims(): ReadonlyMap<string, Claim> {
    return this.latest;
  }

  private ingest(text: string): void {
    forEachLine(text, (line, index) => {
      if (index === 0 && this.lines === 0 && isRewriteHeader(line)) {
        this.lines++;
        return;
      }
      const claim = parseClaim(line);
      // A claim skipped could let two runs send one family: refuse, as the record does.
      if (!claim) {
        throw new RosterError(
          'failure',
          `The claims on invitations being sent, ${this.path}, are damaged at line ${this.lines + 1}.`,
          'Move the file aside only when no roster runs: a family in doubt there could be e-mailed again.',
        );
      }
      this.latest.set(claim.id, claim);
      this.lines++;
    });
  }
}

/**
 * The latest claim of each invitation, read only (`roster invite history`): nothing created, no lock; an
 * absent file holds none, a torn last line is not a claim.
 */
export async function readClaims(path: string): Promise<ReadonlyMap<string, Claim>> {
  const text = await readPrivateFile(path, { own: true, followLinks: false });
  const file = new ClaimsFile(path);
  if (text !== undefined) file.takeIn(text.slice(0, text.lastIndexOf('\n') + 1));
  return file.claims;
}

const unsettledOf = (latest: ReadonlyMap<string, Claim>) =>
  [...latest.values()].filter((c) => c.state !== 'done');

const serialize = (claims: Claim[]) => claims.map((c) => `${JSON.stringify(c)}\n`).join('');

function isRewriteHeader(line: string): boolean {
  try {
    return typeof (JSON.parse(line) as { rewrite?: unknown }).rewrite === 'string';
  } catch {
    return false;
  }
}

const STATES: readonly string[] = ['sending', 'in-doubt', 'done'] satisfies ClaimState[];

function parseClaim(line: string): Claim | undefined {
  try {
    const value = JSON.parse(line) as Partial<Claim>;
    if (
      typeof value.id === 'string' &&
      typeof value.run === 'string' &&
      typeof value.at === 'string' &&
      STATES.includes(value.state as string) &&
      Number.isSafeInteger(value.pid) &&
      (value.file === undefined || typeof value.file === 'string') &&
      (value.began === undefined || typeof value.began === 'string') &&
      (value.over === undefined || value.over === 'in-doubt') &&
      (value.host === undefined || typeof value.host === 'string') &&
      (value.started === undefined || typeof value.started === 'string') &&
      (value.until === undefined || typeof value.until === 'string')
    )
      return value as Claim;
  } catch {}
  return undefined;
}
