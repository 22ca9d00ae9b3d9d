// The store's database: one SQLite file per destination (layout.ts's storePath), in Node's own node:sqlite,
// holding the journals of file runs, the record of sent invitations, the claims on invitations being sent
// and the runs' locks (schema below; what each table means: index.ts).
//
// - Durable before a request leaves: WAL with synchronous=FULL, so every commit is on disk (fsynced) when it
//   returns; a kill -9 or a power cut at any instant leaves each transaction whole or absent.
// - Two roster processes coordinate through SQLite's own locking: every write is one `BEGIN IMMEDIATE`
//   transaction, waited for up to BUSY_MS while another process writes.
// - Trusted like every file of roster's state: the folders are checked by the caller, the database (and its
//   -wal and -shm beside it, which SQLite gives the database's mode) must be the user's own regular file
//   that nobody else can write, and is created 0600.
// - Writes a turn of the event loop asks for share one transaction and one fsync (batch()): a run's eight
//   workers finishing rows together commit once.
import { lstatSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { RosterError } from '../../errors.js';
import { checkOwnFileSync, fileError } from '../../files.js';
import { canonical, canonicalBaseUrl, type Destination } from './layout.js';

/** How long a write waits while another roster process writes (SQLite's busy timeout). */
const BUSY_MS = 30_000;

const KIND = 'roster invite store';
const VERSION = 1;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS store (kind TEXT NOT NULL, version INTEGER NOT NULL, base_url TEXT NOT NULL,
  client_id TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (run TEXT PRIMARY KEY, file TEXT NOT NULL, sha256 TEXT NOT NULL,
  created_at TEXT NOT NULL, pid INTEGER, host TEXT, started TEXT) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS journal (run TEXT NOT NULL, key TEXT NOT NULL, line INTEGER NOT NULL,
  state TEXT NOT NULL, at TEXT NOT NULL, email TEXT, school_id TEXT, body_hash TEXT, reason TEXT,
  status INTEGER, resend INTEGER, requested_at TEXT, PRIMARY KEY (run, key)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS record (seq INTEGER PRIMARY KEY, identity TEXT NOT NULL, email TEXT NOT NULL,
  school_id TEXT NOT NULL, school_year_id TEXT, sent_at TEXT, forgotten_at TEXT, by TEXT);
CREATE INDEX IF NOT EXISTS record_identity ON record (identity, seq);
CREATE TABLE IF NOT EXISTS claims (identity TEXT PRIMARY KEY, run TEXT NOT NULL, file TEXT, began TEXT,
  over TEXT, state TEXT NOT NULL, at TEXT NOT NULL, until TEXT, pid INTEGER NOT NULL, host TEXT,
  started TEXT) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS imported (run TEXT PRIMARY KEY) WITHOUT ROWID;
`;

type Sqlite = typeof import('node:sqlite');
let sqlite: Sqlite | undefined;

/**
 * node:sqlite, loaded on first use (never by commands that send nothing). Node 22 calls it experimental on
 * every load, a warning that says nothing to an admin: that one warning is left out.
 */
function loadSqlite(): Sqlite {
  if (sqlite) return sqlite;
  const emit = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    if (!String(warning).startsWith('SQLite is an experimental feature'))
      (emit as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    sqlite = createRequire(import.meta.url)('node:sqlite') as Sqlite;
  } catch {
    throw new RosterError(
      'failure',
      `roster needs Node 22.13 or later to keep the state of sending invitations (this is Node ${process.versions.node}).`,
      'Install Node 22, 24 or 26, or use the standalone executable.',
    );
  } finally {
    process.emitWarning = emit;
  }
  return sqlite;
}

export class StoreDb {
  private readonly statements = new Map<string, StatementSync>();
  private queue: { op: () => unknown; resolve(value: unknown): void; reject(error: unknown): void }[] = [];
  private scheduled = false;
  private closed = false;
  /** The device and inode of the file opened (checkIdentity). */
  private readonly held: { dev: number; ino: number };

  private constructor(
    readonly path: string,
    /** The destination, spelled one way (layout.ts's canonical). */
    readonly destination: Destination,
    private readonly db: DatabaseSync,
  ) {
    const s = lstatSync(path);
    this.held = { dev: s.dev, ino: s.ino };
  }

  /**
   * Opens the destination's database, created 0600 (with its tables) when missing, unless `create` is
   * false: then undefined when there is none. Refused when it is not the user's own file, or is another
   * destination's. `created` is told once, inside the transaction that made the tables (legacy.ts imports
   * there).
   */
  static open(
    path: string,
    destination: Destination,
    options: { create: boolean; created?(db: StoreDb): void },
  ): StoreDb | undefined {
    // Each the user's own regular file, or nothing: a -wal planted beside it would be read as its latest pages.
    const there = checkOwnFileSync(path, { create: false });
    const log = checkOwnFileSync(`${path}-wal`, { create: false });
    checkOwnFileSync(`${path}-shm`, { create: false });
    // A database deleted while roster used it leaves its latest pages in its -wal: never begun afresh over it.
    if (!there && log) throw orphanedLog(path);
    if (!there && !(options.create && checkOwnFileSync(path, { create: true }))) return undefined;
    const { DatabaseSync } = loadSqlite();
    let db: DatabaseSync;
    try {
      db = new DatabaseSync(path);
      // The wait first (a pragma, not the constructor's `timeout`, which Node has only from 22.16): two
      // processes opening a new database at once both switch it to WAL.
      db.exec(`PRAGMA busy_timeout = ${BUSY_MS}; PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;`);
    } catch (error) {
      throw storeError(error, path);
    }
    const store = new StoreDb(path, canonical(destination), db);
    try {
      store.transaction(() => store.begin(destination, options.created));
      return store;
    } catch (error) {
      store.close();
      throw error;
    }
  }

  /** The tables, made once; the destination checked (or written, the first time). */
  private begin(destination: Destination, created?: (db: StoreDb) => void): void {
    this.db.exec(SCHEMA);
    const row = this.get('SELECT kind, version, base_url, client_id FROM store');
    const baseUrl = canonicalBaseUrl(destination.baseUrl);
    if (!row) {
      this.run(
        'INSERT INTO store (kind, version, base_url, client_id, created_at) VALUES (?, ?, ?, ?, ?)',
        KIND,
        VERSION,
        baseUrl,
        destination.clientId,
        new Date().toISOString(),
      );
      created?.(this);
      return;
    }
    if (
      row.kind !== KIND ||
      row.version !== VERSION ||
      row.base_url !== baseUrl ||
      row.client_id !== destination.clientId
    )
      throw new RosterError(
        'failure',
        `${this.path} is not roster's record of invitations sent to ${baseUrl} as ${destination.clientId}.`,
        'Move it aside and run the command again.',
      );
  }

  /** `body` in one write transaction, now (BEGIN IMMEDIATE: waits while another process writes). */
  transaction<T>(body: () => T): T {
    try {
      this.db.exec('BEGIN IMMEDIATE');
    } catch (error) {
      throw storeError(error, this.path);
    }
    try {
      const result = body();
      this.db.exec('COMMIT');
      return result;
    } catch (error) {
      // A COMMIT that failed may have ended the transaction already (Node 22.13 cannot ask: isTransaction).
      try {
        this.db.exec('ROLLBACK');
      } catch {}
      throw error instanceof RosterError ? error : storeError(error, this.path);
    }
  }

  /**
   * `op` in a write transaction shared with every op asked for in this turn of the event loop: one commit
   * (one fsync) for them all. Each op is a savepoint of its own: one that throws takes back only its writes.
   */
  batch<T>(op: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ op, resolve: resolve as (value: unknown) => void, reject });
      if (this.scheduled) return;
      this.scheduled = true;
      setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    this.scheduled = false;
    const ops = this.queue.splice(0);
    const results: { ok: boolean; value: unknown }[] = [];
    try {
      // Written to a database deleted or replaced under this process, they would reach no other run.
      this.checkIdentity();
      this.transaction(() => {
        for (const { op } of ops) results.push(this.savepoint(op));
      });
    } catch (error) {
      for (const { reject } of ops) reject(error);
      return;
    }
    for (const [i, { resolve, reject }] of ops.entries()) {
      const result = results[i]!;
      if (result.ok) resolve(result.value);
      else reject(result.value);
    }
  }

  private savepoint(op: () => unknown): { ok: boolean; value: unknown } {
    this.db.exec('SAVEPOINT op');
    try {
      const value = op();
      this.db.exec('RELEASE op');
      return { ok: true, value };
    } catch (error) {
      this.db.exec('ROLLBACK TO op; RELEASE op');
      return { ok: false, value: error };
    }
  }

  /** A read outside any write (a snapshot of what was committed). */
  read<T>(body: () => T): T {
    try {
      return body();
    } catch (error) {
      throw error instanceof RosterError ? error : storeError(error, this.path);
    }
  }

  run(sql: string, ...values: (string | number | null)[]): void {
    this.statement(sql).run(...values.map(bindable));
  }

  get(sql: string, ...values: (string | number | null)[]): Record<string, unknown> | undefined {
    return this.statement(sql).get(...values.map(bindable)) as Record<string, unknown> | undefined;
  }

  all(sql: string, ...values: (string | number | null)[]): Record<string, unknown>[] {
    return this.statement(sql).all(...values.map(bindable)) as Record<string, unknown>[];
  }

  /** Rows one at a time: a district's record is never held whole. */
  iterate(sql: string, ...values: (string | number | null)[]): Iterable<Record<string, unknown>> {
    return this.statement(sql).iterate(...values.map(bindable)) as Iterable<Record<string, unknown>>;
  }

  private statement(sql: string): StatementSync {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /**
   * The file at the database's path is still the one this process opened (checked before every batch of
   * writes, so before each row's request). Deleted or replaced, what this run sends next would be recorded where no other run looks,
   * and the other runs' sends would be unknown to it: it stops.
   */
  checkIdentity(): void {
    let now: { dev: number; ino: number } | undefined;
    try {
      now = lstatSync(this.path, { throwIfNoEntry: false });
    } catch (error) {
      throw fileError(error, this.path, 'read');
    }
    if (now?.dev === this.held.dev && now.ino === this.held.ino) return;
    throw new RosterError(
      'failure',
      `roster's record of sent invitations ${this.path} was ${now ? 'replaced' : 'deleted'} while this run was using it; roster stops sending so that no family is e-mailed twice.`,
      now
        ? 'Run the same command again to continue. To let invitations be sent again, use `roster invite forget`; never delete or replace the record while roster runs.'
        : 'Put the file back (from the trash or a backup) and run the same command again; until then roster refuses to send to this service. To let invitations be sent again, use `roster invite forget`; never delete the record.',
    );
  }

  /** Closes the database, once what was asked of batch() is written. */
  close(): void {
    if (this.closed) return;
    if (this.queue.length > 0) this.flush();
    this.closed = true;
    this.db.close();
  }
}

/** A database missing beside the log of its last writes: deleted (or moved) while roster used it. */
function orphanedLog(path: string): RosterError {
  return new RosterError(
    'failure',
    `roster's record of sent invitations ${path} is missing, but the log of its last writes (${path}-wal) is there: it was deleted or moved while roster used it.`,
    `Put it back (from the trash or a backup) and run the command again. Only if it is lost for good, move ${path}-wal and ${path}-shm aside: roster then no longer knows what it sent, and \`roster invite list\` shows what the server has.`,
  );
}

/** A failure of the database as roster reports it: the file, and what SQLite said. */
function storeError(error: unknown, path: string): RosterError {
  const message = (error as Error).message.replace(/\.$/, '');
  const full = /full|SQLITE_FULL/i.test(message);
  return new RosterError(
    'failure',
    `Could not use roster's record of sent invitations ${path}: ${message}.`,
    full
      ? 'Free some disk space, then run the same command again.'
      : 'Run the same command again; if it fails the same way, see `roster doctor`.',
  );
}

/**
 * A value as the database keeps it: NUL as U+FFFD. Node 22's node:sqlite reads a TEXT value only up to its
 * first NUL (Node 24 reads it whole), so a server's text holding one would read back differently by Node;
 * every value bound, written or looked up, is spelled the same way, so lookups still match.
 */
function bindable(value: string | number | null): string | number | null {
  return typeof value === 'string' && value.includes('\0') ? value.replaceAll('\0', '\uFFFD') : value;
}
