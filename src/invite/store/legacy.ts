// The state of sending as roster kept it before its database (0.1 and earlier: JSON Lines files), imported
// once, in the transaction that creates the destination's database (database.ts), so that a send begun
// before an upgrade resumes after it without e-mailing anyone twice:
//   sent/<host>-<hex>.jsonl          the record: a header line, then {email, schoolId, schoolYearId?, sentAt | forgottenAt, by?}
//   sent/<host>-<hex>.jsonl.claims   claims: {id, run (a journal's path), file?, began?, over?, state, at, until?, pid, host?, started?}, the last line of an id its claim
//   invites/<file>-<hex>.jsonl       a file run's journal: a header {journal, version, file, destination, sha256, createdAt}, then row entries, a row's last its state
// The files are left where they were (nothing reads them again). A damaged line anywhere but a torn last one
// refuses the import, as it refused a run before: skipping could forget an invitation that was sent.
import { closeSync, constants, openSync, readdirSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { RosterError } from '../../errors.js';
import { readPrivateFileSync } from '../../files.js';
import { invitationKey } from '../invitation.js';
import { type ClaimState, commandRun, putClaim } from './claims.js';
import type { StoreDb } from './database.js';
import { identityParts } from './identity.js';
import { type RowState, writeJournal } from './journal.js';
import { forEachLine } from './json-lines.js';
import { type Destination, sameDestination, sentRecordPath } from './layout.js';
import { addRecordRow } from './record-rows.js';

interface LegacyJournal {
  path: string;
  header: { file: string; sha256: string; createdAt: string };
  /** Each row's last entry, by key. */
  states: Map<string, Record<string, unknown>>;
}

/**
 * Whether an earlier roster left state for `destination`: its record, or a journal whose header names it
 * (only the first line of each is read: this is asked whenever the destination has no database yet).
 */
export function hasLegacyState(stateDir: string, destination: Destination): boolean {
  if (
    readPrivateFileSync(sentRecordPath(stateDir, destination), { own: true, followLinks: false }) !==
    undefined
  )
    return true;
  return journalFiles(join(stateDir, 'invites')).some((path) => {
    const header = firstLine(path);
    return (
      header !== undefined && sameDestination(header.destination as Destination | undefined, destination)
    );
  });
}

/** Imports an earlier roster's state for `destination` into `db` (inside the transaction that made it). */
export function importLegacyState(stateDir: string, destination: Destination, db: StoreDb): void {
  const record = sentRecordPath(stateDir, destination);
  const recordText = read(record);
  if (recordText !== undefined) importRecord(db, record, recordText);
  const journals = legacyJournals(join(stateDir, 'invites'), destination);
  for (const journal of journals) importJournal(db, journal);
  const claims = read(`${record}.claims`);
  if (claims !== undefined) importClaims(db, `${record}.claims`, claims, journals);
}

function journalFiles(folder: string): string[] {
  try {
    return readdirSync(folder)
      .filter((name) => name.endsWith('.jsonl'))
      .map((name) => join(folder, name));
  } catch {
    return [];
  }
}

/**
 * A journal's header, read from its first 4 KB (a district's journal is tens of MB); undefined for anything
 * else. Only what decides whether to import: the import reads the file as roster's own (read()).
 */
function firstLine(path: string): Record<string, unknown> | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch {
    return undefined;
  }
  try {
    const bytes = Buffer.alloc(4096);
    const read = readSync(fd, bytes, 0, bytes.length, 0);
    const end = bytes.subarray(0, read).indexOf(10);
    return JSON.parse(bytes.toString('utf8', 0, end < 0 ? read : end)) as Record<string, unknown>;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** The text of a file of roster's, whole lines only (a torn last line was never an entry); undefined if none. */
function read(path: string): string | undefined {
  const text = readPrivateFileSync(path, { own: true, followLinks: false });
  return text?.slice(0, text.lastIndexOf('\n') + 1);
}

function parse(path: string, line: string, index: number): Record<string, unknown> {
  try {
    const value = JSON.parse(line) as unknown;
    if (value !== null && typeof value === 'object') return value as Record<string, unknown>;
  } catch {}
  throw damaged(path, index);
}

function damaged(path: string, index: number): RosterError {
  return new RosterError(
    'failure',
    `${path} is damaged at line ${index + 1}; roster cannot take it into its database.`,
    'Move it aside only if you are sure: invitations it recorded could be sent again.',
  );
}

function importRecord(db: StoreDb, path: string, text: string): void {
  forEachLine(text, (line, index) => {
    if (index === 0 || line === '') return;
    const e = parse(path, line, index);
    if (typeof e.email !== 'string' || typeof e.schoolId !== 'string') throw damaged(path, index);
    const parts = { email: e.email as string, schoolId: e.schoolId as string };
    addRecordRow(
      db,
      typeof e.schoolYearId === 'string' ? { ...parts, schoolYearId: e.schoolYearId } : parts,
      {
        ...(typeof e.sentAt === 'string' && { sentAt: e.sentAt }),
        ...(typeof e.forgottenAt === 'string' && { forgottenAt: e.forgottenAt }),
        ...(typeof e.by === 'string' && { by: e.by }),
      },
    );
  });
}

/** The journals in `folder` for `destination`, each read to its rows' last entries. */
function legacyJournals(folder: string, destination: Destination): LegacyJournal[] {
  const journals: LegacyJournal[] = [];
  for (const path of journalFiles(folder)) {
    const text = read(path);
    if (!text) continue;
    const journal = readJournal(path, text);
    if (journal && sameDestination(journal.destination, destination)) journals.push(journal);
  }
  return journals;
}

function readJournal(path: string, text: string): (LegacyJournal & { destination: Destination }) | undefined {
  let journal: (LegacyJournal & { destination: Destination }) | undefined;
  forEachLine(text, (line, index) => {
    if (line === '') return;
    const entry = parse(path, line, index);
    if (index === 0) {
      if (entry.journal !== 'roster invite send') return;
      const header = entry as unknown as LegacyJournal['header'] & { destination: Destination };
      journal = { path, header, destination: header.destination, states: new Map() };
    } else if (journal && typeof entry.key === 'string' && typeof entry.state === 'string')
      journal.states.set(entry.key, entry);
    else if (journal) throw damaged(path, index);
  });
  return journal;
}

function importJournal(db: StoreDb, { header, states }: LegacyJournal): void {
  db.run(
    'INSERT OR IGNORE INTO runs (run, file, sha256, created_at) VALUES (?, ?, ?, ?)',
    header.file,
    header.file,
    header.sha256,
    header.createdAt,
  );
  // The old record may lack rows this journal sent: the run's next start adds them (file-run.ts).
  db.run('INSERT OR IGNORE INTO imported (run) VALUES (?)', header.file);
  // An earlier build's `pending` (planned, never tried) means the same as no entry.
  const entries = [...states].filter(([, e]) => e.state !== 'pending');
  writeJournal(
    db,
    header.file,
    entries.map(([key, e]) => {
      const text = (name: string) => (typeof e[name] === 'string' ? (e[name] as string) : undefined);
      return {
        key,
        line: typeof e.line === 'number' ? e.line : 0,
        state: e.state as RowState,
        at: text('at') ?? header.createdAt,
        email: text('email'),
        schoolId: text('schoolId'),
        bodyHash: text('bodyHash'),
        reason: text('reason'),
        status: typeof e.status === 'number' ? e.status : undefined,
        resend: e.resend === true,
        requestedAt: text('requestedAt'),
      };
    }),
  );
}

/**
 * Each invitation's last claim that was not settled. A claim names its run by the journal's path: it is
 * named by the run's file now, as the database names runs. A `sending` claim of a run whose journal shows
 * the row's request never left (claimed a batch ahead, then the run stopped) left nothing: it is dropped.
 */
function importClaims(db: StoreDb, path: string, text: string, journals: LegacyJournal[]): void {
  const latest = new Map<string, Record<string, unknown>>();
  forEachLine(text, (line, index) => {
    const claim = parse(path, line, index);
    if (typeof claim.id === 'string') latest.set(claim.id, claim);
  });
  const byPath = new Map(journals.map((j) => [j.path, j]));
  for (const claim of latest.values()) {
    if (claim.state === 'done') continue;
    const journal = byPath.get(claim.run as string);
    const { email, schoolId } = identityParts(claim.id as string);
    if (
      claim.state === 'sending' &&
      journal &&
      journal.states.get(invitationKey(email, schoolId))?.state !== 'in-flight'
    )
      continue;
    const text = (name: string) => (typeof claim[name] === 'string' ? (claim[name] as string) : undefined);
    putClaim(db, {
      id: claim.id as string,
      run: journal ? journal.header.file : legacyRun(claim.run as string),
      file: text('file'),
      began: text('began'),
      over: claim.over === 'in-doubt' ? 'in-doubt' : undefined,
      state: claim.state as ClaimState,
      at: text('at') ?? '',
      until: text('until'),
      pid: typeof claim.pid === 'number' ? claim.pid : 0,
      host: text('host'),
      started: text('started'),
    });
  }
}

/** A command's own run as earlier builds named it (NUL, then "roster …"), named as the database names it. */
const legacyRun = (run: string) =>
  run.startsWith('\0') ? commandRun(run.slice(1).replace(/^roster /, '')) : run;
