// The bulk-send journal: one JSON object per line, appended and fsynced before each request (in-flight) and
// after it (sent, failed, in-doubt), so a run killed at any instant can be resumed without sending any
// e-mail twice. Appends from concurrent rows are group-committed: one write and one fsync per batch.
// A lock file (src/invite/lock.ts) keeps two runs from sending the same file to the same place at once.
//
// The journal belongs to the input file and the destination (the service and client id), not to the file's
// content: an admin who fixes failed rows, adds rows or reorders them and runs the same command again resumes
// the same journal. Rows are matched by who the invitation is for (e-mail and school, see invitationKey),
// never by line number, which moves when rows are inserted. However the file and the service are spelled,
// one file sent to one service has one journal (see journalPath).
import { createHash } from 'node:crypto';
import { type FileHandle, open, readdir, realpath } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { RosterError } from '../errors.js';
import { openOwnAppendable, privateFolder, readPrivateFile } from '../files.js';
import { type InvitationBody, invitationKey } from './invitation.js';
import { acquireLock, LockHeld, releaseLock } from './lock.js';

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
  /** The input file's real path (written by older releases: its absolute path as typed). */
  file: string;
  destination: Destination;
  /** SHA-256 of the file's content when the journal began: information only (the file may be edited later). */
  sha256: string;
  createdAt: string;
}

/** Where a run's journal is, and the journals an earlier release may have kept for the same run. */
export interface JournalPlace {
  path: string;
  /** The input file's real path: symlinks, `.` and `..` resolved, as the OS spells it. */
  file: string;
  /** Journals of this file and destination under another spelling (earlier releases): carried over. */
  legacy: string[];
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * The service a base URL names, spelled one way: scheme and host in lower case, no default port, no
 * trailing dot or slash, repeated slashes as one, localhost / 127.0.0.1 / [::1] as one host, and the path in
 * lower case. URL paths may be case-sensitive, but two spellings of one service that differ only in case
 * are far likelier than two services on one host that do: folding errs towards never e-mailing twice.
 */
export function canonicalBaseUrl(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return baseUrl;
  }
  const hostname = url.hostname.replace(/\.$/, '');
  const host = LOOPBACK.has(hostname) ? '127.0.0.1' : hostname;
  const path = url.pathname
    .replace(/\/{2,}/g, '/')
    .replace(/\/+$/, '')
    .toLowerCase();
  return `${url.protocol}//${host}${url.port ? `:${url.port}` : ''}${path}`;
}

const sameDestination = (a: Destination | undefined, b: Destination) =>
  a !== undefined && canonicalBaseUrl(a.baseUrl) === canonicalBaseUrl(b.baseUrl) && a.clientId === b.clientId;

/**
 * `<state>/invites/<file name>-<hash of real path, canonical base URL and client id>.jsonl`: one journal per
 * input file and destination, whatever the file holds now and however either is spelled. The file is keyed by
 * its real path, not its device and inode: editors save by writing a new file and renaming it over the old
 * one, and a fixed file must resume its journal. Its letter case is the OS's: on macOS and Windows realpath
 * gives the case on disk; on Linux `A.csv` and `a.csv` are two files.
 */
export function journalPath(stateDir: string, realFile: string, destination: Destination): string {
  return keyedPath(stateDir, realFile, canonicalBaseUrl(destination.baseUrl), destination.clientId);
}

// The formula of earlier releases (which hashed the path as typed and the base URL as spelled) with canonical
// inputs, so the journal of a file typed by its real path at a service spelled canonically (the usual case)
// keeps its name; journals under other spellings are found by their header (locateJournal).
function keyedPath(stateDir: string, file: string, baseUrl: string, clientId: string): string {
  const hash = createHash('sha256')
    .update(file)
    .update('\0')
    .update(baseUrl)
    .update('\0')
    .update(clientId)
    .digest('hex');
  const name = basename(file)
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .slice(0, 60);
  return join(stateDir, 'invites', `${name}-${hash.slice(0, 16)}.jsonl`);
}

/**
 * This run's journal, and the journals of the same file and destination kept under other spellings (an
 * earlier release keyed them on the spelling): a run must honour what they recorded.
 */
export async function locateJournal(
  stateDir: string,
  absoluteFile: string,
  destination: Destination,
): Promise<JournalPlace> {
  const file = await realpath(absoluteFile);
  const path = journalPath(stateDir, file, destination);
  const legacy: string[] = [];
  for (const other of await journalsIn(join(stateDir, 'invites'))) {
    if (other === path) continue;
    const header = await readHeader(other);
    if (header && sameDestination(header.destination, destination) && (await realOrNot(header.file)) === file)
      legacy.push(other);
  }
  return { path, file, legacy };
}

async function journalsIn(dir: string): Promise<string[]> {
  try {
    // Regular files only: roster writes no other kind, and a planted FIFO would block the read.
    return (await readdir(dir, { withFileTypes: true }))
      .filter((entry) => entry.isFile() && entry.name.endsWith('.jsonl'))
      .map((entry) => join(dir, entry.name));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/** The header line of a journal, or undefined when it has none that parses. */
async function readHeader(path: string): Promise<JournalHeader | undefined> {
  const handle = await open(path, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(16 * 1024), 0, 16 * 1024, 0);
    const text = buffer.subarray(0, bytesRead).toString('utf8');
    const header = JSON.parse(text.slice(0, text.indexOf('\n'))) as Partial<JournalHeader>;
    return header.journal === 'roster invite send' && typeof header.file === 'string'
      ? (header as JournalHeader)
      : undefined;
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}

async function realOrNot(path: string): Promise<string | undefined> {
  try {
    return await realpath(path);
  } catch {
    return undefined;
  }
}

export const contentHash = (content: string) => createHash('sha256').update(content).digest('hex');

/** A short digest of a request body (built in a fixed field order), to notice a row edited after sending. */
export const bodyHash = (body: InvitationBody) =>
  createHash('sha256').update(JSON.stringify(body)).digest('hex').slice(0, 16);

export class Journal {
  private queue: { text: string; resolve: () => void; reject: (error: unknown) => void }[] = [];
  private writing = false;

  private constructor(
    readonly path: string,
    private readonly handle: FileHandle,
    private readonly lockToken: string,
    /** The header the journal began with (the first run's content hash included). */
    readonly header: JournalHeader,
    /** The last recorded state of each row, by key. */
    readonly states: Map<string, JournalEntry>,
    /** True when this run created the journal (a first run, not a resume). */
    readonly created: boolean,
    /** Journals of an earlier release whose rows this journal began with. */
    readonly carriedOver: string[],
  ) {}

  /** Reads the current state without taking the lock or creating anything (for --dry-run). */
  static async peek(
    path: string,
    legacy: string[] = [],
  ): Promise<{ header?: JournalHeader; states: Map<string, JournalEntry> }> {
    await privateFolder(dirname(path), dirname(path), { create: false });
    const text = await readText(path);
    const own = text === undefined || text === '' ? undefined : parse(path, text);
    const states = own?.states ?? new Map<string, JournalEntry>();
    const older = await readLegacy(legacy.filter((l) => !own?.carried.has(l)));
    for (const entry of outranking(older, states)) states.set(entry.key, entry);
    return { ...(own && { header: own.header }), states };
  }

  /**
   * Takes the journal's lock and reads it, or creates it; then carries over the rows of the `legacy` journals
   * (see locateJournal) not carried over before.
   */
  static async open(
    path: string,
    header: Omit<JournalHeader, 'createdAt'>,
    now: Date,
    legacy: string[] = [],
  ): Promise<Journal> {
    // Another user's folder could hold a journal seeded with "sent" rows (the caller checks the folders above).
    await privateFolder(dirname(path));
    const token = await lock(path);
    let handle: FileHandle | undefined;
    try {
      // Created 0600, or the user's own regular file that nobody else can write (checked on the open file).
      handle = await openOwnAppendable(path);
      let text = await handle.readFile({ encoding: 'utf8' });
      // A torn last line (killed mid-write) was never confirmed: drop it, so the next append starts clean.
      const end = text.lastIndexOf('\n') + 1;
      if (end < text.length) {
        await handle.truncate(Buffer.byteLength(text.slice(0, end)));
        text = text.slice(0, end);
      }
      const existing = text === '' ? undefined : parse(path, text);
      // A changed content is expected (rows fixed or added); another file or destination is not.
      if (
        existing &&
        (existing.header.file !== header.file ||
          !sameDestination(existing.header.destination, header.destination))
      ) {
        throw new RosterError('failure', `The journal ${path} belongs to another file or destination.`);
      }
      const first: JournalHeader = existing?.header ?? { ...header, createdAt: now.toISOString() };
      const states = existing?.states ?? new Map();
      const toCarry = legacy.filter((l) => !existing?.carried.has(l));
      const journal = new Journal(path, handle, token, first, states, existing === undefined, toCarry);
      if (!existing) await journal.append([first]);
      if (toCarry.length > 0) await journal.carryOver(toCarry, now);
      return journal;
    } catch (error) {
      await handle?.close();
      await releaseLock(`${path}.lock`, token);
      throw error;
    }
  }

  /**
   * Appends the rows of older journals where they say more was sent than this one does, then notes each
   * as carried over (a crash in between only means doing it again). Their locks are held meanwhile: an
   * earlier release may be running one of them right now. The old files are left as they were.
   */
  private async carryOver(legacy: string[], now: Date): Promise<void> {
    const tokens: [string, string][] = [];
    try {
      for (const old of legacy) tokens.push([old, await lock(old)]);
      await this.record(outranking(await readLegacy(legacy), this.states));
      const at = now.toISOString();
      await this.append(legacy.map((carriedFrom) => ({ carriedFrom, at })));
    } finally {
      for (const [old, token] of tokens) await releaseLock(`${old}.lock`, token);
    }
  }

  /** Appends the entries and resolves once they are on disk; the in-memory states follow. */
  async record(entries: JournalEntry[]): Promise<void> {
    await this.append(entries);
    for (const entry of entries) this.states.set(entry.key, entry);
  }

  async close(): Promise<void> {
    await this.handle.close();
    await releaseLock(`${this.path}.lock`, this.lockToken);
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

function parse(
  path: string,
  text: string,
): { header: JournalHeader; states: Map<string, JournalEntry>; carried: Set<string> } {
  const lines = text.split('\n');
  const states = new Map<string, JournalEntry>();
  /** Older journals whose rows this one has taken in (see Journal.carryOver). */
  const carried = new Set<string>();
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
    const entry = value as Partial<JournalEntry & JournalHeader & { carriedFrom: string }>;
    if (index > 0 && typeof entry.carriedFrom === 'string') carried.add(entry.carriedFrom);
    else if (index === 0) {
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
  return { header, states, carried };
}

/** A journal's text: only the user's own regular file, never through a link (see files.ts). */
const readText = (path: string) => readPrivateFile(path, { own: true, followLinks: false });

/** Takes the journal's lock; another run holding it is a clear failure (exit 1), never a wait. */
async function lock(path: string): Promise<string> {
  try {
    return await acquireLock(`${path}.lock`);
  } catch (error) {
    if (!(error instanceof LockHeld)) throw error;
    const { pid, host } = error.owner;
    const elsewhere = host !== undefined && host !== hostname();
    throw new RosterError(
      'failure',
      pid > 0
        ? `Another roster run (pid ${pid}${elsewhere ? ` on ${host}` : ''}) is sending invitations from this file.`
        : 'Another roster run is starting to send invitations from this file.',
      elsewhere
        ? `If no roster runs there any more, delete ${error.path} and run the command again.`
        : `Wait for it to finish; the journal is ${path}.`,
    );
  }
}

/** Rank of a row's state when journals are merged: what was (or may have been) sent outranks the rest. */
const RANK: Record<RowState, number> = { pending: 0, failed: 1, 'in-flight': 2, 'in-doubt': 2, sent: 3 };

/** The rows of several journals of one file and destination, each at its most-sent state. */
async function readLegacy(paths: string[]): Promise<Map<string, JournalEntry>> {
  const merged = new Map<string, JournalEntry>();
  for (const path of paths) {
    const text = await readText(path);
    if (text === undefined || text === '') continue;
    for (const entry of outranking(parse(path, text).states, merged)) merged.set(entry.key, entry);
  }
  return merged;
}

/** The entries of `older` that say more was sent than `current` does. */
function outranking(older: Map<string, JournalEntry>, current: Map<string, JournalEntry>): JournalEntry[] {
  return [...older.values()].filter((entry) => {
    const known = current.get(entry.key);
    return known === undefined || RANK[entry.state] > RANK[known.state];
  });
}
