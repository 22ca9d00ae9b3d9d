// `roster invite list`: GET /enrollment/invitations (spec §4.6). The spec names no query parameters; the
// named flags are the sandbox's (page, perPage, schoolId, email, sentByUserId) and --param passes any other.
import type { Command } from 'commander';
import type { InvitationPage } from '../../api/enrollment.js';
import { isRecord } from '../../api/errors.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { keepHeapSmall } from '../../heap.js';
import { isValidEmail } from '../../invite/invitation.js';
import { invitationPages } from '../../invite/invitation-pages.js';
import { writeWithBackpressure } from '../../io.js';
import { stringify } from '../../output/json-text.js';
import { createRecordWriter, type RecordColumn, type RecordWriter } from '../../output/record-stream.js';
import { type Column, cellText, printJson, printTable } from '../../output/render.js';
import { jsonText } from '../../output/safe-text.js';
import { fieldShrink } from '../../output/table.js';
import type { Session } from '../../session.js';
import { hiddenCharacter, parseCount, printable } from '../../values.js';
import { examples, repeatable } from '../common.js';

export interface ListOptions {
  schoolId?: string;
  email?: string;
  sentByUserId?: string;
  page?: string;
  perPage?: string;
  param?: string[];
  all?: boolean;
  json?: boolean;
  ndjson?: boolean;
}

export function buildQuery(options: ListOptions): URLSearchParams {
  const query = new URLSearchParams();
  const named: [string, string, string | undefined][] = [
    ['--school-id', 'schoolId', options.schoolId],
    ['--email', 'email', options.email],
    ['--sent-by-user-id', 'sentByUserId', options.sentByUserId],
    ['--page', 'page', positive('--page', options.page)],
    ['--per-page', 'perPage', positive('--per-page', options.perPage)],
  ];
  for (const [flag, name, value] of named) {
    if (value === undefined) continue;
    if (value === '') throw new UsageError(`${flag} needs a value.`);
    const hidden = hiddenCharacter(value);
    if (hidden) throw new UsageError(`Invalid ${flag} "${printable(value, 60)}": it contains ${hidden}.`);
    if (name === 'email' && !isValidEmail(value)) {
      throw new UsageError(
        `Invalid --email "${printable(value, 60)}": not a valid e-mail address, so no invitation can match it.`,
      );
    }
    query.set(name, value);
  }
  for (const pair of options.param ?? []) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`Invalid --param "${pair.slice(0, 60)}": use key=value.`);
    const key = pair.slice(0, eq);
    if (query.has(key) && named.some(([, name]) => name === key)) {
      throw new UsageError(`--param ${key}=… repeats a named flag; give ${key} once.`);
    }
    query.append(key, pair.slice(eq + 1));
  }
  return query;
}

/** A page number or size as the query sends it. */
const positive = (flag: string, value: string | undefined) =>
  parseCount(flag, value, 1, 999_999_999)?.toString();

/**
 * Fetches one page, or every page from --page on with --all, and hands each page's records to `onPage` as
 * it comes: nothing is kept, so a list of any length costs one page of memory. Resolves with the last page.
 */
export async function run(
  options: ListOptions,
  session: Session,
  onPage: (data: unknown[]) => Promise<void>,
): Promise<InvitationPage & { pages: number; records: number }> {
  let last: (InvitationPage & { pages: number }) | undefined;
  let records = 0;
  for await (const page of invitationPages(session, buildQuery(options), Boolean(options.all))) {
    await onPage(page.data);
    records += page.data.length;
    last = page;
  }
  // invitationPages yields at least one page.
  return { ...(last as InvitationPage & { pages: number }), records };
}

/**
 * What a terminal shows, as gh does: the few fields an admin reads first, each whole, with every field a
 * --json away. The spec shows no field of an invitation record (§2.6): these are the request's (§2.4) as
 * the records carry them back, and the status and time the sandbox adds to them.
 */
const TERMINAL_FIELDS: { field: string; header: string }[] = [
  { field: 'email', header: 'email' },
  { field: 'schoolId', header: 'school' },
  { field: 'studentCount', header: 'students' },
  { field: 'status', header: 'status' },
  { field: 'createdAt', header: 'created' },
];

/**
 * The terminal's columns: those of TERMINAL_FIELDS some record fills, under short headers; records without
 * any of them (another server's names) get every column some record fills.
 */
export function terminalColumnsOf(records: unknown[], schoolLabel?: SchoolLabel): Column<unknown>[] {
  const filled = columnsOf(records).filter((c) => records.some((r) => cellText(c.value(r)) !== ''));
  const chosen = TERMINAL_FIELDS.flatMap(({ field, header }) => {
    const column = filled.find((c) => c.header === field);
    if (column && field === 'schoolId' && schoolLabel) return [namedSchool(column, schoolLabel)];
    return column ? [{ ...column, header }] : [];
  });
  return chosen.length > 0 ? chosen : filled;
}

type SchoolLabel = (sourcedId: string) => string | undefined;

/** The school column by name (a name gives way to a narrow terminal), the id where the list has none. */
function namedSchool(column: Column<unknown>, label: SchoolLabel): Column<unknown> {
  return {
    header: 'school',
    value: (r) => {
      const id = column.value(r);
      return (typeof id === 'string' && label(id)) || id;
    },
    shrink: 'end',
  };
}

/** The district's schools' labels, read (or taken from the day's cache) for a terminal's table. */
async function schoolLabels(ctx: Context, session: Session): Promise<SchoolLabel> {
  const { SchoolDirectory } = await import('../../schools/directory.js');
  return new SchoolDirectory(ctx, session).labels();
}

/** Columns from the records themselves, in the order their fields first appear. */
export function columnsOf(records: unknown[]): Column<unknown>[] {
  if (!records.every(isRecord)) return [{ header: 'value', value: (r) => r }];
  const names = [...new Set(records.flatMap((r) => Object.keys(r)))];
  return names.map((name) => ({
    header: name,
    value: (r) => (r as Record<string, unknown>)[name],
    shrink: fieldShrink(name),
  }));
}

export function register(invite: Command, ctx: Context): void {
  const command = invite
    .command('list')
    .summary('list enrollment invitations')
    .description(
      'List enrollment invitations (spec §4.6). On a terminal, a table of what to read first: email, ' +
        'school, students, status and created (local time). --json, --ndjson or a pipe give every field ' +
        'of every record.',
    )
    .option('--school-id <school>', 'only this school: its sourcedId, name or identifier (schoolId)')
    .option('--email <address>', 'only this recipient (email)')
    .option('--sent-by-user-id <id>', 'only invitations attributed to this user (sentByUserId)')
    .option('--page <n>', 'page to show (page, from 1)')
    .option('--per-page <n>', 'records per page (perPage)')
    .option('--param <key=value>', 'any other query parameter, repeatable', repeatable)
    .option('--all', 'follow every page (from --page on)')
    .option(
      '--json',
      "print the server's body unchanged, every field (with --all: every page's data, the last meta)",
    )
    .option('--ndjson', 'print one record per line with every field, streamed')
    .action(async (options: ListOptions) => list(options, ctx));
  examples(command, [
    'roster invite list --school-id org-sch-1',
    'roster invite list --school-id "Alder Elementary School"',
    'roster invite list --email parent@example.org --json',
    'roster invite list --all --ndjson | jq -r .email',
    'roster invite list --param status=sent --per-page 100',
  ]);
}

/** The list read and shown: flags checked, pages streamed to the output the flags choose. */
async function list(options: ListOptions, ctx: Context): Promise<void> {
  if (options.json && options.ndjson) throw new UsageError('Choose one of --json and --ndjson.');
  buildQuery(options); // usage errors before any credentials are read
  ctx.stopWhenOutputCloses?.();
  // A long read that keeps a page at a time: the heap held near it, as the OneRoster reads' is.
  if (options.all) await keepHeapSmall((line) => ctx.log.debug(line));
  const session = await ctx.session();
  if (options.schoolId !== undefined) options.schoolId = await schoolIdOf(ctx, session, options.schoolId);
  const output = await listOutput(ctx, session, options);
  const last = await run(options, session, output.writePage);
  if (options.json) return output.end(last);
  if (last.records === 0) return ctx.log.info('No invitations found.');
  await output.end(last);
  if (!options.all) sayMorePages(ctx, last.meta);
}

type LastPage = InvitationPage & { pages: number; records: number };

/** Where the pages go: written as they come (--json --all, --ndjson, --all), or one page's table at the end. */
interface ListOutput {
  writePage(data: unknown[]): Promise<void>;
  end(last: LastPage): Promise<void>;
}

async function listOutput(ctx: Context, session: Session, options: ListOptions): Promise<ListOutput> {
  if (options.json && options.all) {
    const json = jsonPagesWriter(ctx);
    return { writePage: (data) => json.writePage(data), end: (last) => json.end(last.body) };
  }
  if (options.json) return { writePage: async () => {}, end: async (last) => printJson(ctx, last.body) };
  if (options.ndjson) {
    const ndjson = createRecordWriter(ctx, 'ndjson', []);
    return { writePage: (data) => ndjson.writePage(data), end: async () => {} };
  }
  // On a terminal, schools by name, as the admin gave them; the id stays in pipes and --json.
  const schoolLabel = ctx.io.stdoutIsTTY ? await schoolLabels(ctx, session) : undefined;
  if (options.all) {
    // --all leaves a page at a time; its table is laid out from the first page's rows.
    const table = pagedTable(ctx, schoolLabel);
    return { writePage: (data) => table.writePage(data), end: async () => {} };
  }
  const rows: unknown[] = [];
  return {
    writePage: async (data) => {
      for (const record of data) rows.push(record);
    },
    // A terminal is narrow: it shows what an admin reads first. Pipes keep every column.
    end: () =>
      printTable(ctx, ctx.io.stdoutIsTTY ? terminalColumnsOf(rows, schoolLabel) : columnsOf(rows), rows),
  };
}

/** A page of several: how to read the next ones. */
function sayMorePages(ctx: Context, meta: unknown): void {
  if (!isRecord(meta) || typeof meta.totalPages !== 'number' || typeof meta.page !== 'number') return;
  if (meta.page >= meta.totalPages) return;
  ctx.log.info(
    `Page ${meta.page} of ${meta.totalPages}${typeof meta.total === 'number' ? ` (${meta.total} invitations)` : ''}: use --page ${meta.page + 1} or --all for more.`,
  );
}

/**
 * --school-id as the sourcedId the invitations carry: a name or identifier resolved like `invite send`'s; a
 * value naming no school of the district's list is refused, with the way to ask for an unlisted id as given.
 */
async function schoolIdOf(ctx: Context, session: Session, value: string): Promise<string> {
  const { SchoolDirectory, schoolUsageError } = await import('../../schools/directory.js');
  const schools = new SchoolDirectory(ctx, session);
  const resolution = await schools.resolve(value);
  if (resolution.kind !== 'unknown') return schools.sourcedIdFor('--school-id', value);
  const refused = schoolUsageError(`--school-id "${printable(value.trim(), 80)}"`, resolution);
  throw new UsageError(
    refused.message,
    `\`roster roster schools\` lists the schools; for invitations sent to a school id not in that list (--allow-unlisted-school), pass --param schoolId=${printable(value.trim(), 80)}.`,
  );
}

/**
 * --all as a table (a terminal) or tab-separated lines (a pipe), written page by page: the columns, and the
 * table's widths, are the first page's. A list of any length costs one page of memory.
 */
function pagedTable(ctx: Context, schoolLabel: SchoolLabel | undefined) {
  let writer: RecordWriter | undefined;
  return {
    async writePage(records: unknown[]): Promise<void> {
      if (records.length === 0) return;
      if (!writer) {
        const tty = ctx.io.stdoutIsTTY;
        const columns = (tty ? terminalColumnsOf(records, schoolLabel) : columnsOf(records)).map(
          (c): RecordColumn => ({
            header: c.header,
            values: (record) => [cellText(c.value(record))],
            ...(c.shrink && { shrink: c.shrink }),
          }),
        );
        writer = createRecordWriter(ctx, tty ? 'table' : 'tsv', columns);
      }
      await writer.writePage(records);
    },
  };
}

/**
 * --all --json: one object as the server's body would be with every page's records in `data`, and the last
 * page's other fields (meta…) after it. Written as the pages come: `data` is closed only by end(), so an
 * interrupted list is not valid JSON and cannot pass for a complete one.
 */
function jsonPagesWriter(ctx: Context) {
  const write = (chunk: string) => writeWithBackpressure(ctx.io.stdout, jsonText(chunk));
  let started = false;
  return {
    async writePage(records: readonly unknown[]): Promise<void> {
      if (records.length === 0) return;
      let chunk = started ? '' : '{\n  "data": [';
      for (const [i, record] of records.entries()) {
        chunk += `${started || i > 0 ? ',' : ''}\n    ${stringify(record)}`;
      }
      started = true;
      await write(chunk);
    },
    async end(lastBody: Record<string, unknown>): Promise<void> {
      let chunk = started ? '\n  ]' : '{\n  "data": []';
      for (const [key, value] of Object.entries(lastBody)) {
        if (key === 'data' || value === undefined) continue;
        chunk += `,\n  ${JSON.stringify(key)}: ${stringify(value, 2).replace(/\n/g, '\n  ')}`;
      }
      await write(`${chunk}\n}\n`);
    },
  };
}
