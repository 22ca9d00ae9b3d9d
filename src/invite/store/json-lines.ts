// The store's files are JSON Lines, some of them hundreds of thousands of lines long (a district's journal
// and record): read line by line, never split into an array of every line.

/**
 * Hands `visit` each line of `text`, which holds whole lines only (empty, or ending with a newline), with
 * its index from 0; returns how many there were.
 */
export function forEachLine(text: string, visit: (line: string, index: number) => void): number {
  let index = 0;
  for (let start = 0; start < text.length; index++) {
    const newline = text.indexOf('\n', start);
    visit(text.slice(start, newline), index);
    start = newline + 1;
  }
  return index;
}
