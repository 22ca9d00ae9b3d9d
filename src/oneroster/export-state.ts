// The small state file an export keeps in its directory (.roster-export.json), so an interrupted
// export resumes: which files are complete, with their row counts and the request that read them.
// It names its source (base URL, path prefix, version, mode): files from one district or version are
// never completed with another's.
import { join } from 'node:path';
import type { OneRosterVersion } from '../config-file.js';
import { RosterError } from '../errors.js';
import { readPrivateFile, writePrivateFile } from '../files.js';
import type { SavedWindow } from './change-window.js';
import type { ExportMode } from './csv-binding.js';

export const STATE_FILE = '.roster-export.json';

export interface ExportSource {
  baseUrl: string;
  prefix: string;
  version: OneRosterVersion;
  mode: ExportMode;
  /**
   * A delta export of changes only (--since): per collection, the moment read from (ISO 8601), or null
   * for a first --since last run that read everything.
   */
  since?: Record<string, string | null>;
}

export interface CompleteFile {
  rows: number;
  /** Records left out of a bulk file (tobedeleted, or referring to one that is). */
  omitted: number;
  /** X-Total-Count of the collection read, when the server sent it. */
  total?: number;
  /** The request that read it: path below the base URL and query of the first page. */
  path: string;
  query: string;
  completedAt: string;
  /** sourcedIds left out of a bulk file, so rows of later files that refer to them are left out too. */
  leftOut?: string[];
}

export interface ExportState extends ExportSource {
  format: 1;
  startedAt: string;
  /** Set when every file and the manifest were written. */
  finishedAt?: string;
  files: Record<string, CompleteFile>;
  /** --since last: what each collection read will save for the next run, once the export is complete. */
  windows?: Record<string, SavedWindow>;
}

export const statePath = (dir: string) => join(dir, STATE_FILE);

export async function loadState(dir: string): Promise<ExportState | undefined> {
  // Only the user's own state is resumed: one planted by someone else could pass their files off as complete.
  const text = await readPrivateFile(statePath(dir), { own: true, followLinks: false });
  if (text === undefined) return undefined;
  try {
    const state = JSON.parse(text) as ExportState;
    if (state.format === 1 && typeof state.files === 'object' && state.files !== null) return state;
  } catch {
    // unreadable: reported below
  }
  throw new RosterError(
    'failure',
    `${statePath(dir)} is not an export state file roster can read`,
    'Delete it, or pass --force to start the export afresh.',
  );
}

export function saveState(dir: string, state: ExportState): Promise<void> {
  return writePrivateFile(statePath(dir), `${JSON.stringify(state, null, 2)}\n`);
}

/** What differs between the source of an export on disk and this run's, for the refusal message. */
export function sourceDifference(state: ExportSource, source: ExportSource): string | undefined {
  if (state.baseUrl !== source.baseUrl) return `base URL ${state.baseUrl}`;
  if (state.version !== source.version) return `OneRoster ${state.version}`;
  if (state.prefix !== source.prefix) return `OneRoster path ${state.prefix}`;
  if (state.mode !== source.mode) return `${state.mode} files`;
  if (JSON.stringify(state.since ?? null) !== JSON.stringify(source.since ?? null)) {
    return state.since ? `a delta export of changes since ${describeSince(state.since)}` : 'a full export';
  }
  return undefined;
}

function describeSince(since: Record<string, string | null>): string {
  const moments = [...new Set(Object.values(since).map((m) => m ?? 'the beginning'))];
  return moments.length === 1 ? (moments[0] as string) : 'several moments';
}
