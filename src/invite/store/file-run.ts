// The store as one run of `invite send --file` sees it: the file's journal (its own rows) and roster's record
// of sent invitations (every run's), in the destination's database, read together and asked one question
// per row: send it, skip it, or hold it in doubt (decide.ts).
import { join } from 'node:path';
import { privateFolder } from '../../files.js';
import type { PlannedRow } from '../invite-file.js';
import { keyOf, planRows, type RowPlan, type SentElsewhere } from './decide.js';
import {
  bodyHash,
  Journal,
  type JournalEntry,
  type JournalHeader,
  type LastEntry,
  realFile,
} from './journal.js';
import { type Destination, journalPath } from './layout.js';
import {
  fileRunName,
  type GuardOptions,
  identityOf,
  type RowGuard,
  recordGuard,
  sentEntry,
} from './row-guard.js';
import { type SentEntry, SentRecord } from './sent-record.js';

/** What a run is: the file (an absolute path, any spelling), what it holds now, and where it sends. */
export interface RunOf {
  stateDir: string;
  file: string;
  /** The SHA-256 of the file's text now (contentHash). */
  sha256: string;
  destination: Destination;
}

/** The flags that change what is sent again. */
export interface ResendFlags {
  /** --resend-in-doubt: rows in doubt (this run's or another's) are sent again. */
  resendInDoubt: boolean;
  /** --resend-sent: rows roster's record shows sent by another run are sent again. */
  resendSent: boolean;
}

/** What a run finds before it sends: the journal's header (absent on a first run) and the rows' plan. */
export interface RunView {
  /** The database the journal is in. */
  path: string;
  /** Where the rows that failed go by default: roster's invites folder, named after the file. */
  failedCsv: string;
  header: JournalHeader | undefined;
  /** The rows' states before this run, by key. */
  before: ReadonlyMap<string, LastEntry>;
  plan: RowPlan;
}

/** The file's real path, with roster's state folders checked (created unless `create` is false). */
async function place(run: RunOf, create: boolean): Promise<{ file: string; failedCsv: string }> {
  const file = await realFile(run.file);
  // Refused if another user owns one of the folders or others can write to it.
  await privateFolder(join(run.stateDir, 'sent'), run.stateDir, { create });
  await privateFolder(join(run.stateDir, 'invites'), run.stateDir, { create });
  const failedCsv = journalPath(run.stateDir, file, run.destination).replace(/\.jsonl$/, '.failed.csv');
  return { file, failedCsv };
}

/** Reads the journal and the record without taking anything (for --dry-run). */
export async function peekRun(run: RunOf, rows: PlannedRow[], flags: ResendFlags): Promise<RunView> {
  const { file, failedCsv } = await place(run, false);
  return SentRecord.peekWith(run.stateDir, run.destination, (record, db) => {
    record.load();
    const { header, states } = Journal.peek(db, file);
    return {
      path: record.path,
      failedCsv,
      header,
      before: states,
      plan: planRows(rows, states, flags.resendInDoubt, elsewhere(record, flags)),
    };
  });
}

/** A run holding its journal's lock and the record open: what it plans, journals and claims goes through it. */
export class FileRun {
  private constructor(
    private readonly journal: Journal,
    private readonly record: SentRecord,
    private readonly flags: ResendFlags,
    /** The input file as given (absolute), named to other runs waiting for one of its rows. */
    private readonly file: string,
    private readonly rows: PlannedRow[],
    private current: RunView,
  ) {}

  /** What the run found, and plans: planned again once rows are settled (noteSettled). */
  get view(): RunView {
    return this.current;
  }

  /**
   * Takes the journal's lock (another run of the file is refused), opens the record, adds to it the rows the
   * journal says were sent and it lacks, and plans the rows.
   */
  static async open(run: RunOf, rows: PlannedRow[], flags: ResendFlags, now: Date): Promise<FileRun> {
    const { file, failedCsv } = await place(run, true);
    const record = await SentRecord.open(run.stateDir, run.destination);
    let journal: Journal | undefined;
    try {
      journal = Journal.open(
        record.store,
        { journal: 'roster invite send', version: 1, file, destination: run.destination, sha256: run.sha256 },
        now,
      );
      record.load();
      if (journal.imported) await recordSentRows(record, rows, journal, fileRunName(run.file));
      const before = journal.states;
      const plan = planRows(rows, before, flags.resendInDoubt, elsewhere(record, flags));
      return new FileRun(journal, record, flags, run.file, rows, {
        path: record.path,
        failedCsv,
        header: journal.header,
        before,
        plan,
      });
    } catch (error) {
      journal?.close();
      await record.close();
      throw error;
    }
  }

  /** Claims each row in the record before its request, and settles it after, with its journal entries. */
  guard(options: Omit<GuardOptions, 'run' | 'resendSent' | 'resendInDoubt' | 'resending'>): RowGuard {
    return recordGuard(this.record, this.journal, {
      ...options,
      run: { run: this.journal.run, file: this.file, began: this.journal.header.createdAt },
      resendSent: this.flags.resendSent,
      resendInDoubt: this.flags.resendInDoubt,
      resending: this.view.plan.resending,
    });
  }

  /**
   * Rows the server's list shows sent (invite/settle.ts), that were in doubt or failed: sent in the journal
   * (`reason` says how it is known) and in the record, so that no run sends them again.
   */
  async noteSettled(settled: { row: PlannedRow; reason: string }[], now: Date): Promise<void> {
    const at = now.toISOString();
    const entries = settled.map(
      ({ row, reason }): JournalEntry => ({
        key: keyOf(row),
        line: row.line,
        state: 'sent',
        at,
        email: row.body.email,
        schoolId: row.body.schoolId,
        // The hash of the request that was sent (its body may differ from the row read now).
        bodyHash: this.current.before.get(keyOf(row))?.bodyHash ?? bodyHash(row.body),
        reason,
      }),
    );
    const unrecorded = settled.filter(({ row }) => !this.record.has(identityOf(row)));
    await this.record.batch(() => {
      this.journal.write(entries);
      this.record.note(unrecorded.map(({ row }) => sentEntry(row.body, now, fileRunName(this.file))));
    });
    // Copied only now: the journal's states stay what it held when opened (see open).
    const before = new Map(this.current.before);
    for (const { row } of settled) before.set(keyOf(row), { state: 'sent', at });
    const plan = planRows(this.rows, before, this.flags.resendInDoubt, elsewhere(this.record, this.flags));
    this.current = { ...this.current, before, plan };
  }

  async close(): Promise<void> {
    try {
      this.journal.close();
    } finally {
      await this.record.close();
    }
  }
}

/**
 * A row roster's record shows sent by a run other than this file's (whose own rows its journal governs):
 * overlapping files, or a file sent while a plan written earlier waited. Whatever the file's mtime (a save,
 * touch or copy says nothing about who was invited); only --resend-sent sends such rows again.
 */
function elsewhere(record: SentRecord, flags: ResendFlags): SentElsewhere {
  return (row) => (flags.resendSent ? undefined : record.sentAt(identityOf(row)));
}

/**
 * Rows an imported journal says were sent and the record lacks are added, so no campaign plan or other file
 * lists them again: a run of an earlier roster killed between its journal's write and its record's
 * (legacy.ts imports both as they were). Until every row the journal sent has been in the file once: this
 * roster writes a row's outcome and its record entry in one transaction. Not those forgotten (`roster invite forget`) since they were sent,
 * which would undo the forgetting.
 */
async function recordSentRows(
  record: SentRecord,
  rows: PlannedRow[],
  journal: Journal,
  by: string | undefined,
): Promise<void> {
  const missing: SentEntry[] = [];
  let seen = 0;
  for (const row of rows) {
    const entry = journal.states.get(keyOf(row));
    if (entry?.state !== 'sent') continue;
    seen++;
    const identity = identityOf(row);
    if (record.has(identity)) continue;
    const forgotten = record.forgottenAt(identity);
    if (forgotten === undefined || forgotten < entry.at)
      missing.push(sentEntry(row.body, new Date(entry.at), by));
  }
  await record.add(missing);
  let sent = 0;
  for (const entry of journal.states.values()) if (entry.state === 'sent') sent++;
  if (seen === sent) await journal.checked();
}
