// Instants for a person: the local time with its zone ("2026-11-24 03:15 CST"), in the zone of the
// machine (Node follows the TZ environment variable). JSON, NDJSON, CSV and pipes keep ISO 8601 UTC: this
// is only for what a terminal shows.

/** An ISO 8601 date and time with a zone (Z or an offset): a date alone (a birth date) is not an instant. */
const ISO_INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})$/i;

/**
 * An ISO instant naming a real day and time: JavaScript reads 2026-02-30 as 2 March and 24:00 as the next
 * day, and a terminal must not show bad data from a server as good (it is shown as it came).
 */
export function isIsoInstant(text: string): boolean {
  const match = ISO_INSTANT.exec(text);
  if (!match) return false;
  const [year, month, day, hour, minute] = match.slice(1, 6).map(Number) as [
    number,
    number,
    number,
    number,
    number,
  ];
  const date = new Date(Date.UTC(year, month - 1, day));
  return (
    year > 0 &&
    hour < 24 &&
    minute < 60 &&
    date.getUTCFullYear() === year &&
    date.getUTCMonth() === month - 1 &&
    date.getUTCDate() === day
  );
}

const formats = new Map<string, Intl.DateTimeFormat>();

function format(locale: string, timeZone: string | undefined): Intl.DateTimeFormat {
  const key = `${locale} ${timeZone ?? ''}`;
  let found = formats.get(key);
  if (!found) {
    found = new Intl.DateTimeFormat(locale, {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
      timeZoneName: 'short',
    });
    formats.set(key, found);
  }
  return found;
}

/**
 * "2026-11-24 03:15 CST": the instant in local time, with the zone's abbreviation where English has one
 * (US zones in en-US, European ones in en-GB) and its offset from UTC otherwise ("UTC+5:30").
 * `timeZone` (an IANA name) is for tests; left out, the machine's zone. Anything that is not a date is
 * returned as it came.
 */
export function localTime(instant: string | number | Date, timeZone?: string): string {
  const date = instant instanceof Date ? instant : new Date(instant);
  if (Number.isNaN(date.getTime())) return String(instant);
  const parts = Object.fromEntries(
    format('en-US', timeZone)
      .formatToParts(date)
      .map((p) => [p.type, p.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute} ${zoneName(date, parts.timeZoneName ?? '', timeZone)}`;
}

function zoneName(date: Date, us: string, timeZone: string | undefined): string {
  if (!/^GMT[+-]/.test(us)) return us;
  const gb = format('en-GB', timeZone)
    .formatToParts(date)
    .find((p) => p.type === 'timeZoneName')?.value;
  if (gb && !/^GMT[+-]/.test(gb)) return gb;
  return us.replace(/^GMT/, 'UTC');
}

/** A cell or message value: an ISO instant becomes local time, anything else is left alone. */
export function localIfInstant(text: string, timeZone?: string): string {
  return isIsoInstant(text) ? localTime(text, timeZone) : text;
}
