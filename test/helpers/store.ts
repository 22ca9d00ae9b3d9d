// What roster's database of sending holds, read the way a test looks at it: straight from SQLite, read only,
// never through the store's own code (so a test of the store can catch the store lying about itself).

import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

type Row = Record<string, unknown>;

function query(path: string, sql: string, ...values: (string | number)[]): Row[] {
  const { DatabaseSync } = createRequire(import.meta.url)('node:sqlite') as typeof import('node:sqlite');
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    return db.prepare(sql).all(...values) as Row[];
  } finally {
    db.close();
  }
}

/** The databases under `state`/sent (one per destination). */
export function storeFiles(state: string): string[] {
  try {
    return readdirSync(join(state, 'sent'))
      .filter((name) => name.endsWith('.db'))
      .map((name) => join(state, 'sent', name));
  } catch {
    return [];
  }
}

/** The one database under `state` (a test sending to one destination). */
export function storeOf(state: string): string {
  const [only, ...more] = storeFiles(state);
  if (!only || more.length > 0)
    throw new Error(`expected one database under ${state}/sent, found ${storeFiles(state).length}`);
  return only;
}

/** Each journaled row's last entry, in line order (every run's, or `file`'s: its real path). */
export function journalRows(
  db: string,
  file?: string,
): { line: number; state: string; email: string; key: string; run: string }[] {
  const rows = file
    ? query(db, 'SELECT * FROM journal WHERE run = ? ORDER BY line', file)
    : query(db, 'SELECT * FROM journal ORDER BY run, line');
  return rows.map((r) => ({
    line: r.line as number,
    state: r.state as string,
    email: r.email as string,
    key: r.key as string,
    run: r.run as string,
  }));
}

/** The record's rows, oldest first. */
export function recordRows(
  db: string,
): { identity: string; email: string; sentAt?: string; forgottenAt?: string; by?: string }[] {
  return query(db, 'SELECT * FROM record ORDER BY seq').map((r) => ({
    identity: r.identity as string,
    email: r.email as string,
    ...(typeof r.sent_at === 'string' && { sentAt: r.sent_at }),
    ...(typeof r.forgotten_at === 'string' && { forgottenAt: r.forgotten_at }),
    ...(typeof r.by === 'string' && { by: r.by }),
  }));
}

/** The open claims (sending or in doubt). */
export function claimRows(db: string): { identity: string; run: string; state: string; pid: number }[] {
  return query(db, 'SELECT identity, run, state, pid FROM claims ORDER BY identity') as never;
}

/** The file runs and who holds each. */
export function runRows(db: string): { run: string; pid: number | null }[] {
  return query(db, 'SELECT run, pid FROM runs') as never;
}

/** Every row of every table, in a fixed order: to show that something wrote nothing at all. */
export function storeDump(db: string): Record<string, Row[]> {
  const tables = query(db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
  const ordered = (name: string) =>
    query(db, `PRAGMA table_info("${name}")`).length > 1 ? 'ORDER BY 1, 2' : 'ORDER BY 1';
  return Object.fromEntries(
    tables.map(({ name }) => [
      name as string,
      query(db, `SELECT * FROM "${name as string}" ${ordered(name as string)}`),
    ]),
  );
}

/**
 * Writes into the database behind the store's back, as something else (a run of another roster, a crash, a
 * hand) would leave it: `sql` in one transaction.
 */
export function storeWrite(db: string, sql: string, ...values: (string | number | null)[]): void {
  const { DatabaseSync } = createRequire(import.meta.url)('node:sqlite') as typeof import('node:sqlite');
  const handle = new DatabaseSync(db);
  try {
    handle.exec('PRAGMA busy_timeout = 10000');
    handle.prepare(sql).run(...values);
  } finally {
    handle.close();
  }
}
