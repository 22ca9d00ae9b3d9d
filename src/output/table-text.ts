// Tables as text: the one layout (table.ts) of rows under named columns, for a terminal or as tab-separated
// lines; cells made safe (safe-text.ts) and instants in local time. Pure: the renderer (render.ts) prints
// them, and a feature that shows a table in its own text (a preview, a plan's summary) takes them from here.
import { FLATTEN_DEPTH, stringify } from './json-text.js';
import { displayText } from './safe-text.js';
import { colours } from './style.js';
import { hiddenNote, layoutTable, type TableColumn } from './table.js';
import { localIfInstant } from './time.js';

export interface Column<Row> extends TableColumn {
  value: (row: Row) => unknown;
  /** Terminal styling of the cell, wrapped around its text once it is made safe and cut to its column. */
  style?: (text: string, row: Row) => string;
}

/** Tab-separated lines with a header row: the values as they came, made safe. */
export function tsvText<Row>(columns: Column<Row>[], rows: Row[]): string {
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

/** The table laid out for a terminal, and the line naming the columns it left out, if any. */
export async function laidOut<Row>(
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

export function cellText(value: unknown, depth = 0): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return displayText(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value) && depth < FLATTEN_DEPTH)
    return value.map((item) => cellText(item, depth + 1)).join(', ');
  return displayText(stringify(value));
}
