// Column widths for text tables: what the content needs, each column capped, then the widest column
// shrunk one character at a time until the row fits the terminal.

export const MAX_COLUMN_WIDTH = 60;
const MIN_COLUMN_WIDTH = 4;

/**
 * The widest cell of each column, header included. A loop, not Math.max(...cells): a page of a server's
 * records may hold hundreds of thousands of rows, more arguments than the call stack takes.
 */
export function contentWidths(headers: readonly string[], rows: readonly (readonly string[])[]): number[] {
  const widths = headers.map((h) => h.length);
  for (const row of rows) {
    for (let i = 0; i < widths.length; i++) {
      const length = (row[i] ?? '').length;
      if (length > (widths[i] ?? 0)) widths[i] = length;
    }
  }
  return widths;
}

/** `budget` is what the cells may use in all, after borders and gaps. */
export function fitWidths(content: number[], budget: number): number[] {
  const widths = content.map((w) => Math.min(Math.max(w, 1), MAX_COLUMN_WIDTH));
  const floor = Math.max(budget, widths.length * MIN_COLUMN_WIDTH);
  while (widths.reduce((a, b) => a + b, 0) > floor) {
    const widest = widths.indexOf(Math.max(...widths));
    if ((widths[widest] ?? 0) <= MIN_COLUMN_WIDTH) break;
    widths[widest] = (widths[widest] ?? 0) - 1;
  }
  return widths;
}
