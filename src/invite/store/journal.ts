// A run's journal (format: index.ts): one JSON object per line, appended and fsynced before each request
// (in-flight) and after it (sent, failed, in-doubt), so a run killed at any instant can be resumed without
// sending any e-mail twice. Appends from concurrent rows are group-committed: one write and one fsync per
// batch. Its lock (lock.ts, refuseIfHeld) keeps two runs from sending the same file to the same place at once.
//
// The journal belongs to the input file and the destination (layout.ts), not to the file's content: an admin
// who fixes failed rows, adds rows or reorders them and runs the same command again resumes the same journal.
// Rows are matched by who the invitation is for (e-mail and school, see invitationKey), never by line number,
// which moves when rows are inserted.
import { createHash } from 'node:crypto';
import { fsyncSync, writeFileSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { realpath } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { InvitationBody } from '../../api/enrollment.js';
import { RosterError } from '../../errors.js';
import { openOwnAppendable, privateFolder, readPrivateFile, readPrivateFileSync } from '../../files.js';
import { refuseIfHeld, releaseLock, syncFd } from '../../lock.js';
import { forEachLine } from './json-lines.js';
import { type Destination, journalPath, sameDestination } from './layout.js';

/** `pending`: an earlier build's entry for a row planned and not yet tried (index.ts), read as none. */
export type RowState = 'pending' | 'in-flight' | 'sent' | 'failed' | 'in-doubt';

export interface JournalEntry {
  /** The row's identity, invitationKey(email, schoolId): what a later run looks the row up by. */
  key: string;
  /** Where the row was in the file when this entry was written: for messages only, it moves with edits. */
  line: number;
  state: RowState;
  at: string;
  email?: string;
  schoolId?: string;
  /** bodyHash of the row's request, so a later run can tell the row was edited after it was sent. */
  bodyHash?: string;
  /** Why a row failed or is in doubt. */
  reason?: string;
  /** HTTP status of a failure, when the server answered. */
  status?: number;
  /** Set on an in-flight entry when the row was in doubt and sent again with --resend-in-doubt. */
  resend?: boolean;
  /**
   * On an outcome: when its request first left (its in-flight entry's time), so that a later run asking the
   * server's list for it (invite/settle.ts) knows how old an invitation can settle it.
   */
  requestedAt?: string;
}

export interface JournalHeader {
  journal: 'roster invite send';
  version: 1;
  /** The input file's real path. */
  file: string;
  destination: Destination;
  /** SHA-256 of the file's content when the journal began: information only (the file may be edited later). */
  sha256: string;
  createdAt: string;
}

/** Where a run's journal is. */
export interface JournalPlace {
  path: string;
  /** The input file's real path: symlinks, `.` and `..` resolved, as the OS spells it. */
  file: string;
}

/** This run's journal: the input file resolved to its real path, so every spelling of it finds one journal. */
export async function locateJournal(
  stateDir: string,
  absoluteFile: string,
  destination: Destination,
): Promise<JournalPlace> {
  const file = await realpath(absoluteFile);
  return { path: journalPath(stateDir, file, destination), file };
}

export const contentHash = (content: string) => createHash('sha256').update(content).digest('hex');

/** A short digest of a request body (built in a fixed field order), to notice a row edited after sending. */
export const bodyHash = (body: InvitationBody) =>
  createHash('sha256').update(JSON.stringify(body)).digest('hex').slice(0, 16);

export class Journal {
  private queue: { text: string; resolve: () => void; reject: (error: unknown) => void }[] = [];
  private writing = false;
  private scheduled = false;
  /** How long this disk's fsyncs take, on average (ms), while they are waited for here (sync). */
  private syncMs = 0;

  private constructor(
    readonly path: string,
    private readonly handle: FileHandle,
    private readonly lockToken: string,
    /** The header the journal began with (the first run's content hash included). */
    readonly header: JournalHeader,
    /**
     * The last state of each row as the journal held it when opened, by key. What this run records goes to
     * disk only: kept here too, a district's every row would be held for the whole run.
     */
    readonly states: ReadonlyMap<string, LastEntry>,
    /** True when this run created the journal (a first run, not a resume). */
    readonly created: boolean,
  ) {}

  /** Reads the current state without taking the lock or creating anything (for --dry-run). */
  static async peek(path: string): Promise<{ header?: JournalHeader; states: Map<string, LastEntry> }> {
    await privateFolder(dirname(path), dirname(path), { create: false });
    const text = await readText(path);
    if (text === undefined || text === '') return { states: new Map() };
    const reader = new JournalReader(path);
    const end = text.lastIndexOf('\n') + 1;
    reader.lines(text.slice(0, end));
    // Not cut here (no lock is held): a torn last line is no entry, one whole but for its newline is.
    reader.lastLine(text.slice(end));
    const { header, states } = reader.done();
    return { header, states };
  }

  /** Takes the journal's lock and reads it, or creates it. */
  static async open(path: string, header: Omit<JournalHeader, 'createdAt'>, now: Date): Promise<Journal> {
    // Another user's folder could hold a journal seeded with "sent" rows (the caller checks the folders above).
    await privateFolder(dirname(path));
    const token = await refuseIfHeld(path);
    let handle: FileHandle | undefined;
    try {
      // Created 0600, or the user's own regular file that nobody else can write (checked on the open file).
      handle = await openOwnAppendable(path);
      const reader = new JournalReader(path);
      const { whole, size } = await readWholeLines(handle, (text) => reader.lines(text));
      // A torn last line (killed mid-write) was never confirmed: drop it, so the next append starts clean.
      if (whole < size) await handle.truncate(whole);
      const existing = whole === 0 ? undefined : reader.done();
      // A changed content is expected (rows fixed or added); another file or destination is not.
      if (
        existing &&
        (existing.header.file !== header.file ||
          !sameDestination(existing.header.destination, header.destination))
      ) {
        throw new RosterError('failure', `The journal ${path} belongs to another file or destination.`);
      }
      const first: JournalHeader = existing?.header ?? { ...header, createdAt: now.toISOString() };
      const journal = new Journal(path, handle, token, first, existing?.states ?? new Map(), !existing);
      if (!existing) await journal.append([first]);
      return journal;
    } catch (error) {
      await handle?.close();
      await releaseLock(`${path}.lock`, token);
      throw error;
    }
  }

  /** Appends the entries and resolves once they are on disk (`states` stays what the run began with). */
  record(entries: JournalEntry[]): Promise<void> {
    return this.append(entries);
  }

  async close(): Promise<void> {
    await this.handle.close();
    await releaseLock(`${this.path}.lock`, this.lockToken);
  }

  private append(objects: object[]): Promise<void> {
    const text = objects.map((o) => `${JSON.stringify(o)}\n`).join('');
    return new Promise((resolve, reject) => {
      this.queue.push({ text, resolve, reject });
      if (this.writing || this.scheduled) return;
      // Written once this turn of the event loop is done: a row's outcome and the in-flight entry of the
      // row its worker takes next arrive in one turn, and share one write and one fsync.
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        void this.flush();
      });
    });
  }

  /**
   * The fsync on every row's way out. A disk that syncs in a fraction of a millisecond (a local SSD: ~0.3 ms)
   * is waited for here, since the thread pool's round trip would cost more than the fsync (1–2% of a
   * district's send time). Once this disk proves slower on average, or stalls once for long (other rows'
   * answers wait meanwhile, and their requests' timers could run out), the thread pool takes every later one.
   */
  private async sync(): Promise<void> {
    if (this.syncMs >= SLOW_SYNC_MS) return syncFd(this.handle.fd);
    const started = performance.now();
    fsyncSync(this.handle.fd);
    const took = performance.now() - started;
    // A short stall (the disk busy with something else) counts for a few slow fsyncs, not more.
    this.syncMs =
      took >= STALL_MS
        ? SLOW_SYNC_MS
        : this.syncMs + (Math.min(took, 4 * SLOW_SYNC_MS) - this.syncMs) / SYNC_AVERAGE_OVER;
  }

  private async flush(): Promise<void> {
    this.writing = true;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0);
      try {
        // The write synchronous (the handle appends; a few hundred bytes): no round trip through the thread
        // pool on every row's way out.
        writeFileSync(this.handle.fd, batch.map((b) => b.text).join(''));
        await this.sync();
        for (const b of batch) b.resolve();
      } catch (error) {
        for (const b of batch)
          b.reject(
            new RosterError(
              'failure',
              `Could not write the journal ${this.path}: ${(error as Error).message}.`,
            ),
          );
      }
    }
    this.writing = false;
  }
}

/**
 * The rows of `keys` (invitationKey) whose request the journal at `path` ever let leave (an in-flight entry,
 * written before a request leaves), and when the journal began; read without its lock, for a run that meets
 * claims a dead run left (sent-record.ts). Undefined when it cannot be trusted to tell: missing, not the
 * user's own file, damaged, or for another destination.
 */
export function requestsLeftIn(
  path: string,
  keys: ReadonlySet<string>,
  destination: Destination,
): { createdAt: string; inFlight: Set<string> } | undefined {
  let text: string | undefined;
  try {
    text = readPrivateFileSync(path, { own: true, followLinks: false });
  } catch {
    return undefined;
  }
  if (text === undefined) return undefined;
  const inFlight = new Set<string>();
  let createdAt: string | undefined;
  let trusted = true;
  // What follows the last newline is a torn line (the run died writing it): no entry.
  forEachLine(text.slice(0, text.lastIndexOf('\n') + 1), (line, index) => {
    if (!trusted) return;
    let entry: Partial<JournalEntry & JournalHeader>;
    try {
      entry = JSON.parse(line) as Partial<JournalEntry & JournalHeader>;
    } catch {
      trusted = false;
      return;
    }
    if (index === 0) {
      trusted =
        entry.journal === 'roster invite send' &&
        entry.version === 1 &&
        sameDestination(entry.destination, destination) &&
        typeof entry.createdAt === 'string';
      createdAt = entry.createdAt;
    } else if (typeof entry.key !== 'string' || typeof entry.state !== 'string') trusted = false;
    else if (entry.state === 'in-flight' && keys.has(entry.key)) inFlight.add(entry.key);
  });
  return trusted && createdAt !== undefined ? { createdAt, inFlight } : undefined;
}

/**
 * A row's last entry, as much of it as a later run reads (decide.ts, the report): a district's journal is
 * held as this per row, not as its whole entries.
 */
export type LastEntry = Pick<JournalEntry, 'state' | 'at' | 'bodyHash' | 'reason' | 'status' | 'requestedAt'>;

/** The states a run writes, so that each row's last entry shares one string rather than its own. */
const STATES = new Map<string, RowState>(
  (['pending', 'in-flight', 'sent', 'failed', 'in-doubt'] as const).map((s) => [s, s]),
);

/** An average fsync this long (ms) or longer goes through the thread pool (Journal.sync). */
const SLOW_SYNC_MS = 1;
/** The fsyncs Journal.sync averages over, about: one slow among them does not make the disk slow. */
const SYNC_AVERAGE_OVER = 20;
/** One fsync this long (ms) sends every later one through the thread pool: the event loop never waits so again. */
const STALL_MS = 50;

/** Bytes of a journal read at a time: a district's is tens of MB, never held whole. */
const CHUNK = 1 << 20;

/**
 * Hands `take` the file's whole lines, a chunk at a time (each ends with a newline, and a newline byte is
 * never part of a UTF-8 sequence); returns the bytes they fill (`whole`) and all the bytes read (`size`):
 * what follows `whole` is a torn last line.
 */
async function readWholeLines(
  handle: FileHandle,
  take: (text: string) => void,
): Promise<{ whole: number; size: number }> {
  const buffer = Buffer.alloc(CHUNK);
  let whole = 0;
  let carry = Buffer.alloc(0);
  for (;;) {
    const { bytesRead } = await handle.read(buffer, 0, CHUNK, whole + carry.length);
    if (bytesRead === 0) return { whole, size: whole + carry.length };
    const bytes = carry.length > 0 ? Buffer.concat([carry, buffer.subarray(0, bytesRead)]) : buffer;
    const read = carry.length + bytesRead;
    const end = bytes.lastIndexOf(10, read - 1) + 1;
    if (end > 0) take(bytes.toString('utf8', 0, end));
    whole += end;
    // Copied: `buffer` is read into again.
    carry = Buffer.from(bytes.subarray(end, read));
  }
}

/**
 * A journal's entries as its lines come, in order: the header, then each row's last entry. A damaged line
 * is refused (only the very last one, torn by a crash, is not an entry).
 */
class JournalReader {
  private header: JournalHeader | undefined;
  private readonly states = new Map<string, LastEntry>();
  /** Lines read so far (for a message naming a damaged one). */
  private index = 0;
  /** Entries written together share their time: one string for them all. */
  private previousAt = '';

  constructor(private readonly path: string) {}

  /** Whole lines: text that is empty or ends with a newline. */
  lines(text: string): void {
    forEachLine(text, (line) => this.line(line, false));
  }

  /** What follows the last newline: a torn line when it does not parse. */
  lastLine(text: string): void {
    if (text !== '') this.line(text, true);
  }

  done(): { header: JournalHeader; states: Map<string, LastEntry> } {
    if (!this.header) throw new RosterError('failure', `${this.path} is not a roster invite journal.`);
    return { header: this.header, states: this.states };
  }

  private line(line: string, last: boolean): void {
    const index = this.index++;
    if (line === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      // Only the last line can be torn by a crash; anything else means the file was damaged.
      if (last) return;
      throw new RosterError(
        'failure',
        `The journal ${this.path} is damaged at line ${index + 1}.`,
        'Move it aside only if you are sure: rows it recorded as sent would be sent again.',
      );
    }
    const entry = value as Partial<JournalEntry & JournalHeader>;
    if (index === 0) {
      if (entry.journal !== 'roster invite send' || entry.version !== 1) {
        throw new RosterError('failure', `${this.path} is not a roster invite journal.`);
      }
      this.header = entry as JournalHeader;
    } else if (
      typeof entry.key === 'string' &&
      typeof entry.line === 'number' &&
      typeof entry.state === 'string'
    ) {
      if (entry.at === this.previousAt) entry.at = this.previousAt;
      else if (typeof entry.at === 'string') this.previousAt = entry.at;
      this.states.set(entry.key, lastEntry(entry as JournalEntry));
    } else {
      // Skipping it could forget a row that was sent: refuse instead.
      throw new RosterError(
        'failure',
        `The journal ${this.path} has an entry at line ${index + 1} that names no row.`,
        'Move it aside only if you are sure: rows it recorded as sent would be sent again.',
      );
    }
  }
}

function lastEntry(entry: JournalEntry): LastEntry {
  const last: LastEntry = { state: STATES.get(entry.state) ?? entry.state, at: entry.at };
  if (entry.bodyHash !== undefined) last.bodyHash = entry.bodyHash;
  if (entry.reason !== undefined) last.reason = entry.reason;
  if (entry.status !== undefined) last.status = entry.status;
  if (entry.requestedAt !== undefined) last.requestedAt = entry.requestedAt;
  return last;
}

/** A journal's text: only the user's own regular file, never through a link (see files.ts). */
const readText = (path: string) => readPrivateFile(path, { own: true, followLinks: false });
