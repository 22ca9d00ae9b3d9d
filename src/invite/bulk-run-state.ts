// The state a bulk send's workers share (bulk-runner.ts), in one place: the queue of rows (the next one to
// take), the counts and results, why the run stopped taking rows, and the outcomes still on their way to the
// journal and the record.
import { RosterError } from '../errors.js';
import { type RowResult, RowResults, type RunCounts } from './row-results.js';

export class RunState {
  readonly results: RowResults;
  private readonly counts: RunCounts;
  /** The next row a worker takes: rows below it are taken. */
  private next = 0;
  /** The error that made the run stop taking rows: the first error every later row would meet too. */
  stoppedBy: RosterError | undefined;
  /** The first journal write that failed: the run takes no more rows, and throws it once the rest are done. */
  journalFailure: { error: unknown } | undefined;
  /** Rows' outcomes on their way to the journal and to the record (claims settled), each dropped once there. */
  private readonly noting = new Set<Promise<void>>();
  /** Ends every claim's wait for another run once the run stops taking rows (interrupted, or stopWith). */
  private readonly stopClaims = new AbortController();
  readonly claimSignal: AbortSignal;

  constructor(
    private readonly rows: number,
    private readonly signal: AbortSignal,
    private readonly onProgress: (counts: RunCounts) => void,
  ) {
    this.results = new RowResults(rows);
    this.counts = { sent: 0, failed: 0, inDoubt: 0, remaining: rows };
    this.claimSignal = AbortSignal.any([signal, this.stopClaims.signal]);
  }

  /** The index of the next row for a worker, or undefined once the run takes no more rows. */
  take(): number | undefined {
    if (
      this.signal.aborted ||
      this.stoppedBy !== undefined ||
      this.journalFailure ||
      this.next >= this.rows
    ) {
      return undefined;
    }
    this.counts.remaining--;
    return this.next++;
  }

  /** A row taken and never started (interrupted while another run held it) remains, like every row after it. */
  untake(): void {
    this.counts.remaining++;
  }

  /** The next row a worker will take: the rows below it are taken. */
  taken(): number {
    return this.next;
  }

  count(index: number, result: RowResult): void {
    this.results.set(index, result);
    if (result.state === 'sent') this.counts.sent++;
    else if (result.state === 'failed') this.counts.failed++;
    else if (result.state === 'in-doubt') this.counts.inDoubt++;
    this.onProgress({ ...this.counts });
  }

  /** The run takes no more rows: the first error every later row would meet too. */
  stopWith(error: unknown, message = (error as Error).message): void {
    this.stoppedBy ??= error instanceof RosterError ? error : new RosterError('failure', message);
    this.stopClaims.abort();
  }

  /** A journal write failed: the run takes no more rows, and throws the first such error at its end. */
  journalFailed(error: unknown): void {
    this.journalFailure ??= { error };
    this.stopClaims.abort();
  }

  /** The workers are done: no claim waits for another run any more. */
  endClaims(): void {
    this.stopClaims.abort();
  }

  /** An outcome on its way to the journal or the record, waited for by noted(). */
  track(write: Promise<void>): void {
    this.noting.add(write);
    // A failed one stays, for noted() to throw.
    write.then(
      () => this.noting.delete(write),
      () => {},
    );
  }

  /** Resolves once every outcome tracked is written. */
  async noted(): Promise<void> {
    await Promise.all(this.noting);
  }
}
