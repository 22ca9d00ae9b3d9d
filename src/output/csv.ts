// CSV as RFC 4180 and the OneRoster CSV binding write it: a header row, cells quoted when they hold a
// comma, a quote or a line break (quotes doubled), several values in one cell joined by commas.

export function csvCell(value: string): string {
  return /[",\r\n]/.test(value) || /^\s|\s$/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

export function csvLine(cells: readonly string[]): string {
  return `${cells.map(csvCell).join(',')}\n`;
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
