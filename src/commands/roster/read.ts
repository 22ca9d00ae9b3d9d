// `roster roster <collection> [SOURCED_ID]`: one command shape for every OneRoster collection, driven by
// the table in oneroster/collections.ts. A list is streamed page by page to the chosen writer; a single
// read prints one record.
import { type Command, Option } from 'commander';
import { offerHiddenCommand } from '../../completion/model.js';
import type { Context } from '../../context.js';
import { ApiError, UsageError } from '../../errors.js';
import { keepHeapSmall } from '../../heap.js';
import { collectionPager, readRecord } from '../../oneroster/collection-read.js';
import { type Collection, nestedRead, type ParentFlag, parentFlagsOf } from '../../oneroster/collections.js';
import type { Pager } from '../../oneroster/pager.js';
import {
  buildQuery,
  checkFilter,
  checkSortField,
  encodePathSegment,
  parseFieldList,
  type ReadQuery,
} from '../../oneroster/query.js';
import {
  DEFAULT_CONCURRENCY,
  DEFAULT_PAGE_SIZE,
  MAX_CONCURRENCY,
  MAX_PAGE_SIZE,
} from '../../oneroster/read-limits.js';
import { columnReader, columnValues } from '../../oneroster/records.js';
import { type OneRosterService, onerosterService } from '../../oneroster/service.js';
import {
  type RecordColumn,
  type RecordFormat,
  type RecordPage,
  writeRecords,
} from '../../output/record-stream.js';
import { printFields, printJson } from '../../output/render.js';
import { fieldShrink } from '../../output/table.js';
import { hiddenCharacter, printable } from '../../values.js';
import { choice, count, examples } from '../common.js';

const ORDER_BY = ['asc', 'desc'] as const;

/**
 * Records the sandbox serves (`roster sandbox`, its school year as of 2026-27), so that every example of
 * a help runs against it as written (test/e2e/help-examples.test.ts).
 */
const SANDBOX_ID: Record<string, string> = {
  students: 'stu-000001',
  teachers: 'tch-00001',
  users: 'stu-000001',
  schools: 'org-sch-1',
  orgs: 'org-district',
  classes: 'cls-1-KG-MATH-01',
  courses: 'crs-1-KG-MATH',
  enrollments: 'enr-stu-000001-MATH',
  'academic-sessions': 'as-2026-27',
  terms: 'as-2026-27-t1',
  'grading-periods': 'as-2026-27-gp1',
  demographics: 'stu-000001',
};
const SANDBOX_PARENT: Record<string, string> = { school: 'org-sch-1', class: 'cls-1-KG-MATH-01' };

/** The standard bounds no sourcedId; a longer one is a pasted blob, and would make a URL servers refuse. */
const MAX_SOURCED_ID_LENGTH = 1000;

/** Flags as commander hands them over, each value checked and parsed by its argParser (register). */
export interface ReadFlags {
  limit?: number;
  offset?: number;
  sort?: string;
  orderBy?: 'asc' | 'desc';
  filter?: string;
  fields?: string[];
  all?: boolean;
  pageSize?: number;
  concurrency?: number;
  columns?: string[];
  json?: boolean;
  ndjson?: boolean;
  csv?: boolean;
  escapeFormulas?: boolean;
  excel?: boolean;
  school?: string;
  class?: string;
  term?: string;
  course?: string;
  student?: string;
  teacher?: string;
  user?: string;
}

export interface ReadOptions {
  collection: Collection;
  /** A single read of this record. */
  id?: string;
  parents: Partial<Record<ParentFlag, string>>;
  query: ReadQuery;
  all: boolean;
  concurrency: number;
  format: RecordFormat;
  /** --escape-formulas: CSV cells a spreadsheet would run get a leading '. */
  escapeFormulas: boolean;
  /** --excel: the CSV starts with a UTF-8 BOM (and formulas are escaped), for a double-click in Excel. */
  excel: boolean;
  /** Explicit --columns (else the collection's defaults, or --fields). */
  columns?: string[];
}

export interface ReadSummary {
  records: number;
  total?: number;
  pages: number;
  repeats: number;
}

/**
 * The flags together, each already checked by its argParser: what goes with what. Everything wrong here is
 * a usage error and nothing is sent.
 */
export function parseReadOptions(
  collection: Collection,
  id: string | undefined,
  flags: ReadFlags,
  stdoutIsTTY: boolean,
): ReadOptions {
  const format = formatOf(flags, stdoutIsTTY);
  const parents = parentsOf(collection, flags);
  checkPaging(flags);
  if (id !== undefined) checkSingleRead(collection, flags, Object.keys(parents));
  const query: ReadQuery = {
    limit: flags.all ? (flags.pageSize ?? DEFAULT_PAGE_SIZE) : flags.limit,
    offset: flags.offset,
    ...(flags.sort !== undefined && { sort: flags.sort }),
    ...(flags.orderBy !== undefined && { orderBy: flags.orderBy }),
    ...(flags.filter !== undefined && { filter: flags.filter }),
    ...(flags.fields !== undefined && { fields: flags.fields }),
  };
  return {
    collection,
    ...(id === undefined ? {} : { id: checkId('the sourcedId', id) }),
    parents,
    query,
    all: Boolean(flags.all),
    concurrency: flags.concurrency ?? DEFAULT_CONCURRENCY,
    format,
    escapeFormulas: Boolean(flags.escapeFormulas),
    excel: Boolean(flags.excel),
    ...(flags.columns === undefined ? {} : { columns: flags.columns }),
  };
}

/** One of --json, --ndjson and --csv (else a table on a terminal, TSV in a pipe), and what goes with it. */
function formatOf(flags: ReadFlags, stdoutIsTTY: boolean): RecordFormat {
  const formats = (['json', 'ndjson', 'csv'] as const).filter((f) => flags[f]);
  if (formats.length > 1) throw new UsageError(`Choose one of ${formats.map((f) => `--${f}`).join(', ')}.`);
  const format: RecordFormat = formats[0] ?? (stdoutIsTTY ? 'table' : 'tsv');
  // --excel first: it implies --escape-formulas (register), and the one typed is the one to name.
  if (flags.excel && format !== 'csv') throw new UsageError('--excel goes with --csv.');
  if (flags.escapeFormulas && format !== 'csv') throw new UsageError('--escape-formulas goes with --csv.');
  if (flags.columns !== undefined && (format === 'json' || format === 'ndjson'))
    throw new UsageError(
      `--columns chooses the columns of a table or CSV; --${format} prints every field (--fields asks the server for fewer).`,
    );
  return format;
}

/** The parent flags given (--school, --class, …), if the collection has a nested read below them. */
function parentsOf(collection: Collection, flags: ReadFlags): Partial<Record<ParentFlag, string>> {
  const parents: Partial<Record<ParentFlag, string>> = {};
  for (const parent of parentFlagsOf(collection)) {
    const value = flags[parent];
    if (value !== undefined) parents[parent] = value;
  }
  const given = Object.keys(parents) as ParentFlag[];
  if (given.length > 0 && !nestedRead(collection, given)) {
    throw new UsageError(
      `${given.map((p) => `--${p}`).join(' and ')} cannot be combined for ${collection.name}.`,
      `Nested reads: ${collection.nested.map((n) => n.parents.map((p) => `--${p}`).join(' + ')).join(', ')}.`,
    );
  }
  return parents;
}

/** One page (--limit) or every page (--all with --page-size and --concurrency); --order-by with --sort. */
function checkPaging(flags: ReadFlags): void {
  if (flags.limit !== undefined && flags.all) {
    throw new UsageError(
      '--limit is the size of the one page read without --all; with --all use --page-size.',
    );
  }
  if (flags.pageSize !== undefined && !flags.all) {
    throw new UsageError('--page-size goes with --all; to read one page of N records use --limit N.');
  }
  if (flags.concurrency !== undefined && !flags.all) throw new UsageError('--concurrency goes with --all.');
  if (flags.orderBy !== undefined && flags.sort === undefined)
    throw new UsageError('--order-by needs --sort FIELD.');
}

/** A single read by sourcedId takes --fields and the output flags, not a list's. */
function checkSingleRead(collection: Collection, flags: ReadFlags, parents: string[]): void {
  const listOnly = (['limit', 'offset', 'sort', 'orderBy', 'filter', 'all'] as const).filter(
    (f) => flags[f] !== undefined,
  );
  if (listOnly.length === 0 && parents.length === 0) return;
  const names = [...listOnly.map(kebab), ...parents].map((f) => `--${f}`).join(', ');
  throw new UsageError(`${names} cannot be used when reading one ${collection.noun} by sourcedId.`);
}

const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

function checkId(what: string, id: string): string {
  if (id.trim() === '' || id === '.' || id === '..') {
    throw new UsageError(`Invalid ${what} "${printable(id, 40)}".`);
  }
  const hidden = hiddenCharacter(id);
  if (hidden) throw new UsageError(`Invalid ${what} "${printable(id, 40)}": it contains ${hidden}.`);
  if (id.length > MAX_SOURCED_ID_LENGTH) {
    throw new UsageError(
      `Invalid ${what} "${printable(id, 40)}": too long (${id.length} characters; at most ${MAX_SOURCED_ID_LENGTH}).`,
    );
  }
  return id;
}

/** The columns a table or CSV shows: --columns, else --fields (table), else the collection's own. */
export function columnsFor(
  collection: Collection,
  options: ReadOptions,
  version: '1.1' | '1.2',
): RecordColumn[] {
  const names =
    options.columns ??
    (options.format === 'csv' ? collection.csv[version] : (options.query.fields ?? collection.columns));
  return names.map((name) => ({ header: name, values: columnReader(name), shrink: fieldShrink(name) }));
}

/** What a read hands to the renderer: one record, or the pages of a list as they arrive. */
export type ReadResult =
  | { kind: 'record'; record: Record<string, unknown>; columns: RecordColumn[] }
  | {
      kind: 'list';
      columns: RecordColumn[];
      /** Read while the renderer consumes them: one page in memory at a time, however long the list. */
      pages: AsyncIterable<RecordPage>;
      /** Once the pages are written: the read's warnings and notes on stderr, and its figures. */
      finish(): ReadSummary;
    };

/**
 * `roster roster <collection>`: the run's OneRoster service; a --school given by name or identifier is
 * looked up first (as `invite send` and `invite plan` take it), then read below its sourcedId.
 */
export async function run(options: ReadOptions, ctx: Context): Promise<ReadResult> {
  const session = await ctx.session();
  if (options.parents.school !== undefined) {
    const { SchoolDirectory } = await import('../../schools/directory.js');
    const schools = new SchoolDirectory(ctx, session);
    const school = await schools.sourcedIdFor('--school', options.parents.school);
    options = { ...options, parents: { ...options.parents, school } };
  }
  return readFrom(options, onerosterService(session), ctx);
}

/** The read through this service: the record of a single read, or a list's pages (read lazily). */
export async function readFrom(
  options: ReadOptions,
  service: OneRosterService,
  ctx: Context,
): Promise<ReadResult> {
  const { collection } = options;
  const columns = columnsFor(collection, options, service.version);
  if (options.id !== undefined) {
    const record = await readOne(collection, options.id, options, service, ctx);
    return { kind: 'record', record, columns };
  }
  const nested = nestedRead(collection, Object.keys(options.parents) as ParentFlag[]);
  const below = nested
    ? nested.path.replace(/\{(\w+)\}/g, (_, name: ParentFlag) =>
        encodePathSegment(options.parents[name] ?? ''),
      )
    : collection.path;
  if (options.all) await keepHeapSmall((line) => ctx.log.debug(line));
  const pager = collectionPager(service, collection, {
    below,
    query: options.query,
    all: options.all,
    concurrency: options.concurrency,
    warn: (line) => ctx.log.warn(line),
    debug: (line) => ctx.log.debug(line),
    withTexts: options.format === 'ndjson' || options.format === 'json',
  });
  return {
    kind: 'list',
    columns,
    pages: pagesWithProgress(pager, ctx, options),
    finish: () => {
      report(ctx, pager, collection, options);
      return { records: pager.delivered, total: pager.total, pages: pager.pagesRead, repeats: pager.repeats };
    },
  };
}

/** The pager's pages, with the progress line updated after each is written and cleared at the end. */
async function* pagesWithProgress(
  pager: Pager,
  ctx: Context,
  options: ReadOptions,
): AsyncIterable<RecordPage> {
  const progress = progressLine(ctx, options, options.collection.name);
  try {
    for await (const page of pager.pages()) {
      yield page;
      progress.update(pager.delivered, pager.total);
    }
  } catch (error) {
    progress.clear();
    throw explain(error, options.collection, options);
  }
  progress.clear();
}

/** The read as the format says: the renderers of output/ (a list streamed page by page). */
export async function showRead(ctx: Context, options: ReadOptions, result: ReadResult): Promise<ReadSummary> {
  const writerOptions = { escapeFormulas: options.escapeFormulas, excelBom: options.excel };
  if (result.kind === 'list') {
    ctx.stopWhenOutputCloses?.();
    const watched = options.columns && watchForValues(result.columns);
    await writeRecords(ctx, options.format, watched?.columns ?? result.columns, result.pages, writerOptions);
    const summary = result.finish();
    if (watched && summary.records > 0) warnEmptyColumns(ctx, options, watched.empty());
    return summary;
  }
  const { record } = result;
  if (options.format === 'json') printJson(ctx, record);
  else if (options.format === 'table' || options.format === 'tsv') {
    const names = options.columns ?? Object.keys(record);
    printFields(
      ctx,
      names.map((name) => [name, columnValues(record, name).join(', ')]),
    );
  } else await writeRecords(ctx, options.format, result.columns, [{ records: [record] }], writerOptions);
  const empty = options.columns?.filter((name) => !columnValues(record, name).some((v) => v !== ''));
  if (empty) warnEmptyColumns(ctx, options, empty);
  return { records: 1, pages: 1, repeats: 0 };
}

/** Columns of --columns that no record had a value in: a typo as often as not, or a field --fields left out. */
function warnEmptyColumns(ctx: Context, options: ReadOptions, empty: string[]): void {
  if (empty.length === 0) return;
  const { fields } = options.query;
  const why = fields
    ? `--fields asked the server for ${fields.map((f) => printable(f, 80)).join(', ')} only`
    : "names are case-sensitive; `--limit 1 --json` shows a record's fields";
  ctx.log.warn(
    `--columns ${empty.map((c) => printable(c, 80)).join(', ')}: no record had a value there (${why}).`,
  );
}

/** The columns asked for by name, each noting whether any record had a value in it: a typo stays empty. */
function watchForValues(columns: RecordColumn[]): { columns: RecordColumn[]; empty(): string[] } {
  const filled = new Set<string>();
  return {
    columns: columns.map((column) => ({
      ...column,
      values: (record) => {
        const values = column.values(record);
        if (values.some((v) => v !== '')) filled.add(column.header);
        return values;
      },
    })),
    empty: () => columns.map((c) => c.header).filter((header) => !filled.has(header)),
  };
}

async function readOne(
  collection: Collection,
  id: string,
  options: ReadOptions,
  service: OneRosterService,
  ctx: Context,
): Promise<Record<string, unknown>> {
  const query = buildQuery({ fields: options.query.fields });
  try {
    return (await readRecord(service, collection, id, query, (line) => ctx.log.debug(line))).record;
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) {
      throw new ApiError(
        'api',
        404,
        `${capitalise(collection.noun)} "${printable(id, 60)}" not found (HTTP 404: ${serverDetail(error)})`,
        `Check the sourcedId, and that it is a ${collection.noun} (OneRoster ${service.version}).`,
      );
    }
    throw explain(error, collection, options);
  }
}

/** Adds what the user can do about a list read's error answer. */
function explain(error: unknown, collection: Collection, options: ReadOptions): unknown {
  if (!(error instanceof ApiError) || error.hint) return error;
  const parents = Object.entries(options.parents);
  if (error.status === 404 && parents.length > 0) {
    const names = parents.map(([flag, id]) => `${flag} "${printable(id ?? '', 60)}"`).join(' or ');
    return new ApiError('api', 404, `${capitalise(names)} not found (HTTP 404: ${serverDetail(error)})`);
  }
  if (error.status === 404) {
    return new ApiError(
      error.code as 'api',
      404,
      error.message,
      `This server may not serve ${collection.path}; check --oneroster and the profile's OneRoster path prefix.`,
    );
  }
  if (error.status === 400 && options.query.filter !== undefined) {
    return new ApiError(
      error.code as 'api',
      400,
      error.message,
      "Check --filter: field<op>'value' with = != > >= < <= or ~, at most one AND or OR.",
    );
  }
  return error;
}

/** The server's own words from an ApiError message ("… failed (HTTP 404): <detail>"). */
function serverDetail(error: ApiError): string {
  return error.message.replace(/^.*?\(HTTP \d+\):\s*/, '').replace(/\.$/, '');
}

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

function report(ctx: Context, pager: Pager, collection: Collection, options: ReadOptions): void {
  if (pager.repeats > 0) {
    ctx.log.warn(
      `the server served ${pager.repeats} ${collection.name} more than once (${pager.repeatedIds.join(', ')}${pager.repeats > pager.repeatedIds.length ? ', …' : ''}); each was written once. Records may have changed during the read, so some may be missing: run it again to be sure.`,
    );
  }
  const start = options.query.offset ?? 0;
  const total = pager.total;
  if (options.all && total !== undefined && start === 0 && pager.delivered < total) {
    ctx.log.warn(
      `the server reported ${total} ${collection.name} (X-Total-Count) but served ${pager.delivered}.`,
    );
  }
  if (!options.all && options.format === 'table' && total !== undefined && start + pager.delivered < total) {
    ctx.log.info(
      `Showing ${pager.delivered} of ${total} ${collection.name}. Use --all for every page, or --offset ${start + pager.delivered} for the next.`,
    );
  }
}

/** "Read 12000 of 200000 students…" on a terminal stderr while an export goes to a file or pipe. */
function progressLine(ctx: Context, options: ReadOptions, name: string) {
  const enabled = options.all && ctx.io.stderrIsTTY && !ctx.io.stdoutIsTTY;
  let last = 0;
  let shown = false;
  return {
    update(done: number, total: number | undefined) {
      const now = ctx.now();
      if (!enabled || now - last < 200) return;
      last = now;
      shown = true;
      ctx.io.stderr.write(`\rRead ${done}${total === undefined ? '' : ` of ${total}`} ${name}…\u001b[K`);
    },
    clear() {
      if (shown) ctx.io.stderr.write('\r\u001b[K');
    },
  };
}

/**
 * `roster roster <collection>`, or with `shortcut` the same command at the top level (`roster students`,
 * the name admins type first): left out of `roster --help`, which says so on its `roster` line, and
 * offered by completion.
 */
export function register(group: Command, ctx: Context, collection: Collection, shortcut = false): void {
  const read = `List ${collection.summary}, or read one by sourcedId (GET …/${collection.path}[/{sourcedId}]).`;
  const command = group
    .command(`${collection.name} [sourcedId]`, { hidden: shortcut })
    .summary(
      shortcut ? `${collection.summary} (alias of roster roster ${collection.name})` : collection.summary,
    )
    .description(
      shortcut
        ? `Alias of roster roster ${collection.name}. ${read}`
        : `${read} Also: roster ${collection.name}.`,
    );
  declareListFlags(command);
  declareOutputFlags(command, collection);
  declareParentFlags(command, collection);
  if (shortcut) offerHiddenCommand(command);
  command.action(async (id: string | undefined, flags: ReadFlags) => {
    const options = parseReadOptions(collection, id, flags, ctx.io.stdoutIsTTY);
    await showRead(ctx, options, await run(options, ctx));
  });
  const first = parentFlagsOf(collection)[0];
  examples(command, [
    `roster roster ${collection.name}`,
    `roster roster ${collection.name} --all --ndjson > ${collection.name}.ndjson`,
    `roster roster ${collection.name} --all --csv --oneroster 1.2 > ${collection.path}.csv`,
    `roster roster ${collection.name} --all --csv --excel > ${collection.name}-for-excel.csv`,
    ...(collection.listKey === 'users'
      ? [`roster roster ${collection.name} --filter "givenName='Zoë'"`]
      : []),
    ...(first
      ? [`roster roster ${collection.name} --${first} ${SANDBOX_PARENT[first] ?? 'SOURCED_ID'} --all`]
      : []),
    `roster roster ${collection.name} ${SANDBOX_ID[collection.name] ?? 'SOURCED_ID'} --json`,
  ]);
}

/** The flags of a list read: its page or pages, their order and filter, and the fields asked for. */
function declareListFlags(command: Command): void {
  command
    .option(
      '--limit <n>',
      'records in the one page read (server default without it)',
      count('--limit', 1, MAX_PAGE_SIZE),
    )
    .option('--offset <n>', 'skip this many records first', count('--offset', 0, Number.MAX_SAFE_INTEGER))
    .option('--sort <field>', 'sort by this field', checkSortField)
    .option('--order-by <dir>', 'asc or desc (with --sort)', choice('--order-by', ORDER_BY, 20))
    .option('--filter <expr>', 'OneRoster filter, e.g. "familyName=\'Jones\'" (one AND or OR)', checkFilter)
    .option('--fields <list>', 'ask the server for these fields only (comma-separated)', (list) =>
      parseFieldList('--fields', list),
    )
    .option('--all', 'follow pagination to the end')
    .option(
      '--page-size <n>',
      `records per request with --all (default ${DEFAULT_PAGE_SIZE})`,
      count('--page-size', 1, MAX_PAGE_SIZE),
    )
    .option(
      '--concurrency <n>',
      `pages in flight with --all when the server sends X-Total-Count (default ${DEFAULT_CONCURRENCY}, max ${MAX_CONCURRENCY})`,
      count('--concurrency', 1, MAX_CONCURRENCY),
    );
}

/** The output flags: the columns, and one of --json, --ndjson and --csv (with what goes with --csv). */
function declareOutputFlags(command: Command, collection: Collection): void {
  command
    .option(
      '--columns <list>',
      'columns of the table or CSV (fields, dotted paths, CSV binding names)',
      (list) => parseFieldList('--columns', list),
    )
    .option('--json', 'one JSON array (a single read: the record)')
    .option('--ndjson', 'one JSON record per line, streamed')
    .option('--csv', `CSV with the OneRoster CSV binding's columns for ${collection.path}`)
    .option(
      '--escape-formulas',
      "with --csv: a leading ' on cells starting with = + - @, a tab or a carriage return, so a spreadsheet shows them rather than running them as formulas",
    )
    .addOption(
      new Option(
        '--excel',
        'with --csv: a file for Excel: a UTF-8 BOM first (accented names survive a double-click) and --escape-formulas',
      ).implies({ escapeFormulas: true }),
    );
}

/** --school, --class, …: the nested reads of the collection, each value a sourcedId (a school's name too). */
function declareParentFlags(command: Command, collection: Collection): void {
  for (const parent of parentFlagsOf(collection)) {
    const paths = collection.nested.filter((n) => n.parents.includes(parent)).map((n) => n.path);
    const value = parent === 'school' ? '<school>' : '<sourcedId>';
    const what = parent === 'school' ? 'this school (sourcedId, name or identifier)' : `this ${parent}`;
    command.option(`--${parent} ${value}`, `read them below ${what}: ${paths.join(', ')}`, (id) =>
      checkId(`--${parent}`, id),
    );
  }
}
