// The bulk-send journal: one JSON object per line, appended and fsynced before each request (in-flight) and
// after it (sent, failed, in-doubt), so a run killed at any instant can be resumed without sending any
// e-mail twice. Appends from concurrent rows are group-committed: one write and one fsync per batch.
// A lock file keeps two runs from sending the same file at once.
import { createHash } from 'node:crypto';
import { type FileHandle, mkdir, open, readFile, rm, truncate } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { RosterError } from '../errors.js';

export type RowState = 'pending' | 'in-flight' | 'sent' | 'failed' | 'in-doubt';

export interface JournalEntry {
  line: number;
  state: RowState;
  at: string;
  email?: string;
  schoolId?: string;
  /** Why a row failed or is in doubt. */
  reason?: string;
  /** HTTP status of a failure, when the server answered. */
  status?: number;
  /** Set on an in-flight entry when the row was in doubt and sent again with --resend-in-doubt. */
  resend?: boolean;
}

export interface JournalHeader {
  journal: 'roster invite send';
  version: 1;
  /** Absolute path of the input file and the SHA-256 of its content: the journal belongs to both. */
  file: string;
  sha256: string;
  createdAt: string;
}

/** `<state>/invites/<file name>-<hash of absolute path and content>.jsonl`: one journal per input. */
export function journalPath(stateDir: string, absoluteFile: string, content: string): string {
  const hash = createHash('sha256').update(absoluteFile).update('\0').update(content).digest('hex');
  const name = basename(absoluteFile)
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .slice(0, 60);
  return join(stateDir, 'invites', `${name}-${hash.slice(0, 16)}.jsonl`);
}

export const contentHash = (content: string) => createHash('sha256').update(content).digest('hex');

export class Journal {
  private queue: { text: string; resolve: () => void; reject: (error: unknown) => void }[] = [];
  private writing = false;

  private constructor(
    readonly path: string,
    private readonly handle: FileHandle,
    /** The last recorded state of each row, by line. */
    readonly states: Map<number, JournalEntry>,
    /** True when this run created the journal (a first run, not a resume). */
    readonly created: boolean,
  ) {}

  /** Reads the current state without taking the lock or creating anything (for --dry-run). */
  static async peek(path: string): Promise<Map<number, JournalEntry>> {
    const text = await readText(path);
    return text === undefined ? new Map() : parse(path, text).states;
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
      if (existing && (existing.header.sha256 !== header.sha256 || existing.header.file !== header.file)) {
        throw new RosterError('failure', `The journal ${path} belongs to another file.`);
      }
      const handle = await open(path, 'a', 0o600);
      const journal = new Journal(path, handle, existing?.states ?? new Map(), existing === undefined);
      if (!existing) await journal.append([{ ...header, createdAt: now.toISOString() }]);
      return journal;
    } catch (error) {
      await unlock(path);
      throw error;
    }
  }

  /** Appends the entries and resolves once they are on disk; the in-memory states follow. */
  async record(entries: JournalEntry[]): Promise<void> {
    await this.append(entries);
    for (const entry of entries) this.states.set(entry.line, entry);
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

function parse(path: string, text: string): { header: JournalHeader; states: Map<number, JournalEntry> } {
  const lines = text.split('\n');
  const states = new Map<number, JournalEntry>();
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
      states.set(entry.line, entry as JournalEntry);
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
