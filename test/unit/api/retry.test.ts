import { describe, expect, it } from 'vitest';
import { backoffDelay, isRetryableStatus, parseRetryAfter } from '../../../src/api/retry.js';

const NOW = Date.UTC(2025, 0, 1, 12, 0, 0);

describe('parseRetryAfter', () => {
  it('reads delta-seconds', () => {
    expect(parseRetryAfter('0', NOW)).toBe(0);
    expect(parseRetryAfter('2', NOW)).toBe(2000);
    expect(parseRetryAfter(' 120 ', NOW)).toBe(120_000);
  });

  it('reads an HTTP date relative to now, never negative', () => {
    expect(parseRetryAfter(new Date(NOW + 30_000).toUTCString(), NOW)).toBe(30_000);
    expect(parseRetryAfter('Wed, 01 Jan 2025 12:00:05 GMT', NOW)).toBe(5000);
    expect(parseRetryAfter(new Date(NOW - 30_000).toUTCString(), NOW)).toBe(0);
  });

  it('ignores absent or unreadable values', () => {
    expect(parseRetryAfter(undefined, NOW)).toBeUndefined();
    expect(parseRetryAfter('', NOW)).toBeUndefined();
    expect(parseRetryAfter('soon', NOW)).toBeUndefined();
    // Not delta-seconds, and not dates either, though Date.parse reads them as years long past.
    for (const value of ['-5', '-1', '1.5', '2026-01-01', '5, 7', '1e3'])
      expect(parseRetryAfter(value, NOW), value).toBeUndefined();
  });
});

describe('backoffDelay', () => {
  it('grows exponentially from 500 ms, capped at 10 s, jittered between half and all of the step', () => {
    const steps = [500, 1000, 2000, 4000, 8000, 10_000, 10_000];
    steps.forEach((step, attempt) => {
      expect(backoffDelay(attempt, () => 0)).toBe(step / 2);
      expect(backoffDelay(attempt, () => 0.999999)).toBe(step);
      for (let i = 0; i < 50; i++) {
        const delay = backoffDelay(attempt);
        expect(delay).toBeGreaterThanOrEqual(step / 2);
        expect(delay).toBeLessThanOrEqual(step);
      }
    });
  });
});

describe('isRetryableStatus', () => {
  it('retries a GET on 408, 429 and 5xx gateway statuses only', () => {
    for (const status of [408, 429, 500, 502, 503, 504])
      expect(isRetryableStatus('GET', status, undefined)).toBe(true);
    for (const status of [400, 401, 403, 404, 409, 422, 501])
      expect(isRetryableStatus('GET', status, '1')).toBe(false);
  });

  it('retries a POST only on 429 or 503 that carry Retry-After', () => {
    expect(isRetryableStatus('POST', 503, '1')).toBe(true);
    expect(isRetryableStatus('POST', 429, '1')).toBe(true);
    expect(isRetryableStatus('POST', 503, undefined)).toBe(false);
    expect(isRetryableStatus('POST', 429, undefined)).toBe(false);
    for (const status of [408, 500, 502, 504]) expect(isRetryableStatus('POST', status, '1')).toBe(false);
  });
});
