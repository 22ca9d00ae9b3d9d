// The one renderer: commands hand over data, this decides how it looks. JSON for --json, a table on a
// terminal, tab-separated text for pipes. stdout carries data only.
import type { Context } from '../context.js';
import { writeWithBackpressure } from '../io.js';
import { fitWidths } from './widths.js';

export interface Column<Row> {
  header: string;
  value: (row: Row) => unknown;
}

export function printJson(ctx: Context, value: unknown): void {
  ctx.io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export async function printNdjsonLine(ctx: Context, value: unknown): Promise<void> {
  await writeWithBackpressure(ctx.io.stdout, `${JSON.stringify(value)}\n`);
}

/** A table on a terminal; tab-separated with a header row when stdout is a pipe. */
export async function printTable<Row>(ctx: Context, columns: Column<Row>[], rows: Row[]): Promise<void> {
  const cells = rows.map((row) => columns.map((c) => cellText(c.value(row))));
  if (!ctx.io.stdoutIsTTY) {
    const lines = [columns.map((c) => c.header), ...cells].map((line) => line.map(tsvCell).join('\t'));
    ctx.io.stdout.write(`${lines.join('\n')}\n`);
    return;
  }
  const { default: Table } = await import('cli-table3');
  const content = columns.map((c, i) => Math.max(c.header.length, ...cells.map((r) => (r[i] ?? '').length)));
  // cli-table3 counts one space of padding each side inside colWidths, plus one border per column and one.
  const width = fitWidths(content, ctx.io.columns - (columns.length + 1) - 2 * columns.length).map(
    (w) => w + 2,
  );
  const table = new Table({
    head: columns.map((c) => c.header),
    colWidths: width,
    wordWrap: false,
    truncate: '…',
    style: { head: ctx.color ? ['bold'] : [], border: ctx.color ? ['grey'] : [] },
  });
  for (const row of cells) table.push(row);
  ctx.io.stdout.write(`${table.toString()}\n`);
}

/** Label/value lines, aligned: for single records such as `roster status`. */
export function printFields(ctx: Context, fields: [label: string, value: unknown][]): void {
  const width = Math.max(...fields.map(([label]) => label.length));
  const lines = fields.map(([label, value]) => `${`${label}:`.padEnd(width + 2)}${cellText(value)}`);
  ctx.io.stdout.write(`${lines.join('\n')}\n`);
}

export function cellText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return displayText(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return value.map(cellText).join(', ');
  return JSON.stringify(value);
}

/** Text for a terminal cell: no control characters (C0, DEL, C1) that could move the cursor or recolour. */
export const displayText = (text: string) => text.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');

/** A tab-separated cell: tabs and line breaks would shift columns and rows. */
export const tsvCell = (text: string) => text.replace(/[\t\n\r]/g, ' ');
