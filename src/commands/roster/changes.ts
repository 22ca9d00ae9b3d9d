// `roster roster changes [collection…] --since <when>`: the records changed after a moment (OneRoster
// delta reads, oneroster/changes.ts), as one table or stream across collections, or one CSV file per
// collection. `--since last` continues from the moment the previous successful `--since last` run saved
// (oneroster/change-window.ts); a run that fails saves nothing.
import type { WriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { isRecord } from '../../api/errors.js';
import type { Context } from '../../context.js';
import { ApiError, UsageError } from '../../errors.js';
import { createFresh, outputFolder } from '../../files.js';
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
import { columnReader, sourcedIdOf } from '../../oneroster/records.js';
import { type OneRosterService, onerosterService } from '../../oneroster/service.js';
import { combineFilters, deltaFilter, isoUtc, parseSince, type Since } from '../../oneroster/since.js';
import { createRecordWriter, type RecordColumn, type RecordWriter } from '../../output/record-stream.js';
import { fieldShrink } from '../../output/table.js';
import { localTime } from '../../output/time.js';
import type { Settings } from '../../settings.js';
import { parseCount, printable } from '../../values.js';
import { examples, openSession } from '../common.js';

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

export type ChangesFormat = 'table' | 'tsv' | 'json' | 'ndjson' | 'csv';

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

export async function run(
  options: ChangesOptions,
  service: OneRosterService,
  settings: Settings,
  ctx: Context,
): Promise<CollectionChanges[]> {
  // Every saved moment is read before the first request: an unreadable one stops the run early.
  const starts = new Map<Collection, StartWindow>();
  for (const collection of options.collections) {
    if (options.since.kind === 'time') {
      starts.set(collection, { since: options.since.at, seen: new Map() });
      continue;
    }
    const key = windowKey(settings, service, collection, options.filter);
    const saved = await loadWindow(ctx.paths.stateDir, key);
    starts.set(collection, startOf(saved));
  }
  const firstRuns = options.collections.filter((c) => starts.get(c)?.since === undefined);
  if (options.since.kind === 'last' && firstRuns.length > 0) {
    ctx.log.info(
      `No saved moment for ${firstRuns.map((c) => c.name).join(', ')}: this first --since last run reads every record (a first sync is a full one).`,
    );
  }

  // The --csv folder before the first request, by the rule of every file roster writes.
  if (options.format === 'csv')
    await outputFolder(options.out as string, (l) => ctx.log.warn(l), CHANGE_FILES);
  const output = openOutput(ctx, options, service);
  const results: CollectionChanges[] = [];
  const toSave: SavedWindow[] = [];
  try {
    for (const collection of options.collections) {
      const sink = await output.start(collection);
      let read: ChangeReadResult;
      try {
        read = await readChanges(
          service,
          collection,
          {
            start: starts.get(collection) as StartWindow,
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
        if (
          !options.named &&
          OPTIONAL.has(collection.name) &&
          error instanceof ApiError &&
          (error.status === 401 || error.status === 403)
        ) {
          ctx.log.warn(`${collection.name} left out: this client may not read them (HTTP ${error.status}).`);
          results.push({ collection: collection.name, changed: 0, toBeDeleted: 0, absent: true });
          continue;
        }
        throw error;
      }
      const file = await output.finish(collection);
      results.push({
        collection: collection.name,
        changed: read.changed,
        toBeDeleted: read.toBeDeleted,
        ...(read.filter === undefined ? {} : { filter: read.filter }),
        ...(file === undefined ? {} : { file }),
        ...(starts.get(collection)?.since === undefined ? { full: true } : {}),
      });
      if (options.since.kind === 'last') {
        // Nothing to save (nothing stamped read on a first run): the next run reads everything again.
        const window = read.tracker.saved(
          windowKey(settings, service, collection, options.filter),
          ctx.now(),
        );
        if (window) toSave.push(window);
      }
    }
    await output.end();
  } catch (error) {
    await output.abandonAll();
    throw error;
  }
  // Only now, with every collection read and written: a failed run saves nothing, the next repeats it.
  for (const window of toSave) await saveWindow(ctx.paths.stateDir, window);
  return results;
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

/** One record of a table or stream: the collection it came from and the record. */
interface Row {
  collection: string;
  record: unknown;
}

const NAME: Record<string, (record: Record<string, unknown>) => string> = {
  users: (r) => [r.givenName, r.familyName].filter((x) => typeof x === 'string').join(' '),
  orgs: (r) => text(r.name),
  academicSessions: (r) => text(r.title),
  courses: (r) => text(r.title),
  classes: (r) => text(r.title),
  enrollments: (r) =>
    [text(r.role), sourcedIdOf(r.user), sourcedIdOf(r.class) && `in ${sourcedIdOf(r.class)}`]
      .filter(Boolean)
      .join(' '),
};
const text = (value: unknown) => (typeof value === 'string' ? value : '');

function nameOf(collection: Collection, record: unknown): string {
  const name = NAME[collection.listKey];
  return name && isRecord(record) ? name(record) : '';
}

const ROW_COLUMNS: RecordColumn[] = [
  { header: 'collection', values: (row) => [(row as Row).collection] },
  ...['sourcedId', 'status', 'dateLastModified'].map((name) => {
    const read = columnReader(name);
    return { header: name, values: (row: unknown) => read((row as Row).record), shrink: fieldShrink(name) };
  }),
  { header: 'name', values: (row) => [(row as Row & { name: string }).name], shrink: 'end' },
];

interface Output {
  start(collection: Collection): Promise<(records: unknown[], texts?: string[]) => Promise<void>>;
  finish(collection: Collection): Promise<string | undefined>;
  abandon(collection: Collection): Promise<void>;
  abandonAll(): Promise<void>;
  end(): Promise<void>;
}

function openOutput(ctx: Context, options: ChangesOptions, service: OneRosterService): Output {
  if (options.format === 'csv') return csvOutput(ctx, options.out as string, service);
  if (options.format === 'table') return tableOutput(ctx);
  const writer = createRecordWriter(ctx, options.format, ROW_COLUMNS);
  const json = options.format === 'json' || options.format === 'ndjson';
  return {
    start: async (collection) => async (records, texts) => {
      const tag = JSON.stringify(collection.name);
      await writer.writePage(
        records.map((record) =>
          json
            ? { collection: collection.name, record }
            : { collection: collection.name, record, name: nameOf(collection, record) },
        ),
        texts?.map((text) => `{"collection":${tag},"record":${text}}`),
      );
    },
    finish: async () => undefined,
    abandon: async () => {},
    abandonAll: async () => {},
    end: () => writer.end(),
  };
}

/**
 * On a terminal, a table per collection that has changes: a streaming table fixes its widths on its first
 * page, and users' widths would cut enrollments' longer ids.
 */
function tableOutput(ctx: Context): Output {
  let writer: RecordWriter | undefined;
  let tables = 0;
  return {
    start: async (collection) => {
      writer = undefined;
      return async (records) => {
        if (!writer) {
          if (tables++ > 0) ctx.io.stdout.write('\n');
          writer = createRecordWriter(ctx, 'table', ROW_COLUMNS);
        }
        await writer.writePage(
          records.map((record) => ({
            collection: collection.name,
            record,
            name: nameOf(collection, record),
          })),
        );
      };
    },
    finish: async () => {
      await writer?.end();
      writer = undefined;
      return undefined;
    },
    abandon: async () => {},
    abandonAll: async () => {},
    end: async () => {},
  };
}

const CHANGE_FILES = 'the change files';

/** One CSV file per collection in DIR, with the binding's columns; <name>.csv.partial until complete. */
function csvOutput(ctx: Context, dir: string, service: OneRosterService): Output {
  const files = new Map<Collection, { stream: WriteStream; partial: string; writer: RecordWriter }>();
  const closeStream = (stream: WriteStream) =>
    new Promise<void>((done, fail) => {
      stream.once('error', fail);
      stream.end(() => done());
    });
  const abandon = async (collection: Collection) => {
    const file = files.get(collection);
    if (!file) return;
    files.delete(collection);
    file.stream.destroy();
    await rm(file.partial, { force: true });
  };
  return {
    async start(collection) {
      await outputFolder(dir, (line) => ctx.log.warn(line), CHANGE_FILES);
      const partial = join(dir, `${collection.name}.csv.partial`);
      // A leftover (or planted) .partial is removed, never written through (files.ts).
      const stream = (await createFresh(partial)).createWriteStream();
      const columns = collection.csv[service.version].map((name) => ({
        header: name,
        values: columnReader(name),
      }));
      const writer = createRecordWriter({ ...ctx, io: { ...ctx.io, stdout: stream } }, 'csv', columns);
      files.set(collection, { stream, partial, writer });
      return (records) => writer.writePage(records);
    },
    async finish(collection) {
      const file = files.get(collection);
      if (!file) return undefined;
      await file.writer.end();
      await closeStream(file.stream);
      files.delete(collection);
      const target = join(dir, `${collection.name}.csv`);
      await rename(file.partial, target);
      return target;
    },
    abandon,
    abandonAll: async () => {
      for (const collection of [...files.keys()]) await abandon(collection);
    },
    end: async () => {},
  };
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
    .action(async (names: string[], flags: ChangesFlags, cmd: Command) => {
      const options = parseChangesOptions(names, flags, ctx.io.stdoutIsTTY, ctx.now());
      const session = await openSession(ctx, cmd);
      const results = await run(options, onerosterService(session), session.settings, ctx);
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
