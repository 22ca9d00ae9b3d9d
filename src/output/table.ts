// The one table layout, as GitHub CLI prints them: a header row, then a line per row, columns two spaces
// apart, no borders and no lines between rows. cli-table3 lays it out: it measures each cell as a terminal
// shows it (string-width: an East Asian character or an emoji takes two columns), pads, and cuts with ….
// What is roster's own is the decision of which columns give way on a narrow terminal, and how far: only
// the columns a command marks as shrinkable, the widest first, never below their header while a value can
// give way instead; values that identify (sourcedIds, e-mails, a base URL's scheme://host:port) are never
// cut, and a row that still does not fit runs on (the terminal wraps it) rather than hide them.
//
// Cells arrive already made safe (displayText) and styled after that: the only escape sequences in them
// are roster's own colours, which cli-table3 neither measures nor cuts in half.

/** How a column may give up width: `end` cuts the end; `url` keeps scheme://host:port and cuts the path. */
export type Shrink = 'end' | 'url';

export interface TableColumn {
  header: string;
  /** Unset: the column keeps its full width (identifiers, e-mails, counts). */
  shrink?: Shrink;
}

/** Columns are this many spaces apart. */
export const GAP = 2;
/** A shrinkable column is cut to no fewer columns than this (or its content, if narrower). */
const MIN_SHRUNK = 8;
/**
 * Rows drawn per cli-table3 table. Its layout (made for row and column spans) costs the square of the rows
 * it is given; every row here is one line, so drawing a few at a time gives the same lines in linear time.
 */
const BATCH = 16;

type Table3 = typeof import('cli-table3');
let table3: Promise<Table3> | undefined;
/** cli-table3 and string-width's emoji pattern load only for a command that prints a table. */
const loadTable3 = () => (table3 ??= import('cli-table3').then((module) => module.default));

const NO_BORDER = Object.fromEntries(
  ['top', 'top-mid', 'top-left', 'top-right', 'bottom', 'bottom-mid', 'bottom-left', 'bottom-right']
    .concat(['left', 'left-mid', 'mid', 'mid-mid', 'right', 'right-mid'])
    .map((name) => [name, '']),
);
const BORDERLESS = {
  chars: { ...NO_BORDER, middle: ' '.repeat(GAP) },
  style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 },
};

/**
 * cli-table3 0.6.5 cuts by UTF-16 unit when a text's length equals its width (as with emoji, two of each),
 * so it can leave the first half of a surrogate pair before its …: the half and its … become … and a
 * space, the same width as string-width gave them.
 */
const HALF_PAIR = /[\uD800-\uDBFF]((?:\u001b\[[\d;]*m)*)…/g;
const wholeCharacters = (line: string) => line.replace(HALF_PAIR, '$1… ');

/**
 * Rows drawn by cli-table3 in `widths` (null: as wide as the widest cell), one line each, without the
 * padding after the last column. A `spacer` row, drawn first in each table and dropped, holds the columns
 * at least as wide as its cells.
 */
function draw(
  Table: Table3,
  rows: readonly (readonly string[])[],
  widths: (number | null)[],
  spacer?: readonly string[],
) {
  const lines: string[] = [];
  const measured = widths.map(() => 0);
  for (let start = 0; start < rows.length; start += BATCH) {
    const table = new Table({ ...BORDERLESS, colWidths: [...widths] });
    if (spacer) table.push([...spacer]);
    for (const row of rows.slice(start, start + BATCH)) table.push([...row]);
    const drawn = table.toString().split('\n');
    for (const line of spacer ? drawn.slice(1) : drawn) lines.push(wholeCharacters(line).trimEnd());
    // cli-table3 writes the widths it laid the columns out in back into its options.
    table.options.colWidths.forEach((width: number | null, i: number) => {
      measured[i] = Math.max(measured[i] ?? 0, width ?? 0);
    });
  }
  return { lines, widths: measured };
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/**
 * Each column's widest cell (at least 1), as cli-table3 measures it. Printable ASCII takes a column a
 * character (as string-width counts it) and is measured here, so a page of 300,000 plain rows is not laid
 * out twice; any other text (wide characters, emoji, accents) is measured by cli-table3 laying it out.
 */
function widestCells(Table: Table3, count: number, rows: readonly (readonly string[])[]): number[] {
  const widths = Array.from({ length: count }, () => 1);
  const others: string[][] = [];
  for (const row of rows) {
    let other: string[] | undefined;
    for (let i = 0; i < widths.length; i++) {
      const text = row[i] ?? '';
      if (PRINTABLE_ASCII.test(text)) {
        if (text.length > (widths[i] ?? 0)) widths[i] = text.length;
        continue;
      }
      other ??= widths.map(() => '');
      other[i] = text;
    }
    if (other) others.push(other);
  }
  const measured = draw(
    Table,
    others,
    widths.map(() => null),
  ).widths;
  return widths.map((w, i) => Math.max(w, measured[i] ?? 0));
}

/** What a column needs and how far it may give way, in terminal columns. */
export interface ColumnFit {
  /** Its widest cell, header included. */
  natural: number;
  header: number;
  /** The narrowest it may get: `natural` for a column that may not shrink. */
  floor: number;
}

/**
 * Each column's width for a terminal `width` columns wide: the widest column that may still give way loses
 * a column at a time until the row fits. Headers stay whole while a value can give way instead; only then,
 * and only if the row then fits, is a header cut too, down to the floor.
 */
export function fitWidths(columns: readonly ColumnFit[], width: number): number[] {
  const widths = columns.map((c) => c.natural);
  let excess = widths.reduce((a, b) => a + b, GAP * (columns.length - 1)) - width;
  const shrink = (floors: number[]) => {
    while (excess > 0) {
      let widest = -1;
      for (let i = 0; i < widths.length; i++) {
        const w = widths[i] ?? 0;
        if (w > (floors[i] ?? w) && (widest < 0 || w > (widths[widest] ?? 0))) widest = i;
      }
      if (widest < 0) return; // nothing left to shrink: the row runs on
      widths[widest] = (widths[widest] ?? 0) - 1;
      excess--;
    }
  };
  shrink(columns.map((c) => Math.max(c.floor, Math.min(c.header, c.natural))));
  // A header is cut only if that makes the row fit: a row that runs on anyway keeps them whole.
  const room = columns.reduce((sum, c, i) => sum + Math.max(0, (widths[i] ?? 0) - c.floor), 0);
  if (room >= excess) shrink(columns.map((c) => c.floor));
  return widths;
}

/** A table laid out for a terminal: widths decided by its first rows, and kept for any that follow. */
export interface TableLayout {
  widths: readonly number[];
  /** The header line (unstyled). */
  header: string;
  /** A line per row, in the layout's widths; `paint` styles a cell after it is made safe (and a URL cut). */
  lines(rows: readonly (readonly string[])[], paint?: CellPaint): string[];
}

export type CellPaint = (text: string, row: number, column: number) => string;

/**
 * Lays out `columns` for these rows on a terminal `width` columns wide. A column that may not shrink
 * widens for a longer value in later rows (a stream's next page) rather than cut it.
 */
export async function layoutTable(
  columns: readonly TableColumn[],
  rows: readonly (readonly string[])[],
  width: number,
): Promise<TableLayout> {
  const Table = await loadTable3();
  const headers = columns.map((c) => c.header);
  const headerWidths = widestCells(Table, columns.length, [headers]);
  const natural = widestCells(Table, columns.length, rows).map((w, i) => Math.max(w, headerWidths[i] ?? 0));
  const fits = columns.map((column, i) => {
    const needed = natural[i] ?? 0;
    return { natural: needed, header: headerWidths[i] ?? 0, floor: floorOf(column.shrink, i, needed, rows) };
  });
  const widths = fitWidths(fits, width);
  // A column that may not shrink is laid out as wide as its cells (null), and held by a spacer at least as
  // wide as the first rows made it.
  const laidOut = columns.map((column, i) => (column.shrink ? (widths[i] ?? 0) : null));
  const spacer = widths.map((w) => ' '.repeat(w));
  const lines = (rows: readonly (readonly string[])[], paint?: CellPaint, cutUrls = true) => {
    const cells = rows.map((row, r) =>
      columns.map((column, c) => {
        const text = row[c] ?? '';
        const cut = cutUrls && column.shrink === 'url' ? cutUrl(text, widths[c] ?? 0) : text;
        return paint ? paint(cut, r, c) : cut;
      }),
    );
    return draw(Table, cells, laidOut, spacer).lines;
  };
  return {
    widths,
    header: lines([headers], undefined, false)[0] ?? '',
    lines: (rows, paint) => lines(rows, paint),
  };
}

/** Each column's width for these rows on a terminal `width` columns wide. */
export async function tableWidths(
  columns: readonly TableColumn[],
  rows: readonly (readonly string[])[],
  width: number,
): Promise<number[]> {
  return [...(await layoutTable(columns, rows, width)).widths];
}

/** How narrow a column may get: its full width if it may not shrink; a URL's origin and an ellipsis. */
function floorOf(
  shrink: Shrink | undefined,
  i: number,
  natural: number,
  rows: readonly (readonly string[])[],
) {
  if (!shrink) return natural;
  let floor = Math.min(natural, MIN_SHRUNK);
  if (shrink === 'url') {
    for (const row of rows) {
      const start = urlOrigin(row[i] ?? '');
      if (start) floor = Math.max(floor, Math.min(natural, start.length + 1));
    }
  }
  return floor;
}

/**
 * scheme://host:port of a URL written in printable ASCII (as a URL is serialised: a host in punycode, the
 * rest percent-encoded), where a character is a column; undefined for any other text.
 */
function urlOrigin(text: string): string | undefined {
  if (!PRINTABLE_ASCII.test(text)) return undefined;
  return /^[a-z][a-z\d+.-]*:\/\/[^/?#]*/i.exec(text)?.[0];
}

/**
 * A URL cut to `width` (or less) with …, keeping its origin and the end of its path (…/v1). Any other text
 * is returned whole, for cli-table3 to cut at its end.
 */
export function cutUrl(text: string, width: number): string {
  const start = urlOrigin(text);
  if (!start || text.length <= width) return text;
  if (width > start.length + 1) {
    // The end of the path names the version (/v1, /v1p2): kept, from a /, when one is in reach.
    const tail = text.slice(text.length - (width - start.length - 1));
    const slash = tail.indexOf('/');
    return `${start}…${slash >= 0 ? tail.slice(slash) : ''}`;
  }
  return `${start}…`;
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
