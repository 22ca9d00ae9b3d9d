// CSV as RFC 4180 and the OneRoster CSV binding write it: a header row, cells quoted when they hold a
// comma, a quote or a line break (quotes doubled), several values in one cell joined by commas.
import { displayLines } from './safe-text.js';

/**
 * Excel opens a CSV by double-click in the machine's ANSI code page unless it starts with a UTF-8 BOM
 * (Zoë Åkesson became ZoÃ« Ã…kesson): every CSV roster writes for office staff starts with one (invite
 * plan --out, --uncovered-csv, the failed rows, audit --csv-dir, --csv --excel). roster reads its own
 * files back (invite/csv.ts drops a BOM); OneRoster's files keep the standard's bytes (no BOM).
 */
export const EXCEL_BOM = '\ufeff';

// One test per cell (exports write millions): a comma, a quote or a line break anywhere, or white space
// (\s: Unicode's too) at either end.
const NEEDS_QUOTES = /[",\r\n]|^\s|\s$/;

export function csvCell(value: string): string {
  return value !== '' && NEEDS_QUOTES.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

export function csvLine(cells: readonly string[]): string {
  let line = '';
  for (let i = 0; i < cells.length; i++)
    line += i === 0 ? csvCell(cells[i] as string) : `,${csvCell(cells[i] as string)}`;
  return `${line}\n`;
}

/**
 * A cell a spreadsheet will not run as a formula (OWASP "CSV injection"): one starting with =, +, -, @,
 * a tab or a carriage return gets a leading '. It changes the value, so it is an option (--escape-formulas).
 * A value that already starts with quotes before one of those gets one more, so formulaUnescaped gives it
 * back exactly (the address `'+quote@example.org` is not `+quote@example.org`).
 */
export function formulaSafe(value: string): string {
  return /^'*[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

/**
 * Undoes formulaSafe: a cell it escaped (a ' before quotes and =, +, -, @, a tab or a CR) back to its
 * value. For files roster wrote escaped and reads back (a campaign plan fed to `invite send --file`).
 */
export function formulaUnescaped(value: string): string {
  return /^'+[=+\-@\t\r]/.test(value) ? value.slice(1) : value;
}

/**
 * A cell of a file for people (a plan, the uncovered students, failed rows, an audit's CSV), opened in a
 * spreadsheet or `cat` in a terminal: never a live formula (formulaSafe), and no control character as itself
 * (ESC, OSC 52, C1, BEL, bidi: shown as \u001b … by safe-text's displayLines, as on the terminal; line
 * breaks and tabs kept). Exports to the OneRoster standard do not come here: they stay byte-faithful.
 */
export function peopleCell(value: string): string {
  return formulaSafe(displayLines(value));
}
