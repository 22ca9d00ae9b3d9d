import { describe, expect, it } from 'vitest';
import { isIsoInstant, localIfInstant, localTime } from '../../src/output/time.js';

describe('local time for a person', () => {
  it('the instant in the given zone, with its abbreviation', () => {
    expect(localTime('2026-11-24T09:15:00Z', 'America/Chicago')).toBe('2026-11-24 03:15 CST');
    expect(localTime('2026-07-01T09:15:00Z', 'America/Chicago')).toBe('2026-07-01 04:15 CDT');
    expect(localTime('2026-11-24T09:15:00Z', 'Europe/Paris')).toBe('2026-11-24 10:15 CET');
    expect(localTime('2026-07-01T09:15:00Z', 'Europe/London')).toBe('2026-07-01 10:15 BST');
    expect(localTime('2026-11-24T09:15:00Z', 'UTC')).toBe('2026-11-24 09:15 UTC');
    // No abbreviation in English: the offset from UTC.
    expect(localTime('2026-11-24T09:15:00Z', 'Asia/Kolkata')).toBe('2026-11-24 14:45 UTC+5:30');
    // Across midnight, and from an offset rather than Z.
    expect(localTime('2026-11-24T02:00:00+01:00', 'America/Chicago')).toBe('2026-11-23 19:00 CST');
    expect(localTime(Date.parse('2026-11-24T09:15:00Z'), 'UTC')).toBe('2026-11-24 09:15 UTC');
  });

  it('follows TZ when no zone is given, as a user of the CLI sets it', () => {
    const before = process.env.TZ;
    process.env.TZ = 'America/Chicago'; // Node applies a change of TZ at once
    try {
      expect(localTime('2026-11-24T09:15:00Z')).toBe('2026-11-24 03:15 CST');
    } finally {
      if (before === undefined) delete process.env.TZ;
      else process.env.TZ = before;
    }
  });

  it('only full instants are converted; dates, other text and bad dates are left as they came', () => {
    expect(isIsoInstant('2026-11-24T09:15:00.123Z')).toBe(true);
    expect(isIsoInstant('2026-11-24T09:15-0600')).toBe(true);
    expect(isIsoInstant('2026-11-24')).toBe(false);
    // Days and times that do not exist stay as the server sent them (JavaScript would move them on).
    expect(localIfInstant('2026-02-30T10:00:00Z', 'UTC')).toBe('2026-02-30T10:00:00Z');
    expect(localIfInstant('2026-11-24T24:00Z', 'UTC')).toBe('2026-11-24T24:00Z');
    expect(localIfInstant('0000-01-01T00:00:00Z', 'UTC')).toBe('0000-01-01T00:00:00Z');
    expect(isIsoInstant('2024-02-29T12:00:00Z')).toBe(true);
    expect(isIsoInstant('2026-11-24T09:15:00')).toBe(false); // no zone: not an instant
    expect(localIfInstant('2015-03-02', 'UTC')).toBe('2015-03-02');
    expect(localIfInstant('Alder', 'UTC')).toBe('Alder');
    expect(localIfInstant('2026-13-45T99:00:00Z', 'UTC')).toBe('2026-13-45T99:00:00Z');
  });
});
