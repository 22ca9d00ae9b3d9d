// The moment a delta read starts from, and what `--since last` saves for the next run. A record changed
// after this read is stamped by the server's clock at least as late as the newest dateLastModified read, so
// the moment saved is that newest stamp or the server's clock (its Date header on the first page of the
// read), whichever is earlier, less OVERLAP_MS: a clock that is off (a Date hours or decades ahead, records
// stamped by a machine behind it, one record stamped in the future) never makes the next run skip a change.
// A read that saw no stamp at all keeps the moment it started from. The records already reported after the
// moment saved (sourcedId and dateLastModified) are saved with it and not reported again unless they
// changed since. State files live under the state directory, one per profile, base URL, client id,
// OneRoster version, collection (and --filter, and export destination).
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { isRecord } from '../api/errors.js';
import type { OneRosterVersion } from '../config-file.js';
import { RosterError } from '../errors.js';
import { readPrivateFile, writePrivateFile } from '../files.js';
import { sourcedIdOf } from './records.js';

/** Overlap subtracted from the moment saved: clock skew between the server's machines and writes in flight. */
export const OVERLAP_MS = 5 * 60_000;

export interface WindowKey {
  /** `changes`, or `export` (an export's moment is shared only with exports to the same directory). */
  command: 'changes' | 'export';
  profile: string;
  baseUrl: string;
  clientId: string;
  version: OneRosterVersion;
  /** The collection's path (students, users, academicSessions, …). */
  collection: string;
  /** The user's --filter: a filtered run does not see other records, so it keeps its own moment. */
  filter?: string;
  /** Export directory (absolute). */
  destination?: string;
}

export interface SavedWindow {
  format: 1;
  key: WindowKey;
  /** The next run asks for dateLastModified > since. */
  since: string;
  /** The server's Date header of this read (or the local clock, with clock: local). */
  serverDate: string;
  clock: 'server' | 'local';
  savedAt: string;
  /** sourcedId → dateLastModified of the records already reported that changed after `since`. */
  seen: Record<string, string>;
}

/** The window a read starts from: the moment (absent: read everything) and the overlap already reported. */
export interface StartWindow {
  since?: number;
  /** `since` is a duration back from now by this machine's clock (--since 24h). */
  relative?: boolean;
  seen: ReadonlyMap<string, string>;
}

export function windowPath(stateDir: string, key: WindowKey): string {
  const hash = createHash('sha256').update(JSON.stringify(key)).digest('hex').slice(0, 16);
  const name = key.collection.replace(/[^A-Za-z0-9]/g, '_');
  return join(stateDir, 'changes', `${key.command}-${name}-${hash}.json`);
}

export async function loadWindow(stateDir: string, key: WindowKey): Promise<SavedWindow | undefined> {
  const path = windowPath(stateDir, key);
  const text = await readPrivateFile(path, { own: true, followLinks: false });
  if (text === undefined) return undefined;
  try {
    const saved = JSON.parse(text) as SavedWindow;
    if (
      saved.format === 1 &&
      typeof saved.since === 'string' &&
      !Number.isNaN(Date.parse(saved.since)) &&
      isRecord(saved.seen) &&
      JSON.stringify(saved.key) === JSON.stringify(key)
    ) {
      return saved;
    }
  } catch {
    // reported below
  }
  throw new RosterError(
    'failure',
    `${path} is not a saved moment roster can read`,
    'Delete it to read everything once more, or use --since TIME.',
  );
}

export function saveWindow(stateDir: string, window: SavedWindow): Promise<void> {
  return writePrivateFile(windowPath(stateDir, window.key), `${JSON.stringify(window, null, 2)}\n`);
}

export function startOf(saved: SavedWindow | undefined): StartWindow {
  if (!saved) return { seen: new Map() };
  return { since: Date.parse(saved.since), seen: new Map(Object.entries(saved.seen)) };
}

/** Parses an HTTP Date header (IMF-fixdate); undefined when absent or unreadable. */
export function parseHttpDate(value: string | string[] | undefined): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}

const modifiedOf = (record: unknown): string | undefined =>
  isRecord(record) && typeof record.dateLastModified === 'string' ? record.dateLastModified : undefined;

/**
 * One collection's delta read: decides which records to report, and remembers what the next run needs.
 * `setClock(ms, from)` is called once, with the server's Date of the first answer (or the local clock).
 */
export class ChangeTracker {
  /** Records served but not reported: already reported in the overlap of the previous run. */
  suppressed = 0;
  /** Records served though they did not change after the moment: the server ignored the filter. */
  stale = 0;
  /** Records served without a readable dateLastModified. */
  unstamped = 0;
  /** The newest dateLastModified served (epoch ms). */
  newest?: number;
  private clockMs?: number;
  private clock: 'server' | 'local' = 'server';
  /** sourcedId → dateLastModified of records served after the earliest the next moment can be. */
  private readonly nextSeen = new Map<string, { modified: string; at: number }>();
  private pruneAbove = 1024;

  constructor(readonly start: StartWindow) {}

  /** The clock of this read: the server's when it started (or this machine's). */
  setClock(ms: number, clock: 'server' | 'local'): void {
    if (this.clockMs !== undefined) return;
    this.clockMs = ms;
    this.clock = clock;
  }

  get clockSet(): boolean {
    return this.clockMs !== undefined;
  }

  /**
   * The moment the next run starts from: the newest stamp read or the clock, whichever is earlier, less
   * the overlap, and never before the moment this read started from; with no stamp read, that moment
   * (undefined: the next run reads everything again).
   */
  get nextSince(): number | undefined {
    if (this.newest === undefined) return this.start.since;
    // Never before 1970: a hostile stamp at the edge of what a Date holds must not make the moment unwritable.
    const moment = Math.max(0, Math.min(this.newest, this.clockMs ?? this.newest) - OVERLAP_MS);
    return this.start.since === undefined ? moment : Math.max(this.start.since, moment);
  }

  /** The newest stamp, when it is later than the read's clock by more than the overlap. */
  get stampedAhead(): number | undefined {
    const { newest, clockMs } = this;
    return newest !== undefined && clockMs !== undefined && newest > clockMs + OVERLAP_MS
      ? newest
      : undefined;
  }

  /** Whether to report this record (and remember it for the next run's overlap). */
  admit(record: unknown): boolean {
    const id = sourcedIdOf(record);
    const modified = modifiedOf(record);
    const at = modified === undefined ? Number.NaN : Date.parse(modified);
    if (Number.isNaN(at)) this.unstamped++;
    else if (this.newest === undefined || at > this.newest) this.newest = at;
    // The next moment only moves later as the read goes on: what is at or before it now never counts.
    if (id !== undefined && modified !== undefined && at > (this.nextSince ?? Number.NEGATIVE_INFINITY)) {
      this.nextSeen.set(id, { modified, at });
      if (this.nextSeen.size > this.pruneAbove) this.prune();
    }
    if (this.start.since !== undefined && !Number.isNaN(at) && at <= this.start.since) {
      this.stale++;
      return false;
    }
    if (id !== undefined && modified !== undefined && this.start.seen.get(id) === modified) {
      this.suppressed++;
      return false;
    }
    return true;
  }

  private prune(): void {
    const since = this.nextSince ?? Number.NEGATIVE_INFINITY;
    for (const [id, { at }] of this.nextSeen) if (at <= since) this.nextSeen.delete(id);
    this.pruneAbove = Math.max(1024, this.nextSeen.size * 2);
  }

  /** What to save after a successful read; undefined when the next run must read everything again. */
  saved(key: WindowKey, now: number): SavedWindow | undefined {
    if (this.clockMs === undefined) throw new Error('ChangeTracker.saved before setClock');
    const since = this.nextSince;
    if (since === undefined) return undefined;
    const seen: Record<string, string> = {};
    for (const [id, { modified, at }] of this.nextSeen) if (at > since) seen[id] = modified;
    return {
      format: 1,
      key,
      since: new Date(since).toISOString(),
      serverDate: new Date(this.clockMs).toISOString(),
      clock: this.clock,
      savedAt: new Date(now).toISOString(),
      seen,
    };
  }
}
