// The claims of a bulk send's rows in roster's record of sent invitations (RowGuard), for its workers
// (bulk-runner.ts): asked for a batch of rows ahead of the workers, so the record takes one lock and one fsync
// for many rows; a row something stands in the way of is claimed just before its request, and while a worker
// waits so, and at the end, the rows claimed ahead and not taken are released.
import type { RunState } from './bulk-run-state.js';
import type { PlannedRow } from './invite-file.js';
import type { RowGuard } from './store/index.js';

type Verdict = Awaited<ReturnType<RowGuard['claim']>>;

/** What a worker does with its row: 'go', withheld, or 'aborted' (interrupted, or the record failed). */
export type ClaimVerdict = Exclude<Verdict, 'later'>;

/** A row's claim, as the workers ask for it. */
export interface RowClaims {
  claimOf(index: number): Promise<ClaimVerdict>;
  /** Lets go of the rows claimed ahead that no worker has taken. */
  releaseAhead(): Promise<void>;
}

/** Without a guard, every row goes and nothing is held ahead. */
export const UNGUARDED: RowClaims = {
  claimOf: async () => 'go',
  releaseAhead: async () => {},
};

/** Rows whose claims are asked for ahead of the workers; a new batch is asked for when half are taken. */
const claimsAhead = (concurrency: number) => Math.max(16, 4 * concurrency);

/**
 * A claim taken ahead is taken again when its row's request has not left this long after (earlier rows'
 * requests were slow): other runs wait for a claim at least a minute longer than a request can take
 * (row-guard.ts's claimHoldMs), and a claim taken again starts their wait anew.
 */
export const CLAIM_FRESH_MS = 20_000;

export interface ClaimsAheadOptions {
  rows: PlannedRow[];
  guard: RowGuard;
  concurrency: number;
  now(): Date;
}

/** The run's state these claims read (the rows taken, the claims' signal) and report to (a stop, a settle). */
type ClaimingRun = Pick<RunState, 'claimSignal' | 'taken' | 'stopWith' | 'track'>;

export class ClaimsAhead implements RowClaims {
  /** Claims asked for ahead of the workers, by row index, each with when it was decided. */
  private readonly ahead = new Map<number, Promise<{ verdict: Verdict; at: number }>>();
  /** Rows whose claims taken ahead are being let go: settled once their batch is written. */
  private readonly releasing = new Map<number, Promise<void>>();
  /** Rows below this have had their claims asked for. */
  private claimedTo = 0;
  /** Workers claiming their row just before its request (it may wait for another run): while any does, no row is held ahead. */
  private waiting = 0;
  private readonly window: number;

  constructor(
    private readonly options: ClaimsAheadOptions,
    private readonly run: ClaimingRun,
  ) {
    this.window = claimsAhead(options.concurrency);
  }

  /**
   * The claim of row `index`: taken ahead with the rows after it when fewer than half a window were left
   * (asked in one turn of the event loop, they share one batch of the record), else (something stood in the
   * way, or the claim went stale) just before the request, where a row another run holds is waited for.
   */
  async claimOf(index: number): Promise<ClaimVerdict> {
    // Rows below `index` were taken by workers already (claimed just before their requests while one waited).
    if (this.waiting === 0) this.claimedTo = Math.max(this.claimedTo, index);
    if (this.waiting === 0 && this.claimedTo - index <= this.window / 2) this.askAhead(index);
    const taken = this.ahead.get(index);
    this.ahead.delete(index);
    if (taken) {
      const { verdict, at } = await taken;
      if (verdict === 'go' && this.options.now().getTime() - at <= CLAIM_FRESH_MS) {
        return this.recordStillHeld(index);
      }
      if (verdict !== 'go' && verdict !== 'later') return verdict;
    }
    // The row's claim taken ahead, if it is being let go, is let go first: a later "unsent" would undo this one.
    await this.releasing.get(index);
    return this.claimNow(index);
  }

  /** Lets go of the rows claimed ahead that no worker has taken (claimed again when the workers reach them). */
  async releaseAhead(): Promise<void> {
    const held = [...this.ahead];
    this.ahead.clear();
    this.claimedTo = this.run.taken();
    await Promise.all(
      held.map(([index, taken]) => {
        const released = taken.then(({ verdict }) => {
          if (verdict === 'go')
            this.run.track(this.options.guard.settle(this.options.rows[index]!, 'unsent'));
          this.releasing.delete(index);
        });
        this.releasing.set(index, released);
        return released;
      }),
    );
  }

  /** Asks for the claims of the rows up to a window past `index`, all in this turn of the event loop. */
  private askAhead(index: number): void {
    const end = Math.min(this.options.rows.length, index + this.window);
    for (; this.claimedTo < end; this.claimedTo++) {
      const row = this.options.rows[this.claimedTo]!;
      // Fresh from before the claim was asked for: its deadline is counted from then.
      const at = this.options.now().getTime();
      this.ahead.set(
        this.claimedTo,
        this.claim(row, true).then((verdict) => ({ verdict, at })),
      );
    }
  }

  /** Just before the request: the row's claim, waiting if another run holds it; nothing held ahead meanwhile. */
  private async claimNow(index: number): Promise<ClaimVerdict> {
    this.waiting++;
    try {
      // Two runs each waiting for a row the other holds ahead would wait out the whole hold.
      await this.releaseAhead();
      const verdict = await this.claim(this.options.rows[index]!, false);
      if (verdict === 'later') throw new Error('a claim asked just before its request was put off');
      return verdict;
    } finally {
      this.waiting--;
    }
  }

  /**
   * The row claimed from other runs: 'go', withheld, 'later' (asked ahead, something stood in the way), or
   * 'aborted' (interrupted, or the record failed).
   */
  private async claim(row: PlannedRow, early: boolean): Promise<Verdict> {
    try {
      return await this.options.guard.claim(row, this.run.claimSignal, early);
    } catch (error) {
      // Unclaimed, a row could go out beside another run's: this one and every later row stay unsent.
      this.run.stopWith(error);
      return 'aborted';
    }
  }

  /** A row claimed ahead goes only while the record it is claimed in is still the one other runs read. */
  private recordStillHeld(index: number): 'go' | 'aborted' {
    try {
      this.options.guard.checkRecord();
      return 'go';
    } catch (error) {
      // Claimed in a record other runs no longer see: this row and every later one stay unsent.
      this.run.stopWith(error);
      this.run.track(this.options.guard.settle(this.options.rows[index]!, 'unsent'));
      return 'aborted';
    }
  }
}
