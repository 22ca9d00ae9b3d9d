// A full OneRoster CSV export into a directory: each collection is read page by page (the pager) and
// written as it arrives to <file>.partial, renamed when complete, so memory stays flat and a file on
// disk under its own name is always whole. The state file records complete files: a re-run after an
// interruption or a failure keeps them and reads only what is missing (an incomplete file starts over).
// Every file is created fresh (files.ts): a link or another user's file planted at a name is never written
// through; a full disk is one line naming the file, and the export stays resumable.
import type { FileHandle } from 'node:fs/promises';
import { rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ApiError, RosterError, UsageError } from '../errors.js';
import { createFresh, exists, fileError, isOwnFile, outputFolder, writePrivateFile } from '../files.js';
import { keepHeapSmall } from '../heap.js';
import { csvLine } from '../output/csv.js';
import { ChangeTracker, type SavedWindow, type StartWindow, type WindowKey } from './change-window.js';
import { refused, setClock, warnStamps } from './changes.js';
import {
  type CsvFile,
  type ExportMode,
  type ExportTask,
  exportTasks,
  isToBeDeleted,
  manifestRows,
} from './csv-binding.js';
import {
  type CompleteFile,
  type ExportSource,
  type ExportState,
  loadState,
  STATE_FILE,
  saveState,
  sourceDifference,
} from './export-state.js';
import { Pager, type SendPage } from './pager.js';
import { buildQuery, type ReadQuery } from './query.js';
import { sourcedIdOf } from './records.js';
import { type OneRosterService, pageSender } from './service.js';
import { deltaFilter } from './since.js';

export interface ExportOptions {
  dir: string;
  mode: ExportMode;
  zip: boolean;
  pageSize: number;
  concurrency: number;
  /** Replace an export of another source (or files of unknown origin) in the directory. */
  force: boolean;
  /** Changes only (--since; mode delta): where each collection starts, by collection name. */
  since?: ExportSince;
}

export interface ExportSince {
  starts: Map<string, StartWindow>;
  /** A duration or `last`: resuming an unfinished export keeps the moments it started with. */
  relative: boolean;
  /** --since last: the key of each collection's saved moment, and where to save them at the end. */
  keyOf?: (collection: string) => WindowKey;
  save?: (windows: SavedWindow[]) => Promise<void>;
}

export interface ExportHooks {
  /** Aborted by Ctrl-C: stop after the page in hand, keep complete files. */
  signal: AbortSignal;
  progress(text: string): void;
  info(line: string): void;
  warn(line: string): void;
  debug(line: string): void;
  now(): number;
}

/**
 * written: by this run; kept: complete from an earlier run; absent: not permitted (demographics);
 * unchanged: a delta export (--since) with no changed rows for it, left out and marked absent.
 */
export type FileStatus = 'written' | 'kept' | 'absent' | 'unchanged';

export interface FileResult {
  name: string;
  rows: number;
  status: FileStatus;
  omitted: number;
  total: number | null;
}

export interface ExportResult {
  dir: string;
  version: string;
  mode: ExportMode;
  files: FileResult[];
  zip: string | null;
  /** --since: per collection, the moment of the changes exported (null: a first --since last run, everything). */
  since?: Record<string, string | null>;
}

export const MANIFEST = 'manifest.csv';
const zipName = (version: string) => `oneroster-${version}.zip`;

/** Every file name an export of either version may leave in its directory. */
function knownFiles(): string[] {
  const names = new Set<string>([MANIFEST, zipName('1.1'), zipName('1.2')]);
  for (const version of ['1.1', '1.2'] as const) {
    for (const task of exportTasks(version, 'bulk')) for (const file of task.files) names.add(file.name);
  }
  return [...names];
}

export async function runExport(
  service: OneRosterService,
  options: ExportOptions,
  hooks: ExportHooks,
): Promise<ExportResult> {
  const { dir, mode } = options;
  await outputFolder(dir, hooks.warn);
  await keepHeapSmall(hooks.debug);
  const tasks = exportTasks(service.version, mode);
  const source: ExportSource = {
    baseUrl: service.baseUrl,
    prefix: service.prefix,
    version: service.version,
    mode,
    ...(options.since && { since: sinceOf(options.since, tasks) }),
  };
  if (options.since?.relative) await keepMoments(dir, source, options.since);
  const state = await openState(dir, source, options, hooks);
  try {
    return await exportAll(service, options, hooks, state, tasks, source);
  } catch (error) {
    throw resumable(error, state);
  }
}

async function exportAll(
  service: OneRosterService,
  options: ExportOptions,
  hooks: ExportHooks,
  state: ExportState,
  tasks: ExportTask[],
  source: ExportSource,
): Promise<ExportResult> {
  const { dir, mode } = options;
  const leftOut = new Set(Object.values(state.files).flatMap((f) => f.leftOut ?? []));
  const results: FileResult[] = [];
  for (const [index, task] of tasks.entries()) {
    const kept = await keptResults(dir, state, task);
    if (kept) {
      results.push(...kept);
      continue;
    }
    const step = `${index + 1}/${tasks.length}`;
    results.push(...(await exportTask({ service, task, options, hooks, state, leftOut, step })));
  }

  if (options.since) {
    // A delta file without rows says nothing: it is left out of the package, and the manifest says absent.
    for (const r of results.filter((r) => r.rows === 0 && r.status !== 'absent')) {
      await rm(join(dir, r.name), { force: true });
      r.status = 'unchanged';
    }
  }
  const written = new Set(
    results.filter((r) => r.status === 'written' || r.status === 'kept').map((r) => r.name),
  );
  const manifest = manifestRows(service.version, written, mode);
  await writePrivateFile(
    join(dir, MANIFEST),
    csvLine(['propertyName', 'value']) + manifest.map(csvLine).join(''),
  );
  results.push({ name: MANIFEST, rows: manifest.length, status: 'written', omitted: 0, total: null });

  let zip: string | null = null;
  if (options.zip) {
    zip = join(dir, zipName(service.version));
    hooks.progress(`Writing ${zipName(service.version)}`);
    const entries = [MANIFEST, ...[...written]].map((name) => ({ name, path: join(dir, name) }));
    // Loaded only for --zip: node:zlib would otherwise cost every `roster roster …` command start-up time.
    const { writeZip } = await import('../output/zip.js');
    const target = zip;
    await writeZip(target, entries, new Date(hooks.now())).catch((error) => {
      throw fileError(error, target, 'write');
    });
  }
  state.finishedAt = new Date(hooks.now()).toISOString();
  await saveState(dir, state);
  // Only now, with the package complete, does --since last move on.
  await options.since?.save?.(Object.values(state.windows ?? {}));
  return {
    dir,
    version: service.version,
    mode,
    files: results,
    zip,
    ...(source.since && { since: source.since }),
  };
}

function sinceOf(since: ExportSince, tasks: ExportTask[]): Record<string, string | null> {
  return Object.fromEntries(
    tasks.map((task) => {
      const at = since.starts.get(task.collection.name)?.since;
      return [task.collection.name, at === undefined ? null : new Date(at).toISOString()];
    }),
  );
}

/** A relative --since (24h, last) resuming an unfinished export: the moments it started with, not new ones. */
async function keepMoments(dir: string, source: ExportSource, since: ExportSince): Promise<void> {
  const previous = await loadState(dir).catch(() => undefined);
  if (!previous || previous.finishedAt || !previous.since) return;
  if (sourceDifference(previous, { ...source, since: previous.since })) return;
  source.since = previous.since;
  for (const [name, moment] of Object.entries(previous.since)) {
    const start = since.starts.get(name);
    since.starts.set(name, {
      seen: start?.seen ?? new Map(),
      ...(moment === null ? {} : { since: Date.parse(moment) }),
    });
  }
}

/** The state to continue, or a fresh one; refuses to mix sources or overwrite files of unknown origin. */
async function openState(
  dir: string,
  source: ExportSource,
  options: ExportOptions,
  hooks: ExportHooks,
): Promise<ExportState> {
  const previous = await loadState(dir).catch((error) => {
    if (options.force) return undefined;
    throw error;
  });
  if (previous) {
    // A finished export is replaced by one of other moments (tonight's --since) without ado.
    const difference = sourceDifference(
      previous,
      previous.finishedAt ? { ...source, since: previous.since } : source,
    );
    if (difference && !options.force) {
      throw new UsageError(
        `${dir} holds an unfinished or earlier export from ${difference}; this run reads ${describe(source)}.`,
        'Use another --out directory, or pass --force to replace that export.',
      );
    }
    if (!difference && !previous.finishedAt) {
      const done = Object.keys(previous.files).length;
      hooks.info(
        `Resuming the export started ${previous.startedAt}: ${done} complete file${done === 1 ? '' : 's'} kept.`,
      );
      return previous;
    }
    if (!difference) hooks.info(`The export in ${dir} was complete: exporting afresh.`);
  } else if (!options.force) {
    const found = await existing(dir, knownFiles());
    if (found.length > 0) {
      throw new UsageError(
        `${dir} already holds ${found.slice(0, 3).join(', ')}${found.length > 3 ? ', …' : ''} but no ${STATE_FILE} of roster export.`,
        'Use another --out directory, or pass --force to overwrite those files.',
      );
    }
  }
  // A fresh export: files of an earlier one must not linger next to it (a file now absent, say).
  await Promise.all(
    knownFiles().map((name) =>
      rm(join(dir, name), { force: true }).catch((error) => {
        throw fileError(error, join(dir, name), 'write');
      }),
    ),
  );
  const state: ExportState = {
    format: 1,
    ...source,
    startedAt: new Date(hooks.now()).toISOString(),
    files: {},
  };
  await saveState(dir, state);
  return state;
}

const describe = (s: ExportSource) => `OneRoster ${s.version} at ${s.baseUrl}${s.prefix} (${s.mode} files)`;

/** Anything at those names: a file, a folder, a link (planted or not). */
async function existing(dir: string, names: string[]): Promise<string[]> {
  const found = await Promise.all(names.map(async (name) => ((await exists(join(dir, name))) ? name : '')));
  return found.filter(Boolean);
}

/** The task's files as an earlier run completed them, when all of them are still there. */
async function keptResults(
  dir: string,
  state: ExportState,
  task: ExportTask,
): Promise<FileResult[] | undefined> {
  const results: FileResult[] = [];
  for (const file of task.files) {
    const done = state.files[file.name];
    // Kept only if still the user's own file: one replaced by someone else is read again.
    if (!done || !(await isOwnFile(join(dir, file.name)))) return undefined;
    results.push({
      name: file.name,
      rows: done.rows,
      status: 'kept',
      omitted: done.omitted,
      total: done.total ?? null,
    });
  }
  return results;
}

interface Output {
  file: CsvFile;
  partial: string;
  handle?: FileHandle;
  rows: number;
  omitted: number;
  leftOut: string[];
}

/** What exporting one task (a collection and the files made from it) needs. */
interface TaskExport {
  service: OneRosterService;
  task: ExportTask;
  options: ExportOptions;
  hooks: ExportHooks;
  state: ExportState;
  /** Ids of records left out of a bulk export so far (rows that refer to them follow them out). */
  leftOut: Set<string>;
  /** "3/7", for the progress line. */
  step: string;
}

/** The collection's read: where it starts (--since), the query, and the pager over every page. */
interface TaskRead {
  start?: StartWindow;
  tracker?: ChangeTracker;
  filter?: string;
  path: string;
  query: ReadQuery;
  pager: Pager;
}

/**
 * One task: its collection read page by page into each file's .partial (one page in memory at a time),
 * then each renamed to its name and noted in the state, so a resumed export keeps it.
 */
async function exportTask(job: TaskExport): Promise<FileResult[]> {
  const read = taskRead(job);
  const outputs: Output[] = job.task.files.map((file) => ({
    file,
    partial: join(job.options.dir, `${file.name}.partial`),
    rows: 0,
    omitted: 0,
    leftOut: [],
  }));
  try {
    await writePages(job, read, outputs);
  } catch (error) {
    await discard(outputs);
    const absent = await leaveOutForbidden(job, error);
    if (absent) return absent;
    throw refused(error, job.task.collection.name, read.filter, read.start?.since); // runExport adds how to resume
  }
  report(read.pager, job.task.collection.path, job.hooks);
  if (read.tracker) {
    warnStamps(read.tracker, job.task.collection.path, job.hooks);
    noteWindow(job, read.tracker);
  }
  return completeFiles(job, read, outputs);
}

function taskRead({ service, task: { collection }, options, hooks }: TaskExport): TaskRead {
  const start = options.since?.starts.get(collection.name);
  const tracker = start && new ChangeTracker(start);
  const filter = start?.since === undefined ? undefined : deltaFilter(start.since);
  const query: ReadQuery = { limit: options.pageSize, ...(filter !== undefined && { filter }) };
  const path = `${service.prefix}/${collection.path}`;
  const plain = pageSender(service, `Reading ${collection.path}`);
  // A delta read takes the server's clock from its first answer: the moment the next --since last starts.
  const send: SendPage = tracker
    ? async (pagePath, pageQuery) => {
        const before = hooks.now();
        const response = await plain(pagePath, pageQuery);
        if (!tracker.clockSet) setClock(tracker, response.headers.date, before, collection.name, hooks);
        return response;
      }
    : plain;
  const pager = new Pager({
    send,
    baseUrl: service.baseUrl,
    maxRecords: service.maxRecords,
    path,
    query,
    wrapper: collection.listKey,
    all: true,
    concurrency: options.concurrency,
    what: collection.path,
    warn: hooks.warn,
    debug: hooks.debug,
  });
  return {
    ...(start && { start }),
    ...(tracker && { tracker }),
    ...(filter !== undefined && { filter }),
    path,
    query,
    pager,
  };
}

/** Every page into the files' .partial, with the progress line; stops at Ctrl-C with the state saved. */
async function writePages(
  { task, options, hooks, state, leftOut, step }: TaskExport,
  read: TaskRead,
  outputs: Output[],
): Promise<void> {
  const { collection } = task;
  const { pager, tracker } = read;
  const names = task.files.map((f) => f.name).join(' and ');
  for (const out of outputs) out.handle = await createFresh(out.partial);
  for (const out of outputs) await put(out, csvLine(out.file.header));
  hooks.progress(`${step} ${names}: reading ${collection.path}…`);
  for await (const page of pager.pages()) {
    const records = tracker ? page.records.filter((record) => tracker.admit(record)) : page.records;
    for (const out of outputs) {
      const lines = rowLines(records, out, out === outputs[0], options.mode === 'bulk', leftOut);
      if (lines.length > 0) await put(out, lines.join(''));
    }
    const total = pager.total === undefined ? '' : ` of ${pager.total}`;
    hooks.progress(
      `${step} ${names}: ${pager.delivered}${total} ${collection.path} read, ${outputs[0]?.rows ?? 0} rows written`,
    );
    if (hooks.signal.aborted) throw interrupted(state);
  }
  await Promise.all(outputs.map((out) => close(out)));
}

/**
 * One file's CSV lines of a page, counted. A bulk file leaves out records to be deleted, and rows that
 * refer to one left out; the task's first file remembers what it left out for the files after it.
 */
function rowLines(
  records: readonly unknown[],
  out: Output,
  first: boolean,
  bulk: boolean,
  leftOut: Set<string>,
): string[] {
  const lines: string[] = [];
  for (const record of records) {
    if (bulk && isToBeDeleted(record)) {
      // Left out of every file of the task; rows of later files that refer to it follow it.
      if (first) {
        out.omitted++;
        remember(record, out, leftOut);
      } else out.omitted += out.file.rows(record).length;
      continue;
    }
    for (const row of out.file.rows(record)) {
      if (bulk && out.file.requires.some((i) => leftOut.has(row[i] ?? ''))) {
        out.omitted++;
        if (first) remember(record, out, leftOut);
        continue;
      }
      lines.push(csvLine(row));
      out.rows++;
    }
  }
  return lines;
}

/** An optional collection this client may not read (HTTP 401/403): its files absent, not a failure. */
async function leaveOutForbidden(
  { task, options, hooks }: TaskExport,
  error: unknown,
): Promise<FileResult[] | undefined> {
  if (!task.optional || !(error instanceof ApiError) || (error.status !== 401 && error.status !== 403))
    return undefined;
  hooks.warn(
    `${task.files.map((f) => f.name).join(', ')} left out: this client may not read ${task.collection.path} (HTTP ${error.status}); the manifest lists it as absent.`,
  );
  await Promise.all(task.files.map((f) => rm(join(options.dir, f.name), { force: true })));
  return task.files.map((f) => ({ name: f.name, rows: 0, status: 'absent', omitted: 0, total: null }));
}

/** --since last: the moment the next export of this collection starts, saved with the package. */
function noteWindow({ task, options, hooks, state }: TaskExport, tracker: ChangeTracker): void {
  if (!options.since?.keyOf) return;
  const { name } = task.collection;
  if (!tracker.clockSet) tracker.setClock(hooks.now(), 'local');
  // Nothing to save (nothing stamped read on a first run): the next export reads everything again.
  const { [name]: _, ...others } = state.windows ?? {};
  const window = tracker.saved(options.since.keyOf(name), hooks.now());
  state.windows = window ? { ...others, [name]: window } : others;
}

/** Each .partial renamed to its file and noted complete in the state. */
async function completeFiles(
  { options, hooks, state }: TaskExport,
  { pager, path, query }: TaskRead,
  outputs: Output[],
): Promise<FileResult[]> {
  const completedAt = new Date(hooks.now()).toISOString();
  const firstQuery = buildQuery(query);
  for (const out of outputs) {
    // A rename replaces whatever is at the name (a planted link included) and never writes through it.
    const final = join(options.dir, out.file.name);
    await rename(out.partial, final).catch((error) => {
      throw fileError(error, final, 'write');
    });
    const done: CompleteFile = {
      rows: out.rows,
      omitted: out.omitted,
      ...(pager.total === undefined ? {} : { total: pager.total }),
      path,
      query: firstQuery,
      completedAt,
      ...(out.leftOut.length ? { leftOut: out.leftOut } : {}),
    };
    state.files[out.file.name] = done;
  }
  await saveState(options.dir, state);
  return outputs.map((out) => ({
    name: out.file.name,
    rows: out.rows,
    status: 'written',
    omitted: out.omitted,
    total: out === outputs[0] ? (pager.total ?? null) : null,
  }));
}

function remember(record: unknown, out: Output, leftOut: Set<string>): void {
  const id = sourcedIdOf(record);
  if (id === undefined || leftOut.has(id)) return;
  leftOut.add(id);
  out.leftOut.push(id);
}

/**
 * Writes a page and waits until it is written: one page in memory at a time. A full disk or an I/O error
 * is a rejection naming the file (a file handle has no 'error' event to go unhandled).
 */
async function put(out: Output, chunk: string): Promise<void> {
  try {
    await out.handle?.writeFile(chunk);
  } catch (error) {
    throw fileError(error, out.partial, 'write');
  }
}

async function close(out: Output): Promise<void> {
  const handle = out.handle;
  out.handle = undefined;
  try {
    await handle?.close();
  } catch (error) {
    throw fileError(error, out.partial, 'write');
  }
}

/** Closes and removes the partial files (freeing the space a full disk needs for the re-run). */
async function discard(outputs: Output[]): Promise<void> {
  await Promise.all(outputs.map((out) => close(out).catch(() => {})));
  await Promise.all(outputs.map((out) => rm(out.partial, { force: true }).catch(() => {})));
}

function completeCount(state: ExportState): string {
  const n = Object.keys(state.files).length;
  return `${n} complete file${n === 1 ? '' : 's'}`;
}

function interrupted(state: ExportState): RosterError {
  return new RosterError(
    'interrupted',
    `Export interrupted: ${completeCount(state)} kept`,
    'Run the same command again to resume; complete files are not read again.',
  );
}

/** The error as it was, plus how to go on: complete files are kept and a re-run resumes. */
function resumable(error: unknown, state: ExportState): unknown {
  if (!(error instanceof RosterError) || error.code === 'interrupted' || error.code === 'usage') return error;
  const hint = `${error.hint ? `${error.hint.replace(/\.?$/, '.')} ` : ''}Then run the same command again to resume (${completeCount(state)} kept).`;
  if (error instanceof ApiError) {
    return new ApiError(error.code as 'api' | 'forbidden' | 'auth', error.status, error.message, hint);
  }
  return new RosterError(error.code, error.message, hint);
}

function report(pager: Pager, what: string, hooks: ExportHooks): void {
  if (pager.repeats > 0) {
    hooks.warn(
      `the server served ${pager.repeats} ${what} more than once (${pager.repeatedIds.join(', ')}); each was written once. Records may have changed during the export: run it again into a new directory to be sure.`,
    );
  }
  if (pager.total !== undefined && pager.delivered < pager.total) {
    hooks.warn(`the server reported ${pager.total} ${what} (X-Total-Count) but served ${pager.delivered}.`);
  }
}
