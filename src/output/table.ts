// The one table layout, as GitHub CLI prints them: a header row, then a line per row, columns two spaces
// apart, no borders and no lines between rows. When the rows are wider than the terminal, only the
// columns a command marks as shrinkable are cut (with …), the widest first; values that identify
// (sourcedIds, e-mails, a base URL's scheme://host:port) are never cut, and a row that still does not
// fit runs on (the terminal wraps it) rather than hide them.
//
// Cells arrive already made safe (displayText): this module only measures, cuts and pads, and styling
// wraps the cut text, so a colour's escape sequences are neither measured nor cut nor escaped.

/** How a column may give up width: `end` cuts the end; `url` keeps scheme://host:port and cuts the path. */
export type Shrink = 'end' | 'url';

export interface TableColumn {
  header: string;
  /** Unset: the column keeps its full width (identifiers, e-mails, counts). */
  shrink?: Shrink;
}

/** Columns are this many spaces apart. */
export const GAP = 2;
/** A shrinkable column is cut to no fewer characters than this (or its content, if shorter). */
const MIN_SHRUNK = 8;

const ASCII = /^[\x20-\x7e]*$/;
/**
 * Characters as a terminal counts them, one per code point (an emoji's surrogate pair is one). East Asian
 * wide characters take two columns and are still counted as one: string-width would know, but it is not
 * a dependency of roster's own.
 */
export const textWidth = (text: string): number => (ASCII.test(text) ? text.length : [...text].length);
/** The first `n` characters, never half a surrogate pair. */
const head = (text: string, n: number) =>
  ASCII.test(text) ? text.slice(0, n) : [...text].slice(0, n).join('');

/**
 * The widest cell of each column, header included. A loop, not Math.max(...cells): a page of a server's
 * records may hold hundreds of thousands of rows, more arguments than the call stack takes.
 */
export function contentWidths(headers: readonly string[], rows: readonly (readonly string[])[]): number[] {
  const widths = headers.map(textWidth);
  for (const row of rows) {
    for (let i = 0; i < widths.length; i++) {
      const length = textWidth(row[i] ?? '');
      if (length > (widths[i] ?? 0)) widths[i] = length;
    }
  }
  return widths;
}

/** Each column's width for a terminal `width` characters wide. */
export function tableWidths(
  columns: readonly TableColumn[],
  rows: readonly (readonly string[])[],
  width: number,
): number[] {
  const widths = contentWidths(
    columns.map((c) => c.header),
    rows,
  );
  const floors = columns.map((column, i) => floorOf(column, i, widths[i] ?? 0, rows));
  const budget = width - GAP * (columns.length - 1);
  let total = widths.reduce((a, b) => a + b, 0);
  while (total > budget) {
    let widest = -1;
    for (let i = 0; i < widths.length; i++) {
      if ((widths[i] ?? 0) > (floors[i] ?? 0) && (widest < 0 || (widths[i] ?? 0) > (widths[widest] ?? 0))) {
        widest = i;
      }
    }
    if (widest < 0) break; // nothing left to shrink: the row runs on
    widths[widest] = (widths[widest] ?? 0) - 1;
    total--;
  }
  return widths;
}

/** How narrow a column may get: its full width if it may not shrink; a URL's origin and an ellipsis. */
function floorOf(column: TableColumn, i: number, content: number, rows: readonly (readonly string[])[]) {
  if (!column.shrink) return content;
  let floor = Math.min(content, MIN_SHRUNK);
  if (column.shrink === 'url') {
    for (const row of rows)
      floor = Math.max(floor, Math.min(content, (origin(row[i] ?? '')?.length ?? 0) + 1));
  }
  return floor;
}

/** scheme://host:port of a URL, or undefined for text that is not one. */
function origin(text: string): string | undefined {
  return /^[a-z][a-z\d+.-]*:\/\/[^/?#]*/i.exec(text)?.[0];
}

/** The cell cut to `width` (or less) with …: a URL keeps its origin and the end of its path (…/v1). */
export function cutCell(text: string, width: number, shrink?: Shrink): string {
  if (!shrink || textWidth(text) <= width) return text;
  const start = shrink === 'url' ? origin(text) : undefined;
  if (start && width > start.length + 1) {
    // The end of the path names the version (/v1, /v1p2): kept, from a /, when one is in reach.
    const tail = text.slice(text.length - (width - start.length - 1));
    const slash = tail.indexOf('/');
    return `${start}…${slash >= 0 ? tail.slice(slash) : ''}`;
  }
  if (start) return `${start}…`;
  return `${head(text, Math.max(0, width - 1))}…`;
}

export type Paint = (text: string) => string;

/**
 * One line of the table: each cell cut to its width, styled, then padded (the padding stays unstyled);
 * the last cell is not padded, so no line ends in spaces.
 */
export function tableLine(
  columns: readonly TableColumn[],
  cells: readonly string[],
  widths: readonly number[],
  paint: readonly (Paint | undefined)[] = [],
): string {
  const last = cells.length - 1;
  return cells
    .map((cell, i) => {
      const width = widths[i] ?? textWidth(cell);
      const cut = cutCell(cell, width, columns[i]?.shrink);
      const styled = paint[i]?.(cut) ?? cut;
      return i === last ? styled : styled + ' '.repeat(Math.max(0, width - textWidth(cut)));
    })
    .join(' '.repeat(GAP))
    .trimEnd();
}

/** OneRoster references: their cells are the sourcedIds of the records they point to. */
const REFERENCES = new Set([
  ...['parent', 'children', 'org', 'orgs', 'school', 'schools', 'course', 'class', 'classes'],
  ...['user', 'users', 'agents', 'term', 'terms', 'academicSession', 'schoolYear'],
  ...['gradingPeriod', 'gradingPeriods', 'resources'],
]);

/**
 * How a column named after a record's field may shrink: never one that identifies (id, sourcedId,
 * schoolId, orgSourcedIds, a reference, a class or course code, email, username, identifier) nor a date
 * or an instant (birthDate, createdAt, dateLastModified: a cut date says nothing); a URL keeps its
 * origin; the rest (names, titles, status, scopes) is cut from the end.
 */
export function fieldShrink(field: string): Shrink | undefined {
  if (/^ids?$/i.test(field) || /(?:Ids?|Codes?|At|Date)$/.test(field) || REFERENCES.has(field))
    return undefined;
  if (/(?:email|username|identifier)$/i.test(field) || /^date[A-Z]/.test(field)) return undefined;
  if (/url$/i.test(field)) return 'url';
  return 'end';
}
