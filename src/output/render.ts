// The one renderer: commands hand over data, this decides how it looks. JSON for --json, a table on a
// terminal, tab-separated text for pipes. stdout carries data only.
import { type Terminal, writeWithBackpressure } from '../io.js';
import { stringify } from './json-text.js';
import { displayText, jsonText } from './safe-text.js';
import { colours } from './style.js';
import { type Column, cellText, laidOut, tsvText } from './table-text.js';

export { type Column, cellText, tableText } from './table-text.js';

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

/** Label/value lines, aligned: for single records such as `roster status`. */
export function printFields(ctx: Terminal, fields: [label: string, value: unknown][]): void {
  const labels = fields.map(([label]) => displayText(label));
  const width = Math.max(...labels.map((label) => label.length));
  const lines = fields.map(([, value], i) => `${`${labels[i]}:`.padEnd(width + 2)}${cellText(value)}`);
  ctx.io.stdout.write(`${lines.join('\n')}\n`);
}
