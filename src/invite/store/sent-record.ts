// roster's record of the invitations it has seen confirmed sent, one file per destination (canonical base URL
// and client id): `<state>/sent/<host>-<hash>.jsonl` (layout.ts), a header line then one JSON object per
// invitation (format: index.ts).
// Every single send and every row of `invite send --file` that the server confirmed (spec §2.5) is appended,
// so a campaign plan can leave out whoever roster already invited, whichever file or command invited them.
//
// - Private like the journals: the folders are roster's own (0700, refused when another user owns one or
//   others can write to it), the file is created 0600 and opened without following a link, and only the
//   user's own file that nobody else can write is trusted (a planted record of "sent" rows would silently
//   leave families out).
// - Several roster processes append at once: each batch is written under the record's lock file
//   (lock.ts, waitForLock), after cutting a torn last line a killed writer left (so it can never swallow the next entry),
//   in one write and one fsync. Readers take no lock: they ignore a torn last line.
// - A row of `invite send --file` is claimed before its request leaves and settled after it (claims.ts),
//   under the same lock and in the same batches, so runs of different files never send one family at once.
// - Forgetting (`roster invite forget`) appends a line per invitation forgotten (`forgottenAt` in place of
//   `sentAt`), under the same lock: the file is never rewritten or replaced, so processes holding it open
//   read the forgetting like any entry. One that finds the file at its path deleted or replaced (another
//   device or inode than the one it holds) stops writing to it: its sends would be recorded nowhere.
// - Read in one pass: hundreds of thousands of entries load in a fraction of a second (test/bench).
import { fstatSync, ftruncateSync, lstatSync, readSync, writeFileSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { RosterError } from '../../errors.js';
import { fileError, openOwnAppendable, privateFolder, readPrivateFile } from '../../files.js';
import { releaseLock, syncFd, thisProcess, waitForLock } from '../../lock.js';
import { invitationKey } from '../invitation.js';
import { type Claim, type ClaimingRun, type ClaimState, ClaimsFile } from './claims.js';
import {
  type ClaimDecision,
  type ClaimOutcome,
  type ClaimRequest,
  claimDecision,
  standing,
} from './decide.js';
import { requestsLeftIn } from './journal.js';
import { forEachLine } from './json-lines.js';
import { canonical, canonicalBaseUrl, type Destination, sentRecordPath } from './layout.js';

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

/** An invitation as its identity spells it: the e-mail trimmed and in lower case, school, school year. */
export interface InvitationParts {
  email: string;
  schoolId: string;
  schoolYearId?: string;
}

/** What forget() found: the invitations it forgot (or would), and those another live run is sending. */
export interface ForgetOutcome {
  /** Recorded sent, and forgotten (with `write`), each with when it was sent. */
  forgotten: (InvitationParts & { sentAt: string })[];
  /** Picked, but being sent right now by another live run: not forgotten (its run will record it). */
  inFlight: (InvitationParts & { pid: number; file?: string })[];
}

interface RecordHeader {
  record: 'roster sent invitations';
  version: 1;
  /** The canonical base URL and the client id: what the file is for, for a human reading the folder. */
  destination: Destination;
  createdAt: string;
}

const KIND = 'roster sent invitations';

/**
 * The identity of an invitation: the e-mail trimmed and in lower case, the school and the school year
 * (trimmed; '' when none), as one string. JSON keeps the three apart whatever they hold (ids may hold
 * spaces), so two different invitations never share an identity.
 */
export function invitationIdentity(email: string, schoolId: string, schoolYearId?: string | null): string {
  return JSON.stringify([email.trim().toLowerCase(), schoolId.trim(), (schoolYearId ?? '').trim()]);
}

/** The parts of an identity (invitationIdentity), as it spells them. */
export function identityParts(identity: string): InvitationParts {
  const [email = '', schoolId = '', schoolYearId = ''] = JSON.parse(identity) as string[];
  return { email, schoolId, ...(schoolYearId !== '' && { schoolYearId }) };
}

/**
 * The longest a settled claim nobody waits for stays queued: it goes with the next batch of claims (a run
 * claims rows ahead, a batch at a time), or alone after this long.
 */
const SETTLE_DELAY_MS = 200;

/** How long a claim waits on another run before saying so. */
const WAIT_NOTICE_MS = 5_000;
/** Bytes read from the end to find a torn line: one entry is far smaller. */
const TAIL = 64 * 1024;

export class SentRecord {
  /** Identity → when it was (last) confirmed sent (keptTime); filled by load(). */
  private readonly sent = new Map<string, number | string>();
  /** Identity → when it was (last) forgotten (roster invite forget); filled by load(). */
  private readonly forgotten = new Map<string, string>();
  /** Bytes of the file read so far (a later load() reads only what was appended since). */
  private offset = 0;
  /** Lines of the file read so far (for a message naming a damaged one). */
  private lines = 0;
  private queue: Operation[] = [];
  private writing = false;
  /** When the queue is to be written: at the end of this turn of the event loop, or after SETTLE_DELAY_MS. */
  private scheduled: 'soon' | 'later' | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** The claims beside the record, read as they grow. */
  private claims: ClaimsFile | undefined;
  /** The device and inode of the file this process holds open (checkIdentity). */
  private held: { dev: number; ino: number } | undefined;
  /** When (this machine's clock) this process first saw each claim it waits for: waits are bounded from there. */
  private readonly waitingSince = new Map<string, number>();

  private constructor(
    readonly path: string,
    /** Undefined for a record only read (peek). */
    private readonly handle: FileHandle | undefined,
    private readonly destination: Destination,
  ) {}

  /**
   * Reads the record without creating anything or taking a lock (for a dry run or a plan that sends
   * nothing); a missing record is an empty one. add() is refused.
   */
  static async peek(
    stateDir: string,
    destination: Destination,
    onEntry?: (entry: RecordEntry) => void,
  ): Promise<SentRecord> {
    const path = sentRecordPath(stateDir, destination);
    await privateFolder(join(stateDir, 'sent'), stateDir, { create: false });
    const text = await readPrivateFile(path, { own: true, followLinks: false });
    const record = new SentRecord(path, undefined, canonical(destination));
    if (text !== undefined) record.ingest(Buffer.from(text, 'utf8'), onEntry);
    return record;
  }

  /** Opens (creating privately if absent) the record of a destination; refuses folders or a file others control. */
  static async open(stateDir: string, destination: Destination): Promise<SentRecord> {
    const path = sentRecordPath(stateDir, destination);
    // roster's state folder down to sent/: another user's folder could hold a record seeded with "sent" rows.
    await privateFolder(join(stateDir, 'sent'), stateDir);
    const handle = await openOwnAppendable(path);
    return new SentRecord(path, handle, canonical(destination));
  }

  /**
   * Reads what was appended since the last load (all of it the first time); a torn last line is left for
   * later. Synchronous: cheap when nothing was appended (one fstat), and callers checking a row just before
   * sending it keep their order.
   */
  load(): void {
    if (!this.handle) return;
    const { fd } = this.handle;
    try {
      const { size } = fstatSync(fd);
      if (size <= this.offset) return;
      const bytes = Buffer.alloc(size - this.offset);
      const read = readSync(fd, bytes, 0, bytes.length, this.offset);
      this.ingest(bytes.subarray(0, read));
    } catch (error) {
      throw fileError(error, this.path, 'read');
    }
  }

  /**
   * Takes in the whole lines of `bytes` (what follows this.offset); a torn last line is not counted.
   * `onEntry` is shown each entry as it is read (`roster invite history`).
   */
  private ingest(bytes: Buffer, onEntry?: (entry: RecordEntry) => void): void {
    // A torn last line is either being written now or was cut by a kill: the next writer removes it.
    const end = bytes.lastIndexOf(10) + 1;
    if (end === 0) return;
    const first = this.offset === 0;
    const text = bytes.toString('utf8', 0, end);
    const count = forEachLine(text, (line, index) => {
      if (first && index === 0) {
        this.checkHeader(line);
        return;
      }
      const entry = parseEntry(line);
      if (entry) onEntry?.(entry);
      if (entry && 'forgottenAt' in entry) {
        const identity = invitationIdentity(entry.email, entry.schoolId, entry.schoolYearId);
        this.sent.delete(identity);
        this.forgotten.set(identity, entry.forgottenAt);
        return;
      }
      if (!entry) {
        throw new RosterError(
          'failure',
          `The record of sent invitations ${this.path} is damaged at line ${this.lines + index + 1}.`,
          'Move it aside only if you are sure: invitations it recorded could be sent again.',
        );
      }
      this.note(entry);
    });
    this.offset += end;
    this.lines += count;
  }

  private note(entry: SentEntry): void {
    const identity = invitationIdentity(entry.email, entry.schoolId, entry.schoolYearId);
    const known = this.sentAt(identity);
    if (known === undefined || known < entry.sentAt) this.sent.set(identity, keptTime(entry.sentAt));
  }

  private checkHeader(line: string): void {
    let header: Partial<RecordHeader> | undefined;
    try {
      header = JSON.parse(line) as Partial<RecordHeader>;
    } catch {}
    const same =
      header?.record === KIND &&
      header.version === 1 &&
      header.destination?.clientId === this.destination.clientId &&
      typeof header.destination.baseUrl === 'string' &&
      canonicalBaseUrl(header.destination.baseUrl) === this.destination.baseUrl;
    if (!same) {
      throw new RosterError(
        'failure',
        `${this.path} is not roster's record of invitations sent to ${this.destination.baseUrl} as ${this.destination.clientId}.`,
        'Move it aside and run the command again.',
      );
    }
  }

  /** True when roster recorded this identity (invitationIdentity) as sent; after load(). */
  has(identity: string): boolean {
    return this.sent.has(identity);
  }

  /** When the identity was last recorded as sent (ISO 8601), or undefined; after load(). */
  sentAt(identity: string): string | undefined {
    const at = this.sent.get(identity);
    return typeof at === 'number' ? new Date(at).toISOString() : at;
  }

  /** When the identity was last forgotten (ISO 8601), or undefined; after load(). */
  forgottenAt(identity: string): string | undefined {
    return this.forgotten.get(identity);
  }

  /** Identities known (after load()). */
  get size(): number {
    return this.sent.size;
  }

  /**
   * Appends invitations confirmed sent; resolves once they are on disk. Calls made while a batch is being
   * written are written together (one lock, one write, one fsync). They count for has() at once.
   */
  add(entries: SentEntry[]): Promise<void> {
    if (entries.length === 0) return Promise.resolve();
    if (!this.handle) return Promise.reject(new Error(`${this.path} was opened to be read only.`));
    for (const e of entries) this.note(e);
    return this.enqueue({ kind: 'write', sent: entries, claims: [] }).then(() => {});
  }

  /**
   * Claims an invitation for `run` (a journal's path) before its request leaves: waits while another live
   * run is sending it (or, `ahead`, says 'later' at once when anything stands in the way); otherwise the
   * claim is on disk when this resolves 'claimed'. 'sent': roster's
   * record shows it sent (unless `ignoreSent`); 'stopped' or 'in-doubt': another run was killed while sending
   * it, or could not tell whether it was sent (unless `ignoreDoubt`); 'aborted': the signal fired meanwhile.
   * The claim holds for `holdMs` at most (the longest the request can take), and another run's claim is
   * waited for no longer than that from when this run first saw it, whatever deadline it states; `onWait`
   * is told once when another run has held it for a few seconds, with until when this run waits.
   */
  async claim(
    identity: string,
    run: ClaimingRun,
    options: {
      ignoreSent: boolean;
      ignoreDoubt: boolean;
      signal: AbortSignal;
      holdMs: number;
      /** Ahead of the request: taken only when nothing stands in the way, else 'later' at once (decide.ts). */
      ahead?: boolean;
      onWait?(other: Claim, until: number): void;
    },
  ): Promise<ClaimOutcome> {
    const started = Date.now();
    let told = false;
    for (let delay = 10; ; delay = Math.min(delay * 2, 200)) {
      if (options.signal.aborted) return { kind: 'aborted' };
      const claim = this.claimLine(identity, run, 'sending');
      claim.until = new Date(Date.now() + options.holdMs).toISOString();
      const outcome = await this.enqueue({
        kind: 'claim',
        claim,
        ignoreSent: options.ignoreSent,
        ignoreDoubt: options.ignoreDoubt,
        holdMs: options.holdMs,
        ...(options.ahead && { ahead: true }),
      });
      if (outcome && outcome.kind !== 'busy') return outcome;
      if (outcome && !told && Date.now() - started > WAIT_NOTICE_MS) {
        told = true;
        options.onWait?.(outcome.other, outcome.until);
      }
      await sleep(delay + Math.random() * delay);
    }
  }

  /**
   * Settles `run`'s claim after the request: 'done' (with `sent`, the invitation confirmed sent, recorded
   * first) or 'in-doubt' (it may have been sent: no other run sends it without being told to). The sent
   * entry goes to the file only, not to has(): a run never asks again about an invitation it sent (a file's
   * rows are each sent once), and a district's run would hold an identity per row. `lazy`: written with the
   * next batch that is waited for, or within SETTLE_DELAY_MS (flush() writes it now). `over`: the doubt is
   * another run's, taken over and not settled (decide.ts: never this run's own, for its next run).
   */
  settle(
    identity: string,
    run: ClaimingRun,
    state: Exclude<ClaimState, 'sending'>,
    sent?: SentEntry,
    { lazy = false, over = false }: { lazy?: boolean; over?: boolean } = {},
  ): Promise<void> {
    const claim = this.claimLine(identity, run, state);
    if (over) claim.over = 'in-doubt';
    return this.enqueue({ kind: 'write', sent: sent ? [sent] : [], claims: [claim] }, !lazy).then(() => {});
  }

  /** Writes the lazy settles queued now, at the end of this turn of the event loop; resolves once on disk. */
  flush(): Promise<void> {
    if (!this.queue.some((o) => !o.urgent)) return Promise.resolve();
    return this.enqueue({ kind: 'write', sent: [], claims: [] }).then(() => {});
  }

  private claimLine(identity: string, run: ClaimingRun, state: ClaimState): Claim {
    return { id: identity, ...run, state, ...thisProcess(), at: new Date().toISOString() };
  }

  private enqueue(request: Request, urgent = true): Promise<Answer> {
    if (!this.handle) return Promise.reject(new Error(`${this.path} was opened to be read only.`));
    return new Promise<Answer>((resolve, reject) => {
      this.queue.push({ request, urgent, resolve, reject });
      // While a batch is being written, the loop in writeQueued takes what is waited for next.
      if (!this.writing) this.schedule(urgent);
    });
  }

  /**
   * A batch waited for starts once this turn of the event loop is done: what the other rows ask meanwhile
   * (claims taken ahead, settles queued) joins it, under one lock and one fsync per file.
   */
  private schedule(urgent: boolean): void {
    if (this.scheduled === 'soon' || (this.scheduled === 'later' && !urgent)) return;
    clearTimeout(this.timer);
    this.scheduled = urgent ? 'soon' : 'later';
    const write = () => {
      this.scheduled = undefined;
      void this.writeQueued();
    };
    if (urgent) setImmediate(write);
    else this.timer = setTimeout(write, SETTLE_DELAY_MS);
  }

  async close(): Promise<void> {
    while (this.writing || this.queue.length > 0) {
      if (!this.writing) this.schedule(true);
      await sleep(5);
    }
    clearTimeout(this.timer);
    await this.handle?.close();
  }

  private async writeQueued(): Promise<void> {
    if (this.writing) return;
    this.writing = true;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0);
      try {
        const outcomes = await this.writeBatch(batch);
        for (const [i, b] of batch.entries()) b.resolve(outcomes[i]);
      } catch (error) {
        const failure =
          error instanceof RosterError
            ? error
            : new RosterError(
                'failure',
                `Could not write the record of sent invitations ${this.path}: ${(error as Error).message}.`,
              );
        for (const b of batch) b.reject(failure);
      }
      // Lazy settles that came meanwhile wait for the next batch that is waited for, or their delay.
      if (!this.queue.some((o) => o.urgent)) break;
    }
    this.writing = false;
    if (this.queue.length > 0) this.schedule(false);
  }

  /**
   * One batch under one lock: the record's new entries first (so a claim is never settled before its
   * invitation is recorded), then the claims, decided on everything other processes wrote before.
   */
  private async writeBatch(operations: Operation[]): Promise<Answer[]> {
    const batch = operations.map((o) => o.request);
    if (batch.every((b) => b.kind === 'write' && b.sent.length === 0 && b.claims.length === 0)) return [];
    const lockPath = `${this.path}.lock`;
    const token = await waitForLock(lockPath);
    try {
      this.checkIdentity();
      // What other runs appended, read before this batch's entries, which are not read back (see settle).
      // A record that cannot be read (a damaged line) still gets the entries first: the batch fails after,
      // where it reads the record to decide claims, as it always did.
      let unread: unknown;
      try {
        this.load();
      } catch (error) {
        unread = error;
      }
      const lines = batch.flatMap((b) => (b.kind === 'write' ? b.sent.map(entryLine) : []));
      if (lines.length > 0) this.passOver(await this.append(lines));
      if (!batch.some((b) => b.kind === 'claim' || b.claims.length > 0)) return [];
      if (unread !== undefined) throw unread;
      this.load();
      const outcomes: Answer[] = [];
      this.claims ??= new ClaimsFile(`${this.path}.claims`);
      await this.claims.update((latest) => {
        const leftUnsent = this.leftUnsentBy(
          batch.flatMap((b) => (b.kind === 'claim' ? [b.claim.id] : [])),
          latest,
        );
        return batch.flatMap((b, i) => {
          if (b.kind === 'write') return b.claims;
          const outcome = claimDecision(
            b,
            this.sentAt(b.claim.id),
            latest.get(b.claim.id),
            this.waitingSince,
            leftUnsent,
          );
          outcomes[i] = outcome;
          if (outcome.kind !== 'claimed') return [];
          return [outcome.over ? { ...b.claim, over: 'in-doubt' as const } : b.claim];
        });
      });
      return outcomes;
    } finally {
      await releaseLock(lockPath, token);
    }
  }

  /**
   * For the invitations `ids` (a batch's claims): whether a dead run's claim left its invitation unsent
   * (decide.ts), by that run's journal, read once for the ids it claimed: unsent when the journal never let the
   * row's request leave (no in-flight entry for it, by any run of that file). Only the journal the claim
   * names (in roster's invites folder beside this record, begun when the claim says) is read; a claim taken
   * over another run's doubt, one from an earlier roster or a single send's stays in doubt.
   */
  private leftUnsentBy(ids: string[], latest: ReadonlyMap<string, Claim>): (claim: Claim) => boolean {
    const invites = join(dirname(dirname(this.path)), 'invites');
    const journals = new Map<string, ReturnType<typeof requestsLeftIn>>();
    return (claim) => {
      if (claim.over || claim.began === undefined) return false;
      if (dirname(claim.run) !== invites || !claim.run.endsWith('.jsonl')) return false;
      if (!journals.has(claim.run)) {
        const keys = new Set<string>();
        for (const id of ids) if (latest.get(id)?.run === claim.run) keys.add(journalKey(id));
        journals.set(claim.run, requestsLeftIn(claim.run, keys, this.destination));
      }
      const journal = journals.get(claim.run);
      return journal?.createdAt === claim.began && !journal.inFlight.has(journalKey(claim.id));
    };
  }

  /**
   * The file at the record's path is still the one this process holds (checked under the lock for every
   * batch, and before each request of a row claimed ahead). Deleted or replaced (a copy put back, a new
   * record another run created after a delete), what this run sends next would be recorded where no other
   * run looks, and the other runs' sends would be unknown to it: it stops.
   */
  checkIdentity(): void {
    // The open file's device and inode never change: asked once (this runs before every row's request).
    this.held ??= fstatSync((this.handle as FileHandle).fd);
    const { held } = this;
    let now: { dev: number; ino: number } | undefined;
    try {
      now = lstatSync(this.path, { throwIfNoEntry: false });
    } catch (error) {
      throw fileError(error, this.path, 'read');
    }
    if (now?.dev === held.dev && now.ino === held.ino) return;
    throw new RosterError(
      'failure',
      `roster's record of sent invitations ${this.path} was ${now ? 'replaced' : 'deleted'} while this run was using it; roster stops sending so that no family is e-mailed twice.`,
      'Run the same command again to continue (its journal skips the rows already sent). To let invitations be sent again, use `roster invite forget`; never delete or replace the record while roster runs.',
    );
  }

  /**
   * Forgets the recorded invitations `pick` chooses, under the record's lock: each gets a line that takes
   * it out of the record (every process reading the record sees it), so it can be sent again. Invitations
   * another live run is sending right now are left alone and listed: that run records them when they are
   * answered. Without `write`, only says what it would forget.
   */
  async forget(pick: (invitation: InvitationParts) => boolean, write: boolean): Promise<ForgetOutcome> {
    return this.alone(async () => {
      this.load();
      const busy = new Map<string, Claim>();
      this.claims ??= new ClaimsFile(`${this.path}.claims`);
      await this.claims.update((latest) => {
        for (const [id, claim] of latest)
          if (standing(claim, { run: FORGET_RUN }) === 'busy' && pick(identityParts(id))) busy.set(id, claim);
        return [];
      });
      const outcome: ForgetOutcome = { forgotten: [], inFlight: [] };
      for (const id of this.sent.keys()) {
        if (busy.has(id) || !pick(identityParts(id))) continue;
        outcome.forgotten.push({ ...identityParts(id), sentAt: this.sentAt(id) as string });
      }
      for (const [id, claim] of busy)
        outcome.inFlight.push({
          ...identityParts(id),
          pid: claim.pid,
          ...(claim.file !== undefined && { file: claim.file }),
        });
      if (write && outcome.forgotten.length > 0) {
        const at = new Date().toISOString();
        await this.append(outcome.forgotten.map((f) => forgetLine(f, at)));
        // Read back at once, so this process's view and its offset follow the file.
        this.load();
      }
      return outcome;
    });
  }

  /**
   * The invitations whose last claim leaves them open, read under the lock: in doubt, or `sending` by a run
   * that stopped (`roster invite settle` asks the server about them). Live runs' claims are left out.
   */
  async openClaims(): Promise<OpenClaim[]> {
    return this.alone(async () => {
      const open: OpenClaim[] = [];
      this.claims ??= new ClaimsFile(`${this.path}.claims`);
      await this.claims.update((latest) => {
        const left = [...latest].filter(([, claim]) =>
          ['in-doubt', 'stopped'].includes(standing(claim, SETTLE_RUN)),
        );
        // A dead run's claim whose request never left (by its journal) left nothing open.
        const leftUnsent = this.leftUnsentBy(
          left.map(([id]) => id),
          latest,
        );
        for (const [id, claim] of left)
          if (claim.state === 'in-doubt' || !leftUnsent(claim))
            open.push({ ...identityParts(id), identity: id, claim });
        return [];
      });
      return open;
    });
  }

  /**
   * `body` under the record's lock, once this process's own batches are written, on the record this
   * process holds (forget, openClaims: whole reads of the claims, outside the batches of a run).
   */
  private async alone<T>(body: () => Promise<T>): Promise<T> {
    if (!this.handle) throw new Error(`${this.path} was opened to be read only.`);
    while (this.writing) await sleep(5);
    const lockPath = `${this.path}.lock`;
    const token = await waitForLock(lockPath);
    try {
      this.checkIdentity();
      return await body();
    } finally {
      await releaseLock(lockPath, token);
    }
  }

  /** Moves the read offset past what this process just appended, when nothing else is left before it. */
  private passOver(written: Appended): void {
    if (this.offset !== written.from) return;
    this.offset = written.to;
    this.lines += written.lines;
  }

  /**
   * Appends the lines (each ending with a newline) under the lock: the header first if the file is new, a
   * torn last line cut off first. Says where the lines written start and end, and how many there were.
   */
  private async append(lines: string[]): Promise<Appended> {
    // Synchronous but for the fsync, like the claims (the handle is opened O_APPEND).
    const { fd } = this.handle as FileHandle;
    try {
      const { size } = fstatSync(fd);
      const whole = this.wholeLength(fd, size);
      if (whole < size) ftruncateSync(fd, whole);
      const header: RecordHeader = {
        record: KIND,
        version: 1,
        destination: this.destination,
        createdAt: new Date().toISOString(),
      };
      const written = whole === 0 ? [`${JSON.stringify(header)}\n`, ...lines] : lines;
      const text = written.join('');
      writeFileSync(fd, text);
      await syncFd(fd);
      return { from: whole, to: whole + Buffer.byteLength(text), lines: written.length };
    } catch (error) {
      throw fileError(error, this.path, 'write');
    }
  }

  /** The length of the file up to its last complete line (a kill -9 mid-write can leave a torn one). */
  private wholeLength(fd: number, size: number): number {
    if (size === 0) return 0;
    const from = Math.max(0, size - TAIL);
    const tail = Buffer.alloc(size - from);
    readSync(fd, tail, 0, tail.length, from);
    const newline = tail.lastIndexOf(10);
    if (newline === tail.length - 1) return size;
    if (newline < 0 && from > 0) {
      throw new RosterError('failure', `The record of sent invitations ${this.path} is damaged at its end.`);
    }
    return from + newline + 1;
  }
}

/**
 * A time as the record holds it in memory: an ISO 8601 time roster wrote as its milliseconds (a number takes
 * 16 bytes where the text took 40, and a district's record has an entry per invitation), any other text
 * as it is.
 */
function keptTime(at: string): number | string {
  const ms = Date.parse(at);
  return !Number.isNaN(ms) && new Date(ms).toISOString() === at ? ms : at;
}

/** Lines appended: from and to which byte of the file, and how many. */
interface Appended {
  from: number;
  to: number;
  lines: number;
}

/** What a batch is asked: to write entries and settled claims, or whether a claim may be taken. */
type Request = { kind: 'write'; sent: SentEntry[]; claims: Claim[] } | ({ kind: 'claim' } & ClaimRequest);
/** A claim's decision, or nothing for a write. */
type Answer = ClaimDecision | undefined;

interface Operation {
  request: Request;
  /** A row waits for it (a claim, or an outcome the caller awaits); else it may wait for a later batch. */
  urgent: boolean;
  resolve(answer: Answer): void;
  reject(error: unknown): void;
}

const entryLine = (e: SentEntry) =>
  `${JSON.stringify({
    email: e.email,
    schoolId: e.schoolId,
    ...(e.schoolYearId ? { schoolYearId: e.schoolYearId } : {}),
    sentAt: e.sentAt,
    ...(e.by ? { by: e.by } : {}),
  })}\n`;

/** A line forgetting an invitation: its parts, and `forgottenAt` where an entry has `sentAt`. */
const forgetLine = (f: InvitationParts, at: string) =>
  `${JSON.stringify({
    email: f.email,
    schoolId: f.schoolId,
    ...(f.schoolYearId ? { schoolYearId: f.schoolYearId } : {}),
    forgottenAt: at,
  })}\n`;

/** A journal's key of a row (invitationKey) for an invitation's identity. */
function journalKey(identity: string): string {
  const { email, schoolId } = identityParts(identity);
  return invitationKey(email, schoolId);
}

/** The run forget() stands as when it reads the claims: no run's own, so every live one counts. */
const FORGET_RUN = '\0roster invite forget';

/** The run `roster invite settle` stands as: no run's own. */
export const SETTLE_RUN = { run: '\0roster invite settle', file: '`roster invite settle`' };

/** An invitation left open by a run (SentRecord.openClaims): its parts, its identity and its last claim. */
export interface OpenClaim extends InvitationParts {
  identity: string;
  claim: Claim;
}

/** A line of the record after its header: an invitation sent, or one `roster invite forget` took out. */
export type RecordEntry = SentEntry | (InvitationParts & { forgottenAt: string });

/** An entry, or a forgetting (roster invite forget), or undefined for a damaged line. */
function parseEntry(line: string): RecordEntry | undefined {
  try {
    const value = JSON.parse(line) as Partial<SentEntry & { forgottenAt: string }>;
    if (
      typeof value.email === 'string' &&
      typeof value.schoolId === 'string' &&
      (value.schoolYearId === undefined || typeof value.schoolYearId === 'string') &&
      (value.by === undefined || typeof value.by === 'string')
    ) {
      if (typeof value.sentAt === 'string') return value as SentEntry;
      if (typeof value.forgottenAt === 'string') return value as InvitationParts & { forgottenAt: string };
    }
  } catch {}
  return undefined;
}
