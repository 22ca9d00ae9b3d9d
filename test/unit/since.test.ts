// --since parsing and the delta filter, and the ChangeTracker's rules: what to report, what to remember.
import { describe, expect, it } from 'vitest';
import { ChangeTracker, OVERLAP_MS } from '../../src/oneroster/change-window.js';
import { combineFilters, deltaFilter, parseSince } from '../../src/oneroster/since.js';

const NOW = Date.parse('2026-11-23T09:00:00Z');

describe('parseSince', () => {
  it.each([
    ['2026-11-01', '2026-11-01T00:00:00.000Z'],
    ['2026-11-01T06:00:00Z', '2026-11-01T06:00:00.000Z'],
    ['2026-11-01T06:00Z', '2026-11-01T06:00:00.000Z'],
    ['2026-11-01T06:00:00.123456Z', '2026-11-01T06:00:00.123Z'],
    ['2026-11-01T07:00:00+01:00', '2026-11-01T06:00:00.000Z'],
    ['2026-11-01T01:00:00-0500', '2026-11-01T06:00:00.000Z'],
  ])('reads %s as %s', (text, iso) => {
    const since = parseSince(text, NOW);
    expect(since).toEqual({ kind: 'time', at: Date.parse(iso), relative: false });
  });

  it.each([
    ['30m', 30 * 60_000],
    ['24h', 86_400_000],
    ['7d', 7 * 86_400_000],
    ['2w', 14 * 86_400_000],
    ['90s', 90_000],
  ])('reads the duration %s back from now', (text, ms) => {
    expect(parseSince(text, NOW)).toEqual({ kind: 'time', at: NOW - ms, relative: true });
  });

  it('reads last', () => {
    expect(parseSince('last', NOW)).toEqual({ kind: 'last' });
  });

  it.each([
    ['2026-11-24', /in the future/],
    ['2026-11-23T09:00:01Z', /in the future/],
    ['2026-02-29', /no such date/],
    ['2026-11-01T24:00:00Z', /no such date/],
    ['2026-11-01T06:00:00', /add Z or an offset/],
    ['yesterday', /Invalid --since/],
    ['-1d', /Invalid --since/],
    ['0d', /zero/],
    ['24 h', /Invalid --since/],
    ['', /Invalid --since/],
  ])('refuses %j as a usage error', (text, message) => {
    expect(() => parseSince(text, NOW)).toThrow(message);
    try {
      parseSince(text, NOW);
    } catch (error) {
      expect((error as { code: string }).code).toBe('usage');
    }
  });
});

describe('the delta filter', () => {
  it("is dateLastModified>'<UTC>' without zero milliseconds, joined to the user's by AND", () => {
    expect(deltaFilter(Date.parse('2026-11-01T06:00:00Z'))).toBe("dateLastModified>'2026-11-01T06:00:00Z'");
    expect(deltaFilter(Date.parse('2026-11-01T06:00:00.250Z'))).toBe(
      "dateLastModified>'2026-11-01T06:00:00.250Z'",
    );
    expect(combineFilters("dateLastModified>'x'", "status='active'")).toBe(
      "dateLastModified>'x' AND status='active'",
    );
    expect(combineFilters(undefined, "status='active'")).toBe("status='active'");
    expect(combineFilters("dateLastModified>'x'", "familyName='Rock AND Roll'")).toBe(
      "dateLastModified>'x' AND familyName='Rock AND Roll'",
    );
    expect(() => combineFilters("dateLastModified>'x'", "status='active' AND role='student'")).toThrow(
      /one predicate/,
    );
  });
});

describe('ChangeTracker', () => {
  const rec = (sourcedId: string, dateLastModified: string) => ({
    sourcedId,
    dateLastModified,
    status: 'active',
  });
  const server = Date.parse('2026-11-23T09:00:00Z');

  it('reports new and changed records, suppresses the overlap already reported, drops what did not change', () => {
    const since = Date.parse('2026-11-23T08:00:00Z');
    const tracker = new ChangeTracker({ since, seen: new Map([['a', '2026-11-23T08:01:00.000Z']]) });
    tracker.setClock(server, 'server');
    expect(tracker.admit(rec('a', '2026-11-23T08:01:00.000Z'))).toBe(false); // reported last time
    expect(tracker.admit(rec('b', '2026-11-23T08:01:00.000Z'))).toBe(true);
    expect(tracker.admit(rec('a2', '2026-11-23T08:02:00.000Z'))).toBe(true);
    expect(tracker.admit(rec('old', '2026-11-23T07:59:59.000Z'))).toBe(false); // the server ignored the filter
    expect(tracker.admit({ sourcedId: 'no-date' })).toBe(true);
    expect([tracker.suppressed, tracker.stale]).toEqual([1, 1]);
  });

  it('saves the server clock less the overlap, and the records seen after that moment', () => {
    const tracker = new ChangeTracker({ seen: new Map() });
    tracker.setClock(server, 'server');
    tracker.setClock(server + 60_000, 'server'); // only the first answer counts
    tracker.admit(rec('in', '2026-11-23T08:58:00.000Z'));
    tracker.admit(rec('before', '2026-11-23T08:50:00.000Z'));
    tracker.admit(rec('during', '2026-11-23T09:00:30.000Z'));
    const saved = tracker.saved(
      { command: 'changes', profile: 'p', baseUrl: 'b', clientId: 'c', version: '1.1', collection: 'users' },
      server,
    );
    expect(saved.since).toBe(new Date(server - OVERLAP_MS).toISOString());
    expect(saved.serverDate).toBe(new Date(server).toISOString());
    expect(saved.seen).toEqual({ in: '2026-11-23T08:58:00.000Z', during: '2026-11-23T09:00:30.000Z' });
  });
});
