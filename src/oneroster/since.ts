// `--since <when>` of delta reads: an ISO 8601 time, a duration back from now, or `last`; and the
// standard's delta filter built from it, `dateLastModified>'<ISO 8601 UTC>'`, joined to the user's own.
import { UsageError } from '../errors.js';
import { printable } from '../values.js';

export type Since = { kind: 'time'; at: number; relative: boolean } | { kind: 'last' };

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
const DURATION = /^(\d{1,9})([smhdw])$/;
// A date, or a date-time with seconds optional and a zone required (a bare local time is ambiguous).
const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2}))?$/i;

const HINT =
  'Give an ISO 8601 time (2026-11-01, 2026-11-01T06:00:00Z), a duration back from now (30m, 24h, 7d, 2w) or last.';

/** Parses --since; everything wrong is a usage error, before any request. */
export function parseSince(text: string, now: number): Since {
  const value = text.trim();
  if (value === 'last') return { kind: 'last' };
  const duration = DURATION.exec(value);
  if (duration) {
    const amount = Number(duration[1]);
    if (amount === 0)
      throw new UsageError(`Invalid --since "${printable(value, 40)}": the duration is zero.`, HINT);
    return { kind: 'time', at: now - amount * (UNIT_MS[duration[2] as string] as number), relative: true };
  }
  const iso = ISO.exec(value);
  if (!iso) {
    const why = /^\d{4}-\d{2}-\d{2}T[\d:.]+$/.test(value) ? ': add Z or an offset such as +01:00' : '';
    throw new UsageError(`Invalid --since "${printable(value, 40)}"${why}.`, HINT);
  }
  const [, y, mo, d, h = '00', mi = '00', s = '00', fraction = '', zone = 'Z'] = iso;
  const normal = `${y}-${mo}-${d}T${h}:${mi}:${s}.${fraction.padEnd(3, '0').slice(0, 3)}${zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone.toUpperCase()}`;
  const at = Date.parse(normal);
  // Date.parse rolls 2026-02-30 over to March: a date that does not exist is a typo.
  const calendar = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)));
  if (
    Number.isNaN(at) ||
    calendar.getUTCMonth() !== Number(mo) - 1 ||
    calendar.getUTCDate() !== Number(d) ||
    Number(h) > 23 ||
    Number(mi) > 59 ||
    Number(s) > 59
  ) {
    throw new UsageError(`Invalid --since "${printable(value, 40)}": no such date or time.`, HINT);
  }
  if (at > now) {
    throw new UsageError(
      `Invalid --since "${printable(value, 40)}": it is in the future (now is ${isoUtc(now)}).`,
      HINT,
    );
  }
  return { kind: 'time', at, relative: false };
}

/** ISO 8601 in UTC, without milliseconds when they are zero: 2026-11-01T06:00:00Z. */
export function isoUtc(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}

/** The standard's delta filter. `>`: records changed strictly after the moment. */
export function deltaFilter(at: number): string {
  return `dateLastModified>'${isoUtc(at)}'`;
}

// A logical operator of the grammar follows a closing quote: `…'value' AND field…`.
const LOGIC_AFTER_VALUE = /'\s+(AND|OR)\s+[A-Za-z_][\w.]*\s*(?:[=<>~]|!=)/i;

/** The delta filter joined to the user's own by ` AND `; servers allow one AND or OR, so the user's is one predicate. */
export function combineFilters(delta: string | undefined, user: string | undefined): string | undefined {
  if (delta === undefined) return user;
  if (user === undefined) return delta;
  if (LOGIC_AFTER_VALUE.test(user)) {
    throw new UsageError(
      '--filter with --since takes one predicate: --since adds "AND dateLastModified>…", and OneRoster servers allow at most one AND or OR.',
      'Filter the rest on your side, e.g. with jq on --ndjson.',
    );
  }
  return `${delta} AND ${user}`;
}
