// What became of each row of a bulk send (bulk-runner.ts), and the counts its progress shows.

export type RowResult =
  /** The server's message, kept only when asked (keepMessages): a district's run holds a result per row. */
  | { state: 'sent'; message?: string }
  | { state: 'failed' | 'in-doubt'; reason: string; status?: number }
  /** Not sent: roster's record shows it sent by another run at `sentAt`. */
  | { state: 'elsewhere'; sentAt: string };

/** The result of a row whose request was made. */
export type RequestResult = Exclude<RowResult, { state: 'elsewhere' }>;

export interface RunCounts {
  sent: number;
  failed: number;
  inDoubt: number;
  remaining: number;
}

/** The result of every row sent whose message is not kept: one object for them all. */
export const SENT: RowResult & { state: 'sent' } = Object.freeze({ state: 'sent' });

/**
 * Each row's result by its place in the run's rows: a byte a row, and an object only for a row with more
 * to tell than "sent" (a failure's reason, a kept message). A district's run held a key and a map entry
 * per row (about 80 bytes).
 */
export class RowResults {
  private readonly sent: Uint8Array;
  private readonly told = new Map<number, RowResult>();
  /** Rows given a result. */
  size = 0;

  constructor(rows: number) {
    this.sent = new Uint8Array(rows);
  }

  set(index: number, result: RowResult): void {
    if (this.get(index) === undefined) this.size++;
    if (result === SENT) this.sent[index] = 1;
    else this.told.set(index, result);
  }

  get(index: number): RowResult | undefined {
    return this.sent[index] === 1 ? SENT : this.told.get(index);
  }

  *values(): Generator<RowResult> {
    for (let i = 0; i < this.sent.length; i++) {
      const result = this.get(i);
      if (result) yield result;
    }
  }
}
