// The bulk-send journal: one JSON object per line, appended and fsynced before each request (in-flight) and
// after it (sent, failed, in-doubt), so a run killed at any instant can be resumed without sending any
// e-mail twice. Appends from concurrent rows are group-committed: one write and one fsync per batch.
// A lock file keeps two runs from sending the same file to the same place at once.
//
// The journal belongs to the input file's absolute path and the destination (base URL and client id), not
// to the file's content: an admin who fixes failed rows, adds rows or reorders them and runs the same command
// again resumes the same journal. Rows are matched by who the invitation is for (e-mail and school, see
// invitationKey), never by line number, which moves when rows are inserted.
import { createHash } from 'node:crypto';
import { type FileHandle, mkdir, open, readFile, rm, truncate } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { RosterError } from '../errors.js';
import { type InvitationBody, invitationKey } from './invitation.js';

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
}

/** Where a run sends: the same file sent to another district (or as another client) is another run. */
export interface Destination {
  baseUrl: string;
  clientId: string;
}

export interface JournalHeader {
  journal: 'roster invite send';
  version: 1;
  /** Absolute path of the input file and where it is sent: the journal belongs to both. */
  file: string;
  destination: Destination;
  /** SHA-256 of the file's content when the journal began: information only (the file may be edited later). */
  sha256: string;
  createdAt: string;
}

/**
 * `<state>/invites/<file name>-<hash of absolute path, base URL and client id>.jsonl`: one journal per input
 * file and destination, whatever the file holds now.
 */
export function journalPath(stateDir: string, absoluteFile: string, destination: Destination): string {
  const hash = createHash('sha256')
    .update(absoluteFile)
    .update('\0')
    .update(destination.baseUrl)
    .update('\0')
    .update(destination.clientId)
    .digest('hex');
  const name = basename(absoluteFile)
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .slice(0, 60);
  return join(stateDir, 'invites', `${name}-${hash.slice(0, 16)}.jsonl`);
}

export const contentHash = (content: string) => createHash('sha256').update(content).digest('hex');

/** A short digest of a request body (built in a fixed field order), to notice a row edited after sending. */
export const bodyHash = (body: InvitationBody) =>
  createHash('sha256').update(JSON.stringify(body)).digest('hex').slice(0, 16);

const sameDestination = (a: Destination | undefined, b: Destination) =>
  a !== undefined && a.baseUrl === b.baseUrl && a.clientId === b.clientId;

export class Journal {
  private queue: { text: string; resolve: () => void; reject: (error: unknown) => void }[] = [];
  private writing = false;

  private constructor(
    readonly path: string,
    private readonly handle: FileHandle,
    /** The header the journal began with (the first run's content hash included). */
    readonly header: JournalHeader,
    /** The last recorded state of each row, by key. */
    readonly states: Map<string, JournalEntry>,
    /** True when this run created the journal (a first run, not a resume). */
    readonly created: boolean,
  ) {}

  /** Reads the current state without taking the lock or creating anything (for --dry-run). */
  static async peek(path: string): Promise<{ header?: JournalHeader; states: Map<string, JournalEntry> }> {
    const text = await readText(path);
    return text === undefined || text === '' ? { states: new Map() } : parse(path, text);
  }

  static async open(path: string, header: Omit<JournalHeader, 'createdAt'>, now: Date): Promise<Journal> {
    await mkdir(join(path, '..'), { recursive: true, mode: 0o700 });
    await lock(path);
    try {
      let text = await readText(path);
      if (text !== undefined) {
        // A torn last line (killed mid-write) was never confirmed: drop it, so the next append starts clean.
        const end = text.lastIndexOf('\n') + 1;
        if (end < text.length) {
          await truncate(path, Buffer.byteLength(text.slice(0, end)));
          text = text.slice(0, end);
        }
      }
      const existing = text === undefined || text === '' ? undefined : parse(path, text);
      // A changed content is expected (rows fixed or added); another file or destination is not.
      if (
        existing &&
        (existing.header.file !== header.file ||
          !sameDestination(existing.header.destination, header.destination))
      ) {
        throw new RosterError('failure', `The journal ${path} belongs to another file or destination.`);
      }
      const handle = await open(path, 'a', 0o600);
      const first: JournalHeader = existing?.header ?? { ...header, createdAt: now.toISOString() };
      const journal = new Journal(path, handle, first, existing?.states ?? new Map(), existing === undefined);
      if (!existing) await journal.append([first]);
      return journal;
    } catch (error) {
      await unlock(path);
      throw error;
    }
  }

  /** Appends the entries and resolves once they are on disk; the in-memory states follow. */
  async record(entries: JournalEntry[]): Promise<void> {
    await this.append(entries);
    for (const entry of entries) this.states.set(entry.key, entry);
  }

  async close(): Promise<void> {
    await this.handle.close();
    await unlock(this.path);
  }

  private append(objects: object[]): Promise<void> {
    const text = objects.map((o) => `${JSON.stringify(o)}\n`).join('');
    return new Promise((resolve, reject) => {
      this.queue.push({ text, resolve, reject });
      if (!this.writing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.writing = true;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0);
      try {
        await this.handle.appendFile(batch.map((b) => b.text).join(''));
        await this.handle.sync();
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

function parse(path: string, text: string): { header: JournalHeader; states: Map<string, JournalEntry> } {
  const lines = text.split('\n');
  const states = new Map<string, JournalEntry>();
  let header: JournalHeader | undefined;
  lines.forEach((line, index) => {
    if (line === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      // Only the last line can be torn by a crash; anything else means the file was damaged.
      if (index === lines.length - 1) return;
      throw new RosterError(
        'failure',
        `The journal ${path} is damaged at line ${index + 1}.`,
        'Move it aside only if you are sure: rows it recorded as sent would be sent again.',
      );
    }
    const entry = value as Partial<JournalEntry & JournalHeader>;
    if (index === 0) {
      if (entry.journal !== 'roster invite send' || entry.version !== 1) {
        throw new RosterError('failure', `${path} is not a roster invite journal.`);
      }
      header = entry as JournalHeader;
    } else if (typeof entry.line === 'number' && typeof entry.state === 'string') {
      // Entries written before rows had a key name their e-mail and school, which is all the key is.
      const key =
        typeof entry.key === 'string'
          ? entry.key
          : typeof entry.email === 'string' && typeof entry.schoolId === 'string'
            ? invitationKey(entry.email, entry.schoolId)
            : undefined;
      if (key === undefined) {
        // Skipping it could forget a row that was sent: refuse instead.
        throw new RosterError(
          'failure',
          `The journal ${path} has an entry at line ${index + 1} that names no e-mail and school.`,
          'Move it aside only if you are sure: rows it recorded as sent would be sent again.',
        );
      }
      states.set(key, { ...entry, key } as JournalEntry);
    }
  });
  if (!header) throw new RosterError('failure', `${path} is not a roster invite journal.`);
  return { header, states };
}

async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

async function lock(path: string): Promise<void> {
  const lockPath = `${path}.lock`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(lockPath, 'wx', 0o600);
      await handle.writeFile(String(process.pid));
      await handle.close();
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const pid = Number((await readText(lockPath))?.trim());
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid)) {
        throw new RosterError(
          'failure',
          `Another roster run (pid ${pid}) is sending invitations from this file.`,
          `Wait for it to finish; the journal is ${path}.`,
        );
      }
      // Left by a run that was killed: nobody holds it.
      await rm(lockPath, { force: true });
    }
  }
  throw new RosterError('failure', `Could not lock the journal ${path}.`);
}

async function unlock(path: string): Promise<void> {
  await rm(`${path}.lock`, { force: true });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
