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

  const key = {
    command: 'changes',
    profile: 'p',
    baseUrl: 'b',
    clientId: 'c',
    version: '1.1',
    collection: 'users',
  } as const;
  const iso = (ms: number) => new Date(ms).toISOString();

  it('saves the server clock less the overlap when records were stamped up to it, and the records seen after that moment', () => {
    const tracker = new ChangeTracker({ seen: new Map() });
    tracker.setClock(server, 'server');
    tracker.setClock(server + 60_000, 'server'); // only the first answer counts
    tracker.admit(rec('in', '2026-11-23T08:58:00.000Z'));
    tracker.admit(rec('before', '2026-11-23T08:50:00.000Z'));
    tracker.admit(rec('during', '2026-11-23T09:00:30.000Z'));
    const saved = tracker.saved(key, server);
    expect(saved?.since).toBe(iso(server - OVERLAP_MS));
    expect(saved?.serverDate).toBe(iso(server));
    expect(saved?.seen).toEqual({ in: '2026-11-23T08:58:00.000Z', during: '2026-11-23T09:00:30.000Z' });
  });

  it('saves the newest stamp read less the overlap when the server clock is later (a Date 2 h ahead, or in 2099)', () => {
    for (const date of [server + 2 * 3_600_000, Date.parse('2099-01-01T00:00:00Z')]) {
      const tracker = new ChangeTracker({ seen: new Map() });
      tracker.setClock(date, 'server');
      tracker.admit(rec('a', '2026-11-23T08:58:00.000Z'));
      tracker.admit(rec('b', '2026-11-23T08:59:00.000Z'));
      tracker.admit(rec('old', '2026-11-20T08:00:00.000Z'));
      const saved = tracker.saved(key, server);
      expect(saved?.since).toBe('2026-11-23T08:54:00.000Z');
      expect(saved?.serverDate).toBe(iso(date));
      expect(saved?.seen).toEqual({ a: '2026-11-23T08:58:00.000Z', b: '2026-11-23T08:59:00.000Z' });
      expect(tracker.stampedAhead).toBeUndefined();
    }
  });

  it('saves the server clock when a record is stamped after it (one record in the future), and says which', () => {
    const tracker = new ChangeTracker({ seen: new Map() });
    tracker.setClock(server, 'server');
    tracker.admit(rec('a', '2026-11-23T08:58:00.000Z'));
    tracker.admit(rec('future', '2031-01-01T00:00:00.000Z'));
    const saved = tracker.saved(key, server);
    expect(saved?.since).toBe(iso(server - OVERLAP_MS));
    expect(saved?.seen).toEqual({ a: '2026-11-23T08:58:00.000Z', future: '2031-01-01T00:00:00.000Z' });
    expect(tracker.stampedAhead).toBe(Date.parse('2031-01-01T00:00:00Z'));
  });

  it('keeps the moment it started from when nothing stamped was read, or when the clock went back; a first run that read no stamp saves nothing', () => {
    const since = Date.parse('2026-11-23T08:00:00Z');
    const empty = new ChangeTracker({ since, seen: new Map([['x', '2026-11-23T08:01:00.000Z']]) });
    empty.setClock(server, 'server');
    expect(empty.saved(key, server)).toMatchObject({ since: iso(since), seen: {} });

    const unstamped = new ChangeTracker({ since, seen: new Map() });
    unstamped.setClock(server, 'server');
    expect(unstamped.admit({ sourcedId: 'no-date' })).toBe(true);
    expect(unstamped.saved(key, server)?.since).toBe(iso(since));
    expect(unstamped.unstamped).toBe(1);

    // The server's clock set back an hour since the last run: the moment never moves back before its start.
    const back = new ChangeTracker({ since, seen: new Map() });
    back.setClock(since - 3_600_000, 'server');
    back.admit(rec('a', '2026-11-23T08:01:00.000Z'));
    expect(back.saved(key, server)).toMatchObject({
      since: iso(since),
      seen: { a: '2026-11-23T08:01:00.000Z' },
    });

    const first = new ChangeTracker({ seen: new Map() });
    first.setClock(server, 'server');
    first.admit({ sourcedId: 'no-date' });
    expect(first.saved(key, server)).toBeUndefined();
  });

  it('remembers every record after the moment, whatever order they come in (kept small as the read goes on)', () => {
    const tracker = new ChangeTracker({ seen: new Map() });
    tracker.setClock(server, 'server');
    const newest = server - 60_000;
    // 20,000 records over the 2 days before the newest, in a shuffled order; the newest comes last.
    const stamps = Array.from({ length: 20_000 }, (_, i) => newest - ((i * 7919) % 20_000) * 8_640 - 1);
    for (const [i, at] of stamps.entries()) tracker.admit(rec(`r${i}`, iso(at)));
    tracker.admit(rec('newest', iso(newest)));
    const saved = tracker.saved(key, server);
    expect(saved?.since).toBe(iso(newest - OVERLAP_MS));
    const expected = stamps.flatMap((at, i) => (at > newest - OVERLAP_MS ? [`r${i}`] : []));
    expect(Object.keys(saved?.seen ?? {}).sort()).toEqual([...expected, 'newest'].sort());
    expect(expected.length).toBeGreaterThan(0);
  });

  it('never saves a moment before 1970, whatever a record says', () => {
    const tracker = new ChangeTracker({ seen: new Map() });
    tracker.setClock(server, 'server');
    tracker.admit(rec('edge', '-271821-04-20T00:00:00.000Z'));
    expect(tracker.saved(key, server)?.since).toBe('1970-01-01T00:00:00.000Z');
  });
});
