// `roster roster changes [collection…] --since <when>`: the records changed after a moment (OneRoster
// delta reads, oneroster/changes.ts), as one table or stream across collections, or one CSV file per
// collection. `--since last` continues from the moment the previous successful `--since last` run saved
// (oneroster/change-window.ts); a run that fails saves nothing.
import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { ApiError, UsageError } from '../../errors.js';
import { outputFolder } from '../../files.js';
import {
  loadWindow,
  type SavedWindow,
  type StartWindow,
  saveWindow,
  startOf,
  type WindowKey,
} from '../../oneroster/change-window.js';
import { type ChangeReadResult, readChanges } from '../../oneroster/changes.js';
import { COLLECTIONS, type Collection } from '../../oneroster/collections.js';
import { checkFilter } from '../../oneroster/query.js';
import {
  DEFAULT_CONCURRENCY,
  DEFAULT_PAGE_SIZE,
  MAX_CONCURRENCY,
  MAX_PAGE_SIZE,
} from '../../oneroster/read-limits.js';
import { type OneRosterService, onerosterService } from '../../oneroster/service.js';
import { combineFilters, deltaFilter, isoUtc, parseSince, type Since } from '../../oneroster/since.js';
import { localTime } from '../../output/time.js';
import type { Settings } from '../../settings.js';
import { parseCount, printable } from '../../values.js';
import { examples } from '../common.js';
import { CHANGE_FILES, type ChangesFormat, type ChangesOutput, openOutput } from './changes-output.js';

/** Every rostering collection of the version, as an export reads them (demographics when permitted). */
export const DEFAULT_COLLECTIONS = [
  'orgs',
  'academic-sessions',
  'courses',
  'classes',
  'users',
  'enrollments',
  'demographics',
];
const OPTIONAL = new Set(['demographics']);

interface ChangesFlags {
  since?: string;
  filter?: string;
  pageSize?: string;
  concurrency?: string;
  json?: boolean;
  ndjson?: boolean;
  csv?: boolean;
  out?: string;
}

export interface ChangesOptions {
  collections: Collection[];
  /** Collections named on the command line (an error reading them is an error, not "not permitted"). */
  named: boolean;
  since: Since;
  filter?: string;
  pageSize: number;
  concurrency: number;
  format: ChangesFormat;
  /** --out DIR of --csv (absolute). */
  out?: string;
}

export interface CollectionChanges {
  collection: string;
  changed: number;
  toBeDeleted: number;
  /** The filter sent (absent: a first --since last run read everything). */
  filter?: string;
  /** Not permitted (HTTP 401/403 on an optional collection). */
  absent?: boolean;
  /** Where --csv wrote it. */
  file?: string;
  /** A first --since last run: every record was read. */
  full?: boolean;
}

export function parseChangesOptions(
  names: string[],
  flags: ChangesFlags,
  stdoutIsTTY: boolean,
  now: number,
): ChangesOptions {
  if (flags.since === undefined) {
    throw new UsageError(
      'roster roster changes needs --since WHEN.',
      'e.g. --since 24h, --since 2026-11-01T06:00:00Z, or --since last (continue from the previous run).',
    );
  }
  const since = parseSince(flags.since, now);
  const formats = (['json', 'ndjson', 'csv'] as const).filter((f) => flags[f]);
  if (formats.length > 1) throw new UsageError(`Choose one of ${formats.map((f) => `--${f}`).join(', ')}.`);
  const format: ChangesFormat = formats[0] ?? (stdoutIsTTY ? 'table' : 'tsv');
  if (format === 'csv' && (flags.out === undefined || flags.out.trim() === '')) {
    throw new UsageError('--csv writes one file per collection: give --out DIR.');
  }
  if (format !== 'csv' && flags.out !== undefined) throw new UsageError('--out goes with --csv.');
  const filter = flags.filter === undefined ? undefined : checkFilter(flags.filter);
  combineFilters(deltaFilter(0), filter); // refuses a filter that cannot be joined, before any request
  const unknown = names.filter((name) => !COLLECTIONS.some((c) => c.name === name));
  if (unknown.length > 0) {
    throw new UsageError(
      `Unknown collection${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => `"${printable(n, 40)}"`).join(', ')}.`,
      `Choose from: ${COLLECTIONS.map((c) => c.name).join(', ')}.`,
    );
  }
  const chosen = [...new Set(names.length > 0 ? names : DEFAULT_COLLECTIONS)];
  return {
    collections: chosen.map((name) => COLLECTIONS.find((c) => c.name === name) as Collection),
    named: names.length > 0,
    since,
    ...(filter === undefined ? {} : { filter }),
    pageSize: parseCount('--page-size', flags.pageSize, 1, MAX_PAGE_SIZE) ?? DEFAULT_PAGE_SIZE,
    concurrency: parseCount('--concurrency', flags.concurrency, 1, MAX_CONCURRENCY) ?? DEFAULT_CONCURRENCY,
    format,
    ...(flags.out === undefined ? {} : { out: resolve(flags.out) }),
  };
}

/** The key of a collection's saved moment. */
export function windowKey(
  settings: Settings,
  service: OneRosterService,
  collection: Collection,
  filter: string | undefined,
): WindowKey {
  return {
    command: 'changes',
    profile: settings.profileName,
    baseUrl: service.baseUrl,
    clientId: settings.clientId ?? '',
    version: service.version,
    collection: collection.name,
    ...(filter === undefined ? {} : { filter }),
  };
}

/** `roster roster changes`: the run's OneRoster service and profile, through readChangesTo. */
export async function run(options: ChangesOptions, ctx: Context): Promise<CollectionChanges[]> {
  // `| head`: the changes are not all read, so no --since last mark is saved either.
  ctx.stopWhenOutputCloses?.();
  const session = await ctx.session();
  return readChangesTo(options, onerosterService(session), session.settings, ctx);
}

/**
 * Reads each collection's changes into the output of the format, then saves the --since last moments:
 * only once every collection is read and written, so a failed run saves nothing and the next repeats it.
 */
export async function readChangesTo(
  options: ChangesOptions,
  service: OneRosterService,
  settings: Settings,
  ctx: Context,
): Promise<CollectionChanges[]> {
  const starts = await startWindows(options, service, settings, ctx);
  // The --csv folder before the first request, by the rule of every file roster writes.
  if (options.format === 'csv')
    await outputFolder(options.out as string, (l) => ctx.log.warn(l), CHANGE_FILES);
  const output = openOutput(ctx, options.format, options.out, service);
  const results: CollectionChanges[] = [];
  const toSave: SavedWindow[] = [];
  try {
    for (const collection of options.collections) {
      const start = starts.get(collection) as StartWindow;
      const read = await readCollection(collection, start, options, service, output, ctx);
      if (!read) {
        results.push({ collection: collection.name, changed: 0, toBeDeleted: 0, absent: true });
        continue;
      }
      const file = await output.finish(collection);
      results.push({
        collection: collection.name,
        changed: read.changed,
        toBeDeleted: read.toBeDeleted,
        ...(read.filter === undefined ? {} : { filter: read.filter }),
        ...(file === undefined ? {} : { file }),
        ...(start.since === undefined ? { full: true } : {}),
      });
      if (options.since.kind === 'last') {
        // Nothing to save (nothing stamped read on a first run): the next run reads everything again.
        const key = windowKey(settings, service, collection, options.filter);
        const window = read.tracker.saved(key, ctx.now());
        if (window) toSave.push(window);
      }
    }
    await output.end();
  } catch (error) {
    await output.abandonAll();
    throw error;
  }
  for (const window of toSave) await saveWindow(ctx.paths.stateDir, window);
  return results;
}

/** Where each collection starts. Every saved moment is read before the first request: an unreadable one stops the run early. */
async function startWindows(
  options: ChangesOptions,
  service: OneRosterService,
  settings: Settings,
  ctx: Context,
): Promise<Map<Collection, StartWindow>> {
  const starts = new Map<Collection, StartWindow>();
  for (const collection of options.collections) {
    if (options.since.kind === 'time') {
      starts.set(collection, { since: options.since.at, relative: options.since.relative, seen: new Map() });
      continue;
    }
    const key = windowKey(settings, service, collection, options.filter);
    starts.set(collection, startOf(await loadWindow(ctx.paths.stateDir, key)));
  }
  const firstRuns = options.collections.filter((c) => starts.get(c)?.since === undefined);
  if (options.since.kind === 'last' && firstRuns.length > 0) {
    ctx.log.info(
      `No saved moment for ${firstRuns.map((c) => c.name).join(', ')}: this first --since last run reads every record (a first sync is a full one).`,
    );
  }
  return starts;
}

/**
 * One collection's changes into the output. Undefined when an optional collection nobody named is not
 * permitted (HTTP 401/403): it is left out with a warning, not a failure.
 */
async function readCollection(
  collection: Collection,
  start: StartWindow,
  options: ChangesOptions,
  service: OneRosterService,
  output: ChangesOutput,
  ctx: Context,
): Promise<ChangeReadResult | undefined> {
  const sink = await output.start(collection);
  try {
    return await readChanges(
      service,
      collection,
      {
        start,
        ...(options.filter === undefined ? {} : { filter: options.filter }),
        pageSize: options.pageSize,
        concurrency: options.concurrency,
        withTexts: options.format === 'json' || options.format === 'ndjson',
      },
      { warn: (line) => ctx.log.warn(line), debug: (line) => ctx.log.debug(line), now: ctx.now },
      sink,
    );
  } catch (error) {
    await output.abandon(collection);
    const forbidden = error instanceof ApiError && (error.status === 401 || error.status === 403);
    if (!options.named && OPTIONAL.has(collection.name) && forbidden) {
      ctx.log.warn(`${collection.name} left out: this client may not read them (HTTP ${error.status}).`);
      return undefined;
    }
    throw error;
  }
}

/**
 * "students: 5 changed, 2 to be deleted" per collection, after the moment asked for: in local time for a
 * terminal, ISO 8601 UTC otherwise (a CI log).
 */
export function summaryLines(results: CollectionChanges[], since: Since, terminal = false): string[] {
  const lines = results.map((r) => {
    if (r.absent) return `${r.collection}: not permitted (left out)`;
    const counts = `${r.changed} ${r.full ? 'read (first run)' : 'changed'}, ${r.toBeDeleted} to be deleted`;
    return `${r.collection}: ${counts}${r.file ? ` (${r.file})` : ''}`;
  });
  if (since.kind === 'time') {
    lines.unshift(`Changed since ${terminal ? localTime(since.at) : isoUtc(since.at)}:`);
  }
  return lines;
}

export function register(group: Command, ctx: Context): void {
  const command = group
    .command('changes [collections...]')
    .summary('records changed since a moment: OneRoster delta reads (--since 24h, --since last)')
    .description(
      `List the records created, changed or marked tobedeleted after a moment, asking the server with the standard filter dateLastModified>'<time>' (joined to --filter by AND). Collections: ${COLLECTIONS.map((c) => c.name).join(', ')}; default ${DEFAULT_COLLECTIONS.join(', ')} (demographics when permitted). --since last continues from the moment the previous successful --since last run saved for this profile, base URL, client, OneRoster version and collection: the newest dateLastModified that run read or the server's clock, whichever is earlier, less 5 minutes (records already reported after that moment are not reported again; a server clock that is off is warned about and never makes a run skip a change). The first --since last run reads everything. A failed run saves nothing, so the next one repeats the window. A summary per collection goes to stderr.`,
    )
    .option(
      '--since <when>',
      'ISO 8601 time (2026-11-01 is midnight UTC; a time needs Z or an offset), a duration back from now (30m, 24h, 7d, 2w), or last',
    )
    .option('--filter <expr>', 'your own OneRoster filter, one predicate, joined with AND')
    .option('--page-size <n>', `records per request (default ${DEFAULT_PAGE_SIZE})`)
    .option(
      '--concurrency <n>',
      `pages in flight when the server sends X-Total-Count (default ${DEFAULT_CONCURRENCY}, max ${MAX_CONCURRENCY})`,
    )
    .option('--json', 'one JSON array of {collection, record}')
    .option('--ndjson', 'one {collection, record} object per line, streamed')
    .option('--csv', "one CSV file per collection (the binding's columns) into --out DIR")
    .option('--out <dir>', 'directory for --csv files')
    .action(async (names: string[], flags: ChangesFlags) => {
      const options = parseChangesOptions(names, flags, ctx.io.stdoutIsTTY, ctx.now());
      const results = await run(options, ctx);
      for (const line of summaryLines(results, options.since, ctx.io.stderrIsTTY)) ctx.log.info(line);
    });
  examples(command, [
    '# On a terminal',
    'roster roster changes --since 24h',
    'roster roster changes students enrollments --since 2026-11-01T06:00:00Z',
    '# In a nightly script (exit 0 also when nothing changed; on failure the next run repeats the window)',
    'roster roster changes --since last --ndjson > changes-$(date +%F).ndjson',
    'roster roster changes users --since last --csv --out ./changes',
  ]);
}
