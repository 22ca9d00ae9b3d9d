// Writers for lists that may be larger than memory: records arrive a page at a time and leave at once,
// with backpressure, so an export of any size holds no more than the page in hand.
//   json    one JSON array, a record per line; closed only by end(), so an interrupted export is not
//           valid JSON and cannot pass for a complete one
//   ndjson  one record per line
//   csv     a header row, then one row per record (columns given by the caller)
//   tsv     tab-separated with a header row: the default when stdout is a pipe
//   table   the one table layout (table.ts) on a terminal, instants in local time; widths are fixed by the
//           first page, longer cells of shrinkable columns are cut with …
// json, ndjson and csv are data: the values exactly as served (JSON with \u escapes for characters a
// terminal would obey, the same data). CSV cannot escape, so on a terminal it is shown through
// displayLines; redirected to a file or pipe it is exact. tsv and table are for reading: displayText.

import { type Terminal, writeWithBackpressure } from '../io.js';
import { csvLine, EXCEL_BOM, formulaSafe } from './csv.js';
import { stringify } from './json-text.js';
import { displayLines, displayText, jsonText } from './safe-text.js';
import { colours } from './style.js';
import { hiddenNote, layoutTable, type Shrink, type TableColumn, type TableLayout } from './table.js';
import { localIfInstant } from './time.js';

export type RecordFormat = 'json' | 'ndjson' | 'csv' | 'tsv' | 'table';

export interface RecordColumn {
  header: string;
  /** The cell's values (several for multi-valued fields). */
  values: (record: unknown) => string[];
  /** How the column may be cut to fit a terminal (table only); unset, never. */
  shrink?: Shrink;
}

export interface RecordWriter {
  /**
   * `texts`, when given, are the records' own JSON texts (one line each, as the server sent them): json and
   * ndjson write them instead of stringifying the records again.
   */
  writePage(records: readonly unknown[], texts?: readonly string[]): Promise<void>;
  /** Finishes the output (closes the JSON array; prints the header of an empty table). */
  end(): Promise<void>;
}

/** A page of records as it arrives, with the records' own JSON texts when the reader kept them. */
export interface RecordPage {
  records: readonly unknown[];
  texts?: readonly string[];
}

/**
 * The one renderer of record lists: each page written as it arrives (with backpressure), then the end. A
 * read that returns its pages lazily streams through here at flat memory, however long the list.
 */
export async function writeRecords(
  ctx: Terminal,
  format: RecordFormat,
  columns: RecordColumn[],
  pages: AsyncIterable<RecordPage> | Iterable<RecordPage>,
  options: RecordWriterOptions = {},
): Promise<void> {
  const writer = createRecordWriter(ctx, format, columns, options);
  for await (const page of pages) await writer.writePage(page.records, page.texts);
  await writer.end();
}

export interface RecordWriterOptions {
  /** csv: a leading ' on cells a spreadsheet would take for a formula (--escape-formulas). */
  escapeFormulas?: boolean;
  /** csv: a UTF-8 BOM before the header, for Excel (--excel). */
  excelBom?: boolean;
}

export function createRecordWriter(
  ctx: Terminal,
  format: RecordFormat,
  columns: RecordColumn[],
  options: RecordWriterOptions = {},
): RecordWriter {
  const write = (chunk: string) => writeWithBackpressure(ctx.io.stdout, chunk);
  switch (format) {
    case 'json':
      return jsonArrayWriter(write);
    case 'ndjson':
      return {
        writePage: (records, texts) =>
          records.length ? write(jsonText(lines(texts ?? records.map((r) => stringify(r))))) : done,
        end: () => done,
      };
    case 'csv': {
      const cells = options.escapeFormulas
        ? (line: string[]) => line.map(formulaSafe)
        : (line: string[]) => line;
      const shown = ctx.io.stdoutIsTTY ? displayLines : (text: string) => text;
      return lineWriter(write, columns, (line) => shown(csvLine(cells(line))), ',', options.excelBom);
    }
    case 'tsv':
      return lineWriter(write, columns, (cells) => `${cells.map(displayText).join('\t')}\n`, ', ');
    case 'table':
      return tableWriter(ctx, write, columns);
  }
}

const done = Promise.resolve();
type Write = (chunk: string) => Promise<void>;

/**
 * The texts as lines, built flat by one join: a page's text is large, and a newline added after the join
 * would make a two-part string that is copied whole to flatten it on its way out.
 */
function lines(texts: readonly string[]): string {
  const parts = texts.slice();
  parts.push('');
  return parts.join('\n');
}

function jsonArrayWriter(write: Write): RecordWriter {
  let started = false;
  return {
    async writePage(records, texts) {
      if (records.length === 0) return;
      const body = jsonText(`  ${(texts ?? records.map((r) => stringify(r))).join(',\n  ')}`);
      await write(`${started ? ',\n' : '[\n'}${body}`);
      started = true;
    },
    end: () => write(started ? '\n]\n' : '[]\n'),
  };
}

function lineWriter(
  write: Write,
  columns: RecordColumn[],
  line: (cells: string[]) => string,
  join: string,
  excelBom = false,
): RecordWriter {
  let headerWritten = false;
  const header = () => {
    if (headerWritten) return '';
    headerWritten = true;
    return (excelBom ? EXCEL_BOM : '') + line(columns.map((c) => c.header));
  };
  return {
    writePage: (records) =>
      write(header() + records.map((r) => line(columns.map((c) => c.values(r).join(join)))).join('')),
    end: () => (headerWritten ? done : write(header())),
  };
}

function tableWriter(ctx: Terminal, write: Write, columns: RecordColumn[]): RecordWriter {
  const bold = colours(ctx.color).bold;
  const layout: TableColumn[] = columns.map((c) => ({ header: displayText(c.header), shrink: c.shrink }));
  let table: TableLayout | undefined;
  const start = async (rows: string[][]) => {
    table = await layoutTable(layout, rows, ctx.io.columns);
    return `${bold(table.header)}\n`;
  };
  const text = (lines: string[]) => lines.map((line) => `${line}\n`).join('');
  return {
    async writePage(records) {
      const rows = records.map((r) =>
        columns.map((c) =>
          displayText(
            c
              .values(r)
              .map((v) => localIfInstant(v))
              .join(', '),
          ),
        ),
      );
      const head = table ? '' : await start(rows);
      await write(head + text((table as TableLayout).lines(rows)));
    },
    end: async () => {
      if (!table) await write(await start([]));
      // Said once the rows are out, beside the read's own closing line.
      const note = hiddenNote(table?.hidden ?? [], ctx.io.columns);
      if (note) ctx.io.stderr.write(note);
    },
  };
}
