// Column widths for text tables: what the content needs, each column capped, then the widest column
// shrunk one character at a time until the row fits the terminal.

export const MAX_COLUMN_WIDTH = 60;
const MIN_COLUMN_WIDTH = 4;

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
