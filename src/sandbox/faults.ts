// Fault injection for rehearsals and tests: latency with jitter, random failures, dropped connections,
// a per-client rate limit, and scripted one-off faults. All randomness comes from a seeded PRNG so a test
// run with the same seed and the same request order sees the same faults.
import type { SandboxRequest } from './types.js';

export interface FaultSettings {
  latencyMs: number;
  jitterMs: number;
  failRate: number;
  failStatus: number;
  dropRate: number;
  /** Requests per second per client over all resource endpoints; 0 means no limit. */
  rateLimit: number;
}

export interface ScriptedFault {
  match: (req: SandboxRequest) => boolean;
  /** Status of the fault response (default 503). Ignored when `drop` is set. */
  status?: number;
  headers?: Record<string, string>;
  /** Body of the fault response (default `{message}`). */
  body?: unknown;
  /** How many matching requests it hits (default 1). */
  times?: number;
  /** Process the request normally, then cut the connection mid-response (headers and part of the body). */
  drop?: boolean;
  /**
   * Process the request normally (an invitation is created and e-mailed), then answer with this fault
   * instead of the API's answer: a gateway that loses the answer, or a rate limiter that answers late.
   */
  afterProcessing?: boolean;
}

export const DEFAULT_FAULTS: FaultSettings = {
  latencyMs: 0,
  jitterMs: 0,
  failRate: 0,
  failStatus: 503,
  dropRate: 0,
  rateLimit: 0,
};

/** mulberry32: tiny, fast and good enough to make fault patterns reproducible. */
export function createPrng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Throws on nonsense so a typo in `--fail-rate 10` is caught instead of silently failing everything. */
export function validateFaults(patch: Partial<FaultSettings>): void {
  const check = (name: string, value: number | undefined, ok: (v: number) => boolean, want: string) => {
    if (value !== undefined && (!Number.isFinite(value) || !ok(value))) {
      throw new RangeError(`${name} must be ${want} (got ${value})`);
    }
  };
  check('latencyMs', patch.latencyMs, (v) => v >= 0, 'a number >= 0');
  check('jitterMs', patch.jitterMs, (v) => v >= 0, 'a number >= 0');
  check('failRate', patch.failRate, (v) => v >= 0 && v <= 1, 'between 0 and 1');
  check('dropRate', patch.dropRate, (v) => v >= 0 && v <= 1, 'between 0 and 1');
  check('rateLimit', patch.rateLimit, (v) => v >= 0, 'a number >= 0');
  check(
    'failStatus',
    patch.failStatus,
    (v) => Number.isInteger(v) && v >= 400 && v <= 599,
    'an HTTP error status',
  );
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

export class Faults {
  readonly settings: FaultSettings;
  private readonly random: () => number;
  private readonly scripted: Array<ScriptedFault & { left: number }> = [];
  private readonly buckets = new Map<string, Bucket>();

  constructor(settings: Partial<FaultSettings>, seed: number) {
    validateFaults(settings);
    this.settings = { ...DEFAULT_FAULTS, ...stripUndefined(settings) };
    this.random = createPrng(seed);
  }

  update(patch: Partial<FaultSettings>): void {
    validateFaults(patch);
    Object.assign(this.settings, stripUndefined(patch));
    // A new limit starts with fresh buckets, so the change takes effect at once.
    if (patch.rateLimit !== undefined) this.buckets.clear();
  }

  /** Milliseconds to hold every response: the latency plus a uniform share of the jitter. */
  delayMs(): number {
    const roll = this.random();
    return this.settings.latencyMs + roll * this.settings.jitterMs;
  }

  /**
   * Both rolls for one resource request. Always drawn (even at rate 0) so that turning one fault on does
   * not shift the pattern of the other.
   */
  rollResource(): { fail: boolean; drop: boolean } {
    const failRoll = this.random();
    const dropRoll = this.random();
    return { fail: failRoll < this.settings.failRate, drop: dropRoll < this.settings.dropRate };
  }

  inject(fault: ScriptedFault): void {
    const times = fault.times ?? 1;
    if (!Number.isInteger(times) || times < 1) throw new RangeError('times must be a positive integer');
    this.scripted.push({ ...fault, left: times });
  }

  /** Drops every scripted fault not yet used up (a fault that never matched would otherwise outlive its test). */
  clearScripted(): void {
    this.scripted.length = 0;
  }

  /** The first scripted fault matching this request, used up by one. */
  takeScripted(req: SandboxRequest): ScriptedFault | undefined {
    const index = this.scripted.findIndex((f) => f.match(req));
    if (index < 0) return undefined;
    const fault = this.scripted[index]!;
    fault.left -= 1;
    if (fault.left <= 0) this.scripted.splice(index, 1);
    return fault;
  }

  /**
   * Token bucket per client (capacity one second's worth, at least 1). Returns the seconds to wait when the
   * request is over the limit, or undefined when it may go ahead.
   */
  rateLimited(key: string, nowMs: number): number | undefined {
    const rate = this.settings.rateLimit;
    if (rate <= 0) return undefined;
    const capacity = Math.max(1, rate);
    const bucket = this.buckets.get(key) ?? { tokens: capacity, updatedAt: nowMs };
    bucket.tokens = Math.min(capacity, bucket.tokens + ((nowMs - bucket.updatedAt) / 1000) * rate);
    bucket.updatedAt = nowMs;
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return undefined;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / rate));
  }
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
