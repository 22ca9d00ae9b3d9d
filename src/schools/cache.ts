// The district's schools as last read, one private file per (profile, base URL, client id, OneRoster
// version) under roster's cache directory, so another district or client never sees another's list. It
// spares `invite send` a read per run and lets shell completion offer school ids without the network.
// A file that is not what roster writes is ignored, never trusted.
import { createHash } from 'node:crypto';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { readPrivateFile, writePrivateFile } from '../files.js';
import type { Settings } from '../settings.js';
import type { School } from './match.js';

/** How long a list answers for the district before it is read again. */
export const SCHOOLS_TTL_MS = 24 * 60 * 60 * 1000;

export interface SchoolsKey {
  profile: string;
  baseUrl: string;
  clientId: string;
  oneroster: string;
}

export interface CachedSchools {
  /** Epoch milliseconds of the read. */
  readAt: number;
  schools: School[];
}

const MAX_TEXT = 1000;

/** The key of a run's list: its profile, destination (base URL and client id) and OneRoster version. */
export function schoolsKey(settings: Settings, baseUrl: string): SchoolsKey {
  return {
    profile: settings.profileName,
    baseUrl,
    clientId: settings.clientId ?? '',
    oneroster: settings.oneroster,
  };
}

export function schoolsCachePath(cacheDir: string, key: SchoolsKey): string {
  return join(
    cacheDir,
    'schools',
    `${createHash('sha256').update(keyText(key)).digest('hex').slice(0, 32)}.json`,
  );
}

/** The cached list for this key, whatever its age; undefined when absent, unreadable or another key's. */
export async function readSchoolsCache(
  cacheDir: string,
  key: SchoolsKey,
): Promise<CachedSchools | undefined> {
  const text = await readPrivateFile(schoolsCachePath(cacheDir, key), {
    own: true,
    followLinks: false,
  }).catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    const entry = JSON.parse(text) as { key?: unknown; readAt?: unknown; schools?: unknown };
    if (JSON.stringify(entry.key) !== keyText(key)) return undefined;
    if (typeof entry.readAt !== 'number' || !Array.isArray(entry.schools)) return undefined;
    return { readAt: entry.readAt, schools: entry.schools.flatMap((s) => schoolFrom(s) ?? []) };
  } catch {
    return undefined;
  }
}

export async function writeSchoolsCache(
  cacheDir: string,
  key: SchoolsKey,
  value: CachedSchools,
): Promise<void> {
  const entry = { key: JSON.parse(keyText(key)), readAt: value.readAt, schools: value.schools };
  await writePrivateFile(schoolsCachePath(cacheDir, key), `${JSON.stringify(entry)}\n`);
}

/**
 * Deletes every list cached for `profile` (any base URL, client or OneRoster version) and returns how many
 * there were. Only the user's own files that parse as a list are read; one that is not is left alone.
 */
export async function removeSchoolsCaches(cacheDir: string, profile: string): Promise<number> {
  const dir = join(cacheDir, 'schools');
  const names = await readdir(dir).catch(() => [] as string[]);
  let removed = 0;
  for (const name of names.filter((n) => n.endsWith('.json'))) {
    const path = join(dir, name);
    const text = await readPrivateFile(path, { own: true, followLinks: false }).catch(() => undefined);
    if (text !== undefined && profileOf(text) === profile) {
      await rm(path, { force: true });
      removed++;
    }
  }
  return removed;
}

function profileOf(text: string): unknown {
  try {
    return (JSON.parse(text) as { key?: { profile?: unknown } }).key?.profile;
  } catch {
    return undefined;
  }
}

export const isFresh = (cached: CachedSchools, now: number): boolean =>
  cached.readAt <= now && now - cached.readAt < SCHOOLS_TTL_MS;

const keyText = (key: SchoolsKey) =>
  JSON.stringify({
    profile: key.profile,
    baseUrl: key.baseUrl,
    clientId: key.clientId,
    oneroster: key.oneroster,
  });

/**
 * A school from a OneRoster org record or a cache entry: a non-empty sourcedId, and name and identifier as
 * text (absent ones empty); anything longer than an id could be is dropped.
 */
export function schoolFrom(record: unknown): School | undefined {
  if (typeof record !== 'object' || record === null) return undefined;
  const r = record as Record<string, unknown>;
  const text = (value: unknown) => (typeof value === 'string' && value.length <= MAX_TEXT ? value : '');
  const sourcedId = text(r.sourcedId);
  if (sourcedId.trim() === '') return undefined;
  return { sourcedId, name: text(r.name), identifier: text(r.identifier), status: text(r.status) };
}
