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
 */
export function formulaSafe(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}
