// The three ways `roster roster changes` writes what it reads, behind one interface (ChangesOutput):
//   stream  json, ndjson or tsv: one record stream across collections, {collection, record} per record
//   table   on a terminal: a table per collection that has changes
//   csv     one CSV file per collection (the binding's columns) in --out DIR, <name>.csv.partial until complete
import type { WriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isRecord } from '../../api/errors.js';
import type { Context } from '../../context.js';
import { createFresh, outputFolder } from '../../files.js';
import type { Collection } from '../../oneroster/collections.js';
import { columnReader, sourcedIdOf } from '../../oneroster/records.js';
import type { OneRosterService } from '../../oneroster/service.js';
import { createRecordWriter, type RecordColumn, type RecordWriter } from '../../output/record-stream.js';
import { fieldShrink } from '../../output/table.js';

export type ChangesFormat = 'table' | 'tsv' | 'json' | 'ndjson' | 'csv';

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

/** Where one run's records go, a collection at a time. */
export interface ChangesOutput {
  start(collection: Collection): Promise<(records: unknown[], texts?: string[]) => Promise<void>>;
  finish(collection: Collection): Promise<string | undefined>;
  abandon(collection: Collection): Promise<void>;
  abandonAll(): Promise<void>;
  end(): Promise<void>;
}

/** The output of a format; `out` is --out DIR of --csv. */
export function openOutput(
  ctx: Context,
  format: ChangesFormat,
  out: string | undefined,
  service: OneRosterService,
): ChangesOutput {
  if (format === 'csv') return csvOutput(ctx, out as string, service);
  if (format === 'table') return tableOutput(ctx);
  return streamOutput(ctx, format);
}

/** json, ndjson or tsv: one stream of {collection, record} across every collection. */
function streamOutput(ctx: Context, format: 'json' | 'ndjson' | 'tsv'): ChangesOutput {
  const writer = createRecordWriter(ctx, format, ROW_COLUMNS);
  const json = format === 'json' || format === 'ndjson';
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
function tableOutput(ctx: Context): ChangesOutput {
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

export const CHANGE_FILES = 'the change files';

/** One CSV file per collection in DIR, with the binding's columns; <name>.csv.partial until complete. */
function csvOutput(ctx: Context, dir: string, service: OneRosterService): ChangesOutput {
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
