// A run's journal: the `journal` table of the destination's database (database.ts), a row per invitation
// row of the file, its last state written before each request (in-flight, in the transaction that claims
// it) and after it (sent, failed, in-doubt, in the transaction that settles the claim), so a run killed at
// any instant can be resumed without sending any e-mail twice. The run's row in `runs` is its lock: the
// process sending the file, which keeps two runs from sending the same file to the same place at once.
//
// The journal belongs to the input file and the destination (layout.ts), not to the file's content: an admin
// who fixes failed rows, adds rows or reorders them and runs the same command again resumes the same journal.
// Rows are matched by who the invitation is for (e-mail and school, see invitationKey), never by line number,
// which moves when rows are inserted.
import { createHash } from 'node:crypto';
import { realpath } from 'node:fs/promises';
import { hostname } from 'node:os';
import type { InvitationBody } from '../../api/enrollment.js';
import { RosterError } from '../../errors.js';
import { isRunning, thisProcess } from '../../lock.js';
import type { StoreDb } from './database.js';
import type { Destination } from './layout.js';

export type RowState = 'in-flight' | 'sent' | 'failed' | 'in-doubt';

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

/** The input file resolved to its real path: every spelling of it (links, `.` and `..`) is one run. */
export const realFile = (absoluteFile: string) => realpath(absoluteFile);

export const contentHash = (content: string) => createHash('sha256').update(content).digest('hex');

/** A short digest of a request body (built in a fixed field order), to notice a row edited after sending. */
export const bodyHash = (body: InvitationBody) =>
  createHash('sha256').update(JSON.stringify(body)).digest('hex').slice(0, 16);

/**
 * A row's last entry, as much of it as a later run reads (decide.ts, the report): a district's journal is
 * held as this per row, not as its whole entries.
 */
export type LastEntry = Pick<JournalEntry, 'state' | 'at' | 'bodyHash' | 'reason' | 'status' | 'requestedAt'>;

const HEADER = 'SELECT file, sha256, created_at, pid, host, started FROM runs WHERE run = ?';

export class Journal {
  private constructor(
    private readonly db: StoreDb,
    /** The header the journal began with (the first run's content hash included). */
    readonly header: JournalHeader,
    /**
     * The last state of each row as the journal held it when opened, by key. What this run records goes to
     * the database only: kept here too, a district's every row would be held for the whole run.
     */
    readonly states: ReadonlyMap<string, LastEntry>,
    /** True when this run began the journal (a first run, not a resume). */
    readonly created: boolean,
    /** True when the journal came from an earlier roster's files and its sent rows are not yet checked. */
    readonly imported: boolean,
  ) {}

  /** The run the journal belongs to: its file's real path (claims name runs so). */
  get run(): string {
    return this.header.file;
  }

  /** Reads a file's journal without taking it (for --dry-run); none when the database is not there. */
  static peek(
    db: StoreDb | undefined,
    file: string,
  ): { header?: JournalHeader; states: Map<string, LastEntry> } {
    if (!db) return { states: new Map() };
    return db.read(() => {
      const row = db.get(HEADER, file);
      if (!row) return { states: new Map() };
      return { header: headerOf(row, db), states: statesOf(db, file) };
    });
  }

  /** Takes the file's journal (another live run of it is refused), begun now if there is none. */
  static open(db: StoreDb, header: Omit<JournalHeader, 'createdAt'>, now: Date): Journal {
    return db.transaction(() => {
      const row = db.get(HEADER, header.file);
      if (row) refuseIfSending(row, db.path);
      const me = thisProcess();
      const createdAt = (row?.created_at as string | undefined) ?? now.toISOString();
      db.run(
        `INSERT INTO runs (run, file, sha256, created_at, pid, host, started) VALUES (?1, ?1, ?2, ?3, ?4, ?5, ?6)
          ON CONFLICT (run) DO UPDATE SET pid = ?4, host = ?5, started = ?6`,
        header.file,
        header.sha256,
        createdAt,
        me.pid,
        me.host ?? null,
        me.started ?? null,
      );
      const first: JournalHeader = row ? headerOf(row, db) : { ...header, createdAt };
      const imported = db.get('SELECT run FROM imported WHERE run = ?', header.file) !== undefined;
      return new Journal(db, first, row ? statesOf(db, header.file) : new Map(), !row, imported);
    });
  }

  /** Inside a transaction: the entries, each its row's last state. */
  write(entries: JournalEntry[]): void {
    writeJournal(this.db, this.run, entries);
  }

  /** Writes the entries and resolves once they are on disk (`states` stays what the run began with). */
  record(entries: JournalEntry[]): Promise<void> {
    return this.db.batch(() => this.write(entries));
  }

  /** Its sent rows are checked against the record (file-run.ts): not again at a later start. */
  checked(): Promise<void> {
    return this.db.batch(() => this.db.run('DELETE FROM imported WHERE run = ?', this.run));
  }

  /** Lets go of the journal: another run of the file may take it. */
  close(): void {
    const me = thisProcess();
    this.db.transaction(() =>
      this.db.run(
        'UPDATE runs SET pid = NULL, host = NULL, started = NULL WHERE run = ? AND pid = ?',
        this.run,
        me.pid,
      ),
    );
  }
}

/** Inside a transaction: `run`'s entries, each its row's last state (a later entry of a row replaces it). */
export function writeJournal(db: StoreDb, run: string, entries: JournalEntry[]): void {
  for (const e of entries)
    db.run(
      `INSERT OR REPLACE INTO journal (run, key, line, state, at, email, school_id, body_hash, reason, status,
        resend, requested_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      run,
      e.key,
      e.line,
      e.state,
      e.at,
      e.email ?? null,
      e.schoolId ?? null,
      e.bodyHash ?? null,
      e.reason ?? null,
      e.status ?? null,
      e.resend ? 1 : null,
      e.requestedAt ?? null,
    );
}

/**
 * A run of the file holds its journal now: refused, naming it (exit 1, never a wait). A holder that is gone
 * is not one: a pid no longer running, or running another process (its start time differs), or this very
 * process's pid left by an earlier process; and one on another host, since SQLite's WAL works on one
 * machine's disk only (a state folder copied, or a machine renamed, left it).
 */
function refuseIfSending(row: Record<string, unknown>, path: string): void {
  if (typeof row.pid !== 'number') return;
  if (typeof row.host === 'string' && row.host !== hostname()) return;
  const owner = { pid: row.pid, ...(typeof row.started === 'string' && { started: row.started }) };
  const me = thisProcess();
  const mine = owner.pid === me.pid && (owner.started === undefined || owner.started === me.started);
  if (!mine && (owner.pid === me.pid || !isRunning(owner))) return;
  throw new RosterError(
    'failure',
    `Another roster run (pid ${owner.pid}) is sending invitations from this file.`,
    `Wait for it to finish; roster's state of sending is ${path}.`,
  );
}

function headerOf(row: Record<string, unknown>, db: StoreDb): JournalHeader {
  return {
    journal: 'roster invite send',
    version: 1,
    file: row.file as string,
    destination: db.destination,
    sha256: row.sha256 as string,
    createdAt: row.created_at as string,
  };
}

/** Each row's last state, by key. */
function statesOf(db: StoreDb, run: string): Map<string, LastEntry> {
  const states = new Map<string, LastEntry>();
  for (const row of db.iterate(
    'SELECT key, state, at, body_hash, reason, status, requested_at FROM journal WHERE run = ?',
    run,
  )) {
    const last: LastEntry = { state: row.state as RowState, at: row.at as string };
    if (typeof row.body_hash === 'string') last.bodyHash = row.body_hash;
    if (typeof row.reason === 'string') last.reason = row.reason;
    if (typeof row.status === 'number') last.status = row.status;
    if (typeof row.requested_at === 'string') last.requestedAt = row.requested_at;
    states.set(row.key as string, last);
  }
  return states;
}
