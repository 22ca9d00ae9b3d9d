// `roster roster export --out DIR`: the district as OneRoster CSV files (oneroster/export.ts does the
// work), with a progress line on a terminal, a summary per file on stderr, and --json on stdout.
import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { loadWindow, type StartWindow, saveWindow, startOf } from '../../oneroster/change-window.js';
import { exportTasks } from '../../oneroster/csv-binding.js';
import { type ExportResult, type ExportSince, runExport } from '../../oneroster/export.js';
import { STATE_FILE } from '../../oneroster/export-state.js';
import {
  DEFAULT_CONCURRENCY,
  DEFAULT_PAGE_SIZE,
  MAX_CONCURRENCY,
  MAX_PAGE_SIZE,
} from '../../oneroster/read-limits.js';
import { type OneRosterService, onerosterService } from '../../oneroster/service.js';
import { isoUtc, parseSince, type Since } from '../../oneroster/since.js';
import { startProgress } from '../../output/progress.js';
import { printJson } from '../../output/render.js';
import type { Settings } from '../../settings.js';
import { parseCount } from '../../values.js';
import { examples } from '../common.js';

interface ExportFlags {
  out?: string;
  zip?: boolean;
  delta?: boolean;
  since?: string;
  pageSize?: string;
  concurrency?: string;
  force?: boolean;
  json?: boolean;
}

/** `roster roster export`: the district's files written to --out (resumed when the directory holds a partial export). */
export async function run(flags: ExportFlags, ctx: Context): Promise<ExportResult> {
  if (flags.out === undefined || flags.out.trim() === '') {
    throw new UsageError('roster roster export needs --out DIR.', 'e.g. roster roster export --out ./export');
  }
  const since = flags.since === undefined ? undefined : parseSince(flags.since, ctx.now());
  const dir = resolve(flags.out);
  const pageSize = parseCount('--page-size', flags.pageSize, 1, MAX_PAGE_SIZE) ?? DEFAULT_PAGE_SIZE;
  const concurrency =
    parseCount('--concurrency', flags.concurrency, 1, MAX_CONCURRENCY) ?? DEFAULT_CONCURRENCY;
  const session = await ctx.session();
  const service = onerosterService(session);
  const changesOnly = since && (await exportSince(ctx, since, dir, service, session.settings));
  const progress = await startProgress(ctx, `Exporting OneRoster ${service.version}…`);
  try {
    return await runExport(
      service,
      {
        dir,
        mode: flags.delta || since ? 'delta' : 'bulk',
        zip: Boolean(flags.zip),
        pageSize,
        concurrency,
        force: Boolean(flags.force),
        ...(changesOnly && { since: changesOnly }),
      },
      {
        signal: ctx.trapInterrupt(),
        progress: (text) => progress.update(text),
        info: (line) => ctx.log.info(line),
        warn: (line) => ctx.log.warn(line),
        debug: (line) => ctx.log.debug(line),
        now: ctx.now,
      },
    );
  } finally {
    progress.stop();
  }
}

export function register(group: Command, ctx: Context): void {
  const command = group
    .command('export')
    .summary('the whole district as OneRoster CSV files, with manifest.csv (resumable)')
    .description(
      `Export orgs, academic sessions, courses, classes, users, enrollments and (when permitted) demographics as the OneRoster CSV binding's files, plus roles.csv for 1.2 and manifest.csv. Each file is streamed to <file>.partial and renamed when complete; ${STATE_FILE} in the directory records complete files, so running the same command again after Ctrl-C (or SIGTERM, SIGHUP: exit 130) or a failure reads only what is missing. Bulk files (the default) leave status and dateLastModified blank and leave out records marked tobedeleted (and rows that refer to them); --delta keeps every record with both fields. --since WHEN writes a delta package of only the records changed since then (status and dateLastModified filled; a file without changes is left out and marked absent in the manifest); --since last continues from the previous --since last export to the same directory, and a failed export saves nothing.`,
    )
    .option('--out <dir>', 'directory to write the files to (created if missing)')
    .option('--zip', 'also write oneroster-<version>.zip with the manifest and the files')
    .option('--delta', 'delta files: every record, with status and dateLastModified (default: bulk)')
    .option(
      '--since <when>',
      'a delta package of the changes only: ISO 8601 time, duration (24h, 7d) or last (the previous --since last export to this directory)',
    )
    .option('--page-size <n>', `records per request (default ${DEFAULT_PAGE_SIZE})`)
    .option(
      '--concurrency <n>',
      `pages in flight when the server sends X-Total-Count (default ${DEFAULT_CONCURRENCY}, max ${MAX_CONCURRENCY})`,
    )
    .option('--force', 'replace an export of another district, version or mode in the directory')
    .option(
      '--json',
      'the summary as JSON on stdout: {dir, version, mode, files: [{name, rows, status}], zip}',
    )
    .action(async (flags: ExportFlags) => {
      const result = await run(flags, ctx);
      for (const line of summary(result)) ctx.log.info(line);
      if (flags.json) printJson(ctx, result);
    });
  examples(command, [
    '# On a terminal',
    'roster roster export --out ./export',
    'roster --oneroster 1.2 roster export --out ./export-1.2 --zip',
    '# In a script (exit 130 or 1: run it again to resume)',
    'roster roster export --out ./export --zip --json > export.json',
    '# Nightly: a OneRoster delta package of what changed since the last one written there',
    'roster roster export --out ./nightly --since last --zip',
  ]);
}

/** Where each collection of a --since export starts; --since last reads the moments saved for this directory. */
async function exportSince(
  ctx: Context,
  since: Since,
  dir: string,
  service: OneRosterService,
  settings: Settings,
): Promise<ExportSince> {
  const names = exportTasks(service.version, 'delta').map((task) => task.collection.name);
  const starts = new Map<string, StartWindow>();
  if (since.kind === 'time') {
    for (const name of names) starts.set(name, { since: since.at, seen: new Map() });
    return { starts, relative: since.relative };
  }
  const keyOf = (collection: string) => ({
    command: 'export' as const,
    profile: settings.profileName,
    baseUrl: service.baseUrl,
    clientId: settings.clientId ?? '',
    version: service.version,
    collection,
    destination: dir,
  });
  for (const name of names) starts.set(name, startOf(await loadWindow(ctx.paths.stateDir, keyOf(name))));
  const first = names.filter((name) => starts.get(name)?.since === undefined);
  if (first.length > 0) {
    ctx.log.info(
      `No saved moment for ${first.join(', ')} in exports to ${dir}: this first --since last export holds every record.`,
    );
  }
  return {
    starts,
    relative: true,
    keyOf,
    save: async (windows) => {
      for (const window of windows) await saveWindow(ctx.paths.stateDir, window);
    },
  };
}

export function summary(result: ExportResult): string[] {
  const width = Math.max(...result.files.map((f) => f.name.length));
  const digits = Math.max(...result.files.map((f) => String(f.rows).length));
  const lines = result.files.map((f) => {
    const name = f.name.padEnd(width);
    if (f.status === 'absent') return `  ${name}  absent (not permitted)`;
    if (f.status === 'unchanged') return `  ${name}  absent (no changes)`;
    const notes = [
      ...(f.status === 'kept' ? ['complete from the earlier run'] : []),
      ...(f.omitted > 0 ? [`${f.omitted} left out: tobedeleted or referring to one`] : []),
    ];
    return `  ${name}  ${String(f.rows).padStart(digits)} rows${notes.length ? ` (${notes.join('; ')})` : ''}`;
  });
  const moments = [...new Set(Object.values(result.since ?? {}))];
  const changes = !result.since
    ? ''
    : moments.length === 1 && moments[0] !== null
      ? `, changes since ${isoUtc(Date.parse(moments[0] as string))}`
      : moments.every((m) => m === null)
        ? ', every record (first --since last)'
        : ', changes since the last export';
  return [
    `Exported OneRoster ${result.version} (${result.mode}${changes}) to ${result.dir}:`,
    ...lines,
    ...(result.zip ? [`  ${result.zip}`] : []),
  ];
}
