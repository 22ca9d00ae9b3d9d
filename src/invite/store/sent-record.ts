// roster's record of the invitations it has seen confirmed sent, and the claims on those being sent: the
// `record` and `claims` tables of the destination's database (database.ts).
// Every single send and every row of `invite send --file` that the server confirmed (spec §2.5) is a row of
// the record, so a campaign plan can leave out whoever roster already invited, whichever file or command
// invited them. Forgetting (`roster invite forget`) adds a row with `forgotten_at` in place of `sent_at`:
// nothing is ever rewritten, and `roster invite history` tells both.
// A row of `invite send --file` is claimed before its request leaves and settled after it, each in one
// transaction with its journal's entry (row-guard.ts), so runs of different files never send one family at
// once and a kill at any instant leaves every row sent, not sent or in doubt.
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { privateFolder } from '../../files.js';
import { thisProcess } from '../../lock.js';
import {
  type Claim,
  type ClaimingRun,
  type ClaimState,
  claimOf,
  commandRun,
  openClaimsIn,
  putClaim,
} from './claims.js';
import { StoreDb } from './database.js';
import {
  type ClaimDecision,
  type ClaimOutcome,
  type ClaimRequest,
  claimDecision,
  standing,
} from './decide.js';
import { type InvitationParts, identityParts, invitationIdentity } from './identity.js';
import { canonical, type Destination, storePath } from './layout.js';
import { hasLegacyState, importLegacyState } from './legacy.js';
import { addRecordRow } from './record-rows.js';

/** An invitation roster saw confirmed sent. */
export interface SentEntry {
  email: string;
  schoolId: string;
  schoolYearId?: string;
  /** When the server confirmed it (ISO 8601). */
  sentAt: string;
  /** Which run sent it, for `roster invite history`: its file's name, or the command (absent before 0.1). */
  by?: string;
}

/** What forget() found: the invitations it forgot (or would), and those another live run is sending. */
export interface ForgetOutcome {
  /** Recorded sent, and forgotten (with `write`), each with when it was sent. */
  forgotten: (InvitationParts & { sentAt: string })[];
  /** Picked, but being sent right now by another live run: not forgotten (its run will record it). */
  inFlight: (InvitationParts & { pid: number; file?: string })[];
}

export { type InvitationParts, identityParts, invitationIdentity } from './identity.js';

/** A row of the record: an invitation sent, or one `roster invite forget` took out. */
export type RecordEntry = SentEntry | (InvitationParts & { forgottenAt: string });

/** How long a claim waits on another run before saying so. */
const WAIT_NOTICE_MS = 5_000;

/** When an identity was last sent since it was last forgotten, by the record's rows. */
const SENT_AT = `SELECT MAX(sent_at) AS at FROM record WHERE identity = ?1 AND sent_at IS NOT NULL
  AND seq > COALESCE((SELECT MAX(seq) FROM record WHERE identity = ?1 AND forgotten_at IS NOT NULL), 0)`;

/** The record read whole, once (load): what a run's plan asks of every row. */
interface Snapshot {
  /** Identity → when it was (last) confirmed sent (keptTime). */
  sent: Map<string, number | string>;
  /** Identity → when it was (last) forgotten. */
  forgotten: Map<string, string>;
}

export interface ClaimOptions {
  ignoreSent: boolean;
  ignoreDoubt: boolean;
  signal: AbortSignal;
  holdMs: number;
  onWait?(other: Claim, until: number): void;
  /** Written in the claim's own transaction once it is taken (a row's in-flight entry in its journal). */
  alsoWhenClaimed?(): void;
}

export class SentRecord {
  private snapshot: Snapshot | undefined;
  /** When (this machine's clock) this process first saw each claim it waits for: waits are bounded from there. */
  private readonly waitingSince = new Map<string, number>();

  private constructor(
    readonly path: string,
    /** Undefined for a record only read (peek), or none yet. */
    private readonly db: StoreDb | undefined,
  ) {}

  /**
   * Reads the record without taking anything (a dry run, a plan that sends nothing); a missing record is an
   * empty one. `onEntry` is shown each row, oldest first. Writing is refused.
   */
  static async peek(
    stateDir: string,
    destination: Destination,
    onEntry?: (entry: RecordEntry) => void,
  ): Promise<SentRecord> {
    const snapshot = await SentRecord.peekWith(stateDir, destination, (record) => {
      record.load(onEntry);
      return record.snapshot;
    });
    return new SentRecord(storePath(stateDir, destination), undefined).withSnapshot(snapshot);
  }

  /**
   * `read` given the record and the database (none yet: undefined), neither created (unless an earlier
   * roster's state is there to import), and closed after.
   */
  static async peekWith<T>(
    stateDir: string,
    destination: Destination,
    read: (record: SentRecord, db: StoreDb | undefined) => T,
  ): Promise<T> {
    await privateFolder(join(stateDir, 'sent'), stateDir, { create: false });
    const db = openStore(stateDir, destination, false);
    try {
      return read(new SentRecord(storePath(stateDir, destination), db), db);
    } finally {
      db?.close();
    }
  }

  /** Opens (creating privately if absent) the destination's record; refuses folders or a file others control. */
  static async open(stateDir: string, destination: Destination): Promise<SentRecord> {
    // roster's state folder down to sent/: another user's folder could hold a record seeded with "sent" rows.
    await privateFolder(join(stateDir, 'sent'), stateDir);
    const db = openStore(stateDir, destination, true) as StoreDb;
    return new SentRecord(storePath(stateDir, destination), db);
  }

  /** Opens the destination's record when there is one (or an earlier roster's state to import), else undefined. */
  static async openIfAny(stateDir: string, destination: Destination): Promise<SentRecord | undefined> {
    await privateFolder(join(stateDir, 'sent'), stateDir, { create: false });
    const db = openStore(stateDir, destination, false);
    return db && new SentRecord(storePath(stateDir, destination), db);
  }

  private withSnapshot(snapshot: Snapshot | undefined): this {
    this.snapshot = snapshot ?? { sent: new Map(), forgotten: new Map() };
    return this;
  }

  /** The database, for the journals kept in it (journal.ts). */
  get store(): StoreDb {
    return this.writable();
  }

  /** Reads the whole record once, so that has() and sentAt() answer a run's every row without a query. */
  load(onEntry?: (entry: RecordEntry) => void): void {
    const snapshot: Snapshot = { sent: new Map(), forgotten: new Map() };
    this.snapshot = snapshot;
    if (!this.db) return;
    const rows = this.db.iterate(
      'SELECT identity, email, school_id, school_year_id, sent_at, forgotten_at, by FROM record ORDER BY seq',
    );
    this.db.read(() => {
      for (const row of rows) {
        const entry = entryOf(row);
        onEntry?.(entry);
        const identity = row.identity as string;
        if ('forgottenAt' in entry) {
          snapshot.sent.delete(identity);
          snapshot.forgotten.set(identity, entry.forgottenAt);
          continue;
        }
        const known = snapshot.sent.get(identity);
        if (known === undefined || shownTime(known) < entry.sentAt)
          snapshot.sent.set(identity, keptTime(entry.sentAt));
      }
    });
  }

  /** True when roster recorded this identity (invitationIdentity) as sent. */
  has(identity: string): boolean {
    return this.sentAt(identity) !== undefined;
  }

  /** When the identity was last recorded as sent (ISO 8601), or undefined. */
  sentAt(identity: string): string | undefined {
    if (this.snapshot) {
      const at = this.snapshot.sent.get(identity);
      return at === undefined ? undefined : shownTime(at);
    }
    return this.db ? this.sentAtNow(identity) : undefined;
  }

  /** When the identity was last forgotten (ISO 8601), or undefined. */
  forgottenAt(identity: string): string | undefined {
    if (this.snapshot) return this.snapshot.forgotten.get(identity);
    const row = this.db?.get(
      'SELECT forgotten_at FROM record WHERE identity = ? AND forgotten_at IS NOT NULL ORDER BY seq DESC LIMIT 1',
      identity,
    );
    return row?.forgotten_at as string | undefined;
  }

  /** Identities recorded sent (after load()). */
  get size(): number {
    return this.snapshot?.sent.size ?? 0;
  }

  /**
   * Records invitations confirmed sent, and has() answers for them at once; resolves once they are on disk.
   * (A run's own rows go through note() alone: it never asks again about a row it sent, and a district's run
   * would hold an identity per row.)
   */
  add(entries: SentEntry[]): Promise<void> {
    if (entries.length === 0) return Promise.resolve();
    if (!this.db) return Promise.reject(new Error(`${this.path} was opened to be read only.`));
    for (const e of entries)
      this.snapshot?.sent.set(invitationIdentity(e.email, e.schoolId, e.schoolYearId), keptTime(e.sentAt));
    return this.batch(() => this.note(entries));
  }

  /** `op` in a transaction shared with what else this turn of the event loop writes (database.ts). */
  batch<T>(op: () => T): Promise<T> {
    return this.writable().batch(op);
  }

  /** Inside a transaction: the entries into the record (not into has(): see add()). */
  note(entries: SentEntry[]): void {
    const db = this.writable();
    for (const e of entries)
      addRecordRow(db, e, { sentAt: e.sentAt, ...(e.by !== undefined && { by: e.by }) });
  }

  /**
   * Claims an invitation for `run` before its request leaves: waits while another live run is sending it;
   * otherwise the claim is on disk when this resolves 'claimed'. 'sent': roster's record shows it sent
   * (unless `ignoreSent`); 'stopped' or 'in-doubt': another run was killed while sending it, or could not
   * tell whether it was sent (unless `ignoreDoubt`); 'aborted': the signal fired meanwhile. The claim holds
   * for `holdMs` at most (the longest the request can take), and another run's claim is waited for no
   * longer than that from when this run first saw it, whatever deadline it states; `onWait` is told once
   * when another run has held it for a few seconds, with until when this run waits.
   */
  async claim(identity: string, run: ClaimingRun, options: ClaimOptions): Promise<ClaimOutcome> {
    const started = Date.now();
    let told = false;
    for (let delay = 10; ; delay = Math.min(delay * 2, 200)) {
      if (options.signal.aborted) return { kind: 'aborted' };
      const request: ClaimRequest = {
        claim: this.claimRow(identity, run, 'sending', options.holdMs),
        ignoreSent: options.ignoreSent,
        ignoreDoubt: options.ignoreDoubt,
        holdMs: options.holdMs,
      };
      const outcome = await this.batch(() => this.decide(request, options.alsoWhenClaimed));
      if (outcome.kind !== 'busy') return outcome;
      if (!told && Date.now() - started > WAIT_NOTICE_MS) {
        told = true;
        options.onWait?.(outcome.other, outcome.until);
      }
      await sleep(delay + Math.random() * delay);
    }
  }

  /** Inside a transaction: whether the claim may be taken, taken if so (with `also` written beside it). */
  private decide(request: ClaimRequest, also?: () => void): ClaimDecision {
    const db = this.writable();
    const { id } = request.claim;
    const decision = claimDecision(request, this.sentAtNow(id), claimOf(db, id), this.waitingSince);
    if (decision.kind !== 'claimed') return decision;
    putClaim(db, decision.over ? { ...request.claim, over: 'in-doubt' } : request.claim);
    also?.();
    return decision;
  }

  /**
   * Settles `run`'s claim after the request: 'done' (with `sent`, the invitation confirmed sent, recorded
   * in the same transaction) or 'in-doubt' (it may have been sent: no other run sends it without being told
   * to). `over`: the doubt is another run's, taken over and not settled (decide.ts: never this run's own).
   */
  settle(
    identity: string,
    run: ClaimingRun,
    state: Exclude<ClaimState, 'sending'>,
    sent?: SentEntry,
    { over = false, theirs }: { over?: boolean; theirs?: Claim } = {},
  ): Promise<void> {
    return this.batch(() => {
      if (sent) this.note([sent]);
      this.release(identity, run, state, over, theirs);
    });
  }

  /**
   * Inside a transaction: `run`'s claim settled. Another run's claim is left as it is (one that took this
   * claim over, past its deadline, holds it now), unless it is still `theirs`, the claim `run` read and
   * settles for its owner (`roster invite settle`: the server's list shows it sent).
   */
  release(
    identity: string,
    run: ClaimingRun,
    state: Exclude<ClaimState, 'sending'>,
    over = false,
    theirs?: Claim,
  ): void {
    const db = this.writable();
    const now = claimOf(db, identity);
    const same = now !== undefined && theirs !== undefined && now.run === theirs.run && now.at === theirs.at;
    if (now !== undefined && now.run !== run.run && !same) return;
    const claim = this.claimRow(identity, run, state);
    putClaim(db, over ? { ...claim, over: 'in-doubt' } : claim);
  }

  private claimRow(identity: string, run: ClaimingRun, state: ClaimState, holdMs?: number): Claim {
    const at = new Date();
    return {
      id: identity,
      ...run,
      state,
      ...thisProcess(),
      at: at.toISOString(),
      ...(holdMs !== undefined && { until: new Date(at.getTime() + holdMs).toISOString() }),
    };
  }

  private sentAtNow(identity: string): string | undefined {
    return (this.writable().get(SENT_AT, identity)?.at as string | null) ?? undefined;
  }

  /** Throws when the database was deleted or replaced since this process opened it (database.ts). */
  checkIdentity(): void {
    this.db?.checkIdentity();
  }

  /**
   * Forgets the recorded invitations `pick` chooses, in one transaction: each gets a row that takes it out
   * of the record, so it can be sent again. Invitations another live run is sending right now are left
   * alone and listed: that run records them when they are answered. Without `write`, only says what it
   * would forget.
   */
  async forget(pick: (invitation: InvitationParts) => boolean, write: boolean): Promise<ForgetOutcome> {
    const db = this.writable();
    return db.transaction(() => {
      this.load();
      const busy = new Map<string, Claim>();
      for (const claim of openClaimsIn(db))
        if (standing(claim, { run: FORGET_RUN }) === 'busy' && pick(identityParts(claim.id)))
          busy.set(claim.id, claim);
      const outcome: ForgetOutcome = { forgotten: [], inFlight: [] };
      for (const id of (this.snapshot as Snapshot).sent.keys()) {
        if (busy.has(id) || !pick(identityParts(id))) continue;
        outcome.forgotten.push({ ...identityParts(id), sentAt: this.sentAt(id) as string });
      }
      for (const [id, claim] of busy)
        outcome.inFlight.push({
          ...identityParts(id),
          pid: claim.pid,
          ...(claim.file !== undefined && { file: claim.file }),
        });
      if (write) this.noteForgotten(outcome.forgotten, new Date().toISOString());
      this.snapshot = undefined;
      return outcome;
    });
  }

  private noteForgotten(forgotten: InvitationParts[], at: string): void {
    const db = this.writable();
    for (const f of forgotten) addRecordRow(db, f, { forgottenAt: at });
  }

  /**
   * The invitations whose claim leaves them open: in doubt, or `sending` by a run that stopped (`roster
   * invite settle` asks the server about them). Live runs' claims are left out.
   */
  async openClaims(): Promise<OpenClaim[]> {
    const db = this.writable();
    return db.read(() =>
      openClaimsIn(db)
        .filter((claim) => ['in-doubt', 'stopped'].includes(standing(claim, SETTLE_RUN)))
        .map((claim) => ({ ...identityParts(claim.id), identity: claim.id, claim })),
    );
  }

  /** Every open claim, live or not (`roster invite history`). */
  claims(): Claim[] {
    return this.db ? this.db.read(() => openClaimsIn(this.db as StoreDb)) : [];
  }

  async close(): Promise<void> {
    this.db?.close();
  }

  private writable(): StoreDb {
    if (!this.db) throw new Error(`${this.path} was opened to be read only.`);
    return this.db;
  }
}

/**
 * The destination's database, created (`create`) with the state an earlier roster kept imported into it
 * (legacy.ts); without `create`, undefined when there is none, unless there is such state to import.
 */
function openStore(stateDir: string, destination: Destination, create: boolean): StoreDb | undefined {
  const path = storePath(stateDir, destination);
  const open = (made: boolean) =>
    StoreDb.open(path, destination, {
      create: made,
      created: (db) => importLegacyState(stateDir, canonical(destination), db),
    });
  const found = open(create);
  if (found || !hasLegacyState(stateDir, canonical(destination))) return found;
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  return open(true);
}

/** A record row as an entry: sent, or forgotten. */
function entryOf(row: Record<string, unknown>): RecordEntry {
  const parts: InvitationParts = { email: row.email as string, schoolId: row.school_id as string };
  if (typeof row.school_year_id === 'string') parts.schoolYearId = row.school_year_id;
  if (typeof row.forgotten_at === 'string') return { ...parts, forgottenAt: row.forgotten_at };
  return { ...parts, sentAt: row.sent_at as string, ...(typeof row.by === 'string' && { by: row.by }) };
}

/**
 * A time as the snapshot holds it: an ISO 8601 time roster wrote as its milliseconds (a number takes 16
 * bytes where the text took 40, and a district's record has an entry per invitation), any other text as is.
 */
function keptTime(at: string): number | string {
  const ms = Date.parse(at);
  return !Number.isNaN(ms) && new Date(ms).toISOString() === at ? ms : at;
}

const shownTime = (at: number | string) => (typeof at === 'number' ? new Date(at).toISOString() : at);

/** The run forget() stands as when it reads the claims: no run's own, so every live one counts. */
const FORGET_RUN = commandRun('invite forget');

/** The run `roster invite settle` stands as: no run's own. */
export const SETTLE_RUN = { run: commandRun('invite settle'), file: '`roster invite settle`' };

/** An invitation left open by a run (SentRecord.openClaims): its parts, its identity and its claim. */
export interface OpenClaim extends InvitationParts {
  identity: string;
  claim: Claim;
}
