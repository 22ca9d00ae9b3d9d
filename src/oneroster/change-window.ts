// The moment a delta read starts from, and what `--since last` saves for the next run. The moment saved
// is the server's clock (its Date header on the first page of the read) less OVERLAP_MS, so a record
// written while the read ran, or stamped by a server clock a little behind, is read again next time; the
// records already reported in that overlap (sourcedId and dateLastModified) are saved with it and not
// reported again unless they changed since. State files live under the state directory, one per
// profile, base URL, client id, OneRoster version, collection (and --filter, and export destination).
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { isRecord } from '../api/errors.js';
import type { OneRosterVersion } from '../auth/config.js';
import { RosterError } from '../errors.js';
import { readPrivateFile, writePrivateFile } from '../files.js';
import { sourcedIdOf } from './records.js';

/** Overlap subtracted from the server's clock: clock skew between its machines and writes in flight. */
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
  /** The server's Date header the moment came from (or the local clock, with clock: local). */
  serverDate: string;
  clock: 'server' | 'local';
  savedAt: string;
  /** sourcedId → dateLastModified of the records already reported that changed after `since`. */
  seen: Record<string, string>;
}

/** The window a read starts from: the moment (absent: read everything) and the overlap already reported. */
export interface StartWindow {
  since?: number;
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
 * `clock(ms, from)` is called once, with the server's Date of the first answer (or the local clock).
 */
export class ChangeTracker {
  /** Records served but not reported: already reported in the overlap of the previous run. */
  suppressed = 0;
  /** Records served though they did not change after the moment: the server ignored the filter. */
  stale = 0;
  private nextSince?: number;
  private clock: 'server' | 'local' = 'server';
  private serverDate?: number;
  private readonly nextSeen = new Map<string, string>();

  constructor(readonly start: StartWindow) {}

  /** The moment of this read: the server's clock when it started, less the overlap. */
  setClock(ms: number, clock: 'server' | 'local'): void {
    if (this.nextSince !== undefined) return;
    this.serverDate = ms;
    this.clock = clock;
    this.nextSince = ms - OVERLAP_MS;
  }

  get clockSet(): boolean {
    return this.nextSince !== undefined;
  }

  /** Whether to report this record (and remember it for the next run's overlap). */
  admit(record: unknown): boolean {
    const id = sourcedIdOf(record);
    const modified = modifiedOf(record);
    const at = modified === undefined ? Number.NaN : Date.parse(modified);
    if (id !== undefined && modified !== undefined && this.nextSince !== undefined && at > this.nextSince) {
      this.nextSeen.set(id, modified);
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

  /** What to save after a successful read. */
  saved(key: WindowKey, now: number): SavedWindow {
    if (this.nextSince === undefined || this.serverDate === undefined) {
      throw new Error('ChangeTracker.saved before setClock');
    }
    return {
      format: 1,
      key,
      since: new Date(this.nextSince).toISOString(),
      serverDate: new Date(this.serverDate).toISOString(),
      clock: this.clock,
      savedAt: new Date(now).toISOString(),
      seen: Object.fromEntries(this.nextSeen),
    };
  }
}
