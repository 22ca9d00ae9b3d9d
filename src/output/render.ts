// The one renderer: commands hand over data, this decides how it looks. JSON for --json, a table on a
// terminal, tab-separated text for pipes. stdout carries data only.
import type { Context } from '../context.js';
import { writeWithBackpressure } from '../io.js';
import { displayText, jsonText } from './safe-text.js';
import { colours } from './style.js';
import { contentWidths, fitWidths } from './widths.js';

export interface Column<Row> {
  header: string;
  value: (row: Row) => unknown;
}

export function printJson(ctx: Context, value: unknown): void {
  ctx.io.stdout.write(`${jsonText(JSON.stringify(value, null, 2))}\n`);
}

export async function printNdjsonLine(ctx: Context, value: unknown): Promise<void> {
  await writeWithBackpressure(ctx.io.stdout, `${jsonText(JSON.stringify(value))}\n`);
}

/** A one-line result for a person: "✓ Invitation sent to …". */
export function printDone(ctx: Context, text: string): void {
  ctx.io.stdout.write(`${colours(ctx.color).green('✓')} ${displayText(text)}\n`);
}

/** A table on a terminal; tab-separated with a header row when stdout is a pipe. */
export async function printTable<Row>(ctx: Context, columns: Column<Row>[], rows: Row[]): Promise<void> {
  const cells = rows.map((row) => columns.map((c) => cellText(c.value(row))));
  if (!ctx.io.stdoutIsTTY) {
    const lines = [columns.map((c) => displayText(c.header)), ...cells].map((line) => line.join('\t'));
    ctx.io.stdout.write(`${lines.join('\n')}\n`);
    return;
  }
  const { default: Table } = await import('cli-table3');
  const content = contentWidths(
    columns.map((c) => c.header),
    cells,
  );
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
  const labels = fields.map(([label]) => displayText(label));
  const width = Math.max(...labels.map((label) => label.length));
  const lines = fields.map(([, value], i) => `${`${labels[i]}:`.padEnd(width + 2)}${cellText(value)}`);
  ctx.io.stdout.write(`${lines.join('\n')}\n`);
}

export function cellText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return displayText(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return value.map(cellText).join(', ');
  return displayText(JSON.stringify(value));
}
