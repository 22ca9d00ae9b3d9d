// When to try a request again, and how long to wait. Conservative on purpose: a GET may be repeated, a
// POST that e-mails a parent only when the server certainly did not act on it.

export const MAX_RETRIES = 3;
const BASE_DELAY_MS = 500;
const MAX_DELAY_MS = 10_000;
/** A server asking for a longer pause than this gets an error instead of a silent wait. */
export const MAX_RETRY_AFTER_MS = 60_000;

const RETRYABLE_GET = new Set([408, 429, 500, 502, 503, 504]);

/**
 * Whether an error status may be retried. A POST is retried only on "not now" answers with Retry-After, and
 * only when the answer proves the API did not act on it (the client asks api/post-outcome.ts first).
 */
export function isRetryableStatus(method: string, status: number, retryAfter: string | undefined): boolean {
  if (method === 'GET') return RETRYABLE_GET.has(status);
  return (status === 429 || status === 503) && retryAfter !== undefined;
}

/** Retry-After in milliseconds (delta-seconds or an HTTP date), or undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  // An HTTP date names its month (RFC 9110 §5.6.7); Date.parse would read "-5", "1.5" or "2026" as a date in
  // the past, and roster would retry at once.
  if (!/[a-z]{3}/i.test(value)) return undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Capped exponential backoff with full jitter (between half and all of the step). */
export function backoffDelay(attempt: number, random: () => number = Math.random): number {
  const step = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** attempt);
  return Math.round(step / 2 + (random() * step) / 2);
}
