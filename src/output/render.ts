// The one renderer: commands hand over data, this decides how it looks. JSON for --json, a table on a
// terminal, tab-separated text for pipes. stdout carries data only.
import { type Terminal, writeWithBackpressure } from '../io.js';
import { FLATTEN_DEPTH, stringify } from './json-text.js';
import { displayText, jsonText } from './safe-text.js';
import { colours } from './style.js';
import { hiddenNote, layoutTable, type TableColumn } from './table.js';
import { localIfInstant } from './time.js';

export interface Column<Row> extends TableColumn {
  value: (row: Row) => unknown;
  /** Terminal styling of the cell, wrapped around its text once it is made safe and cut to its column. */
  style?: (text: string, row: Row) => string;
}

export function printJson(ctx: Terminal, value: unknown): void {
  ctx.io.stdout.write(`${jsonText(stringify(value, 2))}\n`);
}

export async function printNdjsonLine(ctx: Terminal, value: unknown): Promise<void> {
  await writeWithBackpressure(ctx.io.stdout, `${jsonText(stringify(value))}\n`);
}

/** A one-line result for a person: "✓ Invitation sent to …". */
export function printDone(ctx: Terminal, text: string): void {
  ctx.io.stdout.write(`${colours(ctx.color).green('✓')} ${displayText(text)}\n`);
}

/**
 * A table on a terminal (the one layout, see table.ts: instants in local time, header in bold when colour is
 * on); tab-separated with a header row when stdout is a pipe, values as they came.
 */
export async function printTable<Row>(ctx: Terminal, columns: Column<Row>[], rows: Row[]): Promise<void> {
  if (!ctx.io.stdoutIsTTY) {
    ctx.io.stdout.write(tsvText(columns, rows));
    return;
  }
  const { text, note } = await laidOut(columns, rows, { width: ctx.io.columns, color: ctx.color });
  ctx.io.stdout.write(text);
  // Data on stdout; which columns it left out is said on stderr.
  if (note) ctx.io.stderr.write(note);
}

function tsvText<Row>(columns: Column<Row>[], rows: Row[]): string {
  const lines = [columns.map((c) => displayText(c.header))];
  for (const row of rows) lines.push(columns.map((c) => cellText(c.value(row))));
  return `${lines.map((line) => line.join('\t')).join('\n')}\n`;
}

/**
 * The table as a terminal shows it, for a terminal `width` columns wide, and after it the line naming the
 * columns left out to fit, if any (for a table shown on stderr, such as a preview).
 */
export async function tableText<Row>(
  columns: Column<Row>[],
  rows: Row[],
  terminal: { width: number; color: boolean },
): Promise<string> {
  const { text, note } = await laidOut(columns, rows, terminal);
  return text + note;
}

async function laidOut<Row>(
  columns: Column<Row>[],
  rows: Row[],
  { width, color }: { width: number; color: boolean },
): Promise<{ text: string; note: string }> {
  const headers = columns.map((c) => ({ header: displayText(c.header), shrink: c.shrink }));
  const cells = rows.map((row) => columns.map((c) => terminalCell(c.value(row))));
  const table = await layoutTable(headers, cells, width);
  // Styled after it is made safe: the only escapes in a cell are roster's own.
  const paint = (text: string, r: number, c: number) => columns[c]?.style?.(text, rows[r] as Row) ?? text;
  const lines = [colours(color).bold(table.header), ...table.lines(cells, color ? paint : undefined)];
  return { text: `${lines.join('\n')}\n`, note: hiddenNote(table.hidden, width) };
}

/** A cell on a terminal: safe text, and an ISO instant in local time. */
function terminalCell(value: unknown): string {
  return typeof value === 'string' ? cellText(localIfInstant(value)) : cellText(value);
}

/** Label/value lines, aligned: for single records such as `roster status`. */
export function printFields(ctx: Terminal, fields: [label: string, value: unknown][]): void {
  const labels = fields.map(([label]) => displayText(label));
  const width = Math.max(...labels.map((label) => label.length));
  const lines = fields.map(([, value], i) => `${`${labels[i]}:`.padEnd(width + 2)}${cellText(value)}`);
  ctx.io.stdout.write(`${lines.join('\n')}\n`);
}

export function cellText(value: unknown, depth = 0): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return displayText(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value) && depth < FLATTEN_DEPTH)
    return value.map((item) => cellText(item, depth + 1)).join(', ');
  return displayText(stringify(value));
}
