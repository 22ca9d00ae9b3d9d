// The one table layout, as GitHub CLI prints them: a header row, then a line per row, columns two spaces
// apart, no borders and no lines between rows. Cells are measured as a terminal shows them (string-width:
// an East Asian character or an emoji takes two columns), padded, and cut with … at a whole character.
// What is roster's own is the decision of which columns give way on a narrow terminal, and how far: only
// the columns a command marks as shrinkable, the widest first, never below their header while a value can
// give way instead; values that identify (sourcedIds, e-mails, a base URL's scheme://host:port) are never
// cut. A row that still would not fit leaves columns out, from the right (a command lists its columns
// most telling first), so that no row wraps onto a second line; the first column always stays, and the
// caller says which were left out (pipes, --json and --csv have them all).
//
// Cells arrive already made safe (displayText) and are styled after they are cut: the only escape
// sequences in a line are roster's own colours, which are neither measured nor cut.
//
// Not cli-table3 (the design card's choice): laid out borderless it gave the same lines 10-15 times slower
// (10,000 rows: 2.6-3.0 s against 0.2 s; its layout is quadratic in the rows it is given) and could split
// an emoji in half before its …; measuring is the hard part, and string-width does it.

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

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

type Measure = (text: string) => number;
let measuring: Promise<Measure> | undefined;
/**
 * A text's width in terminal columns. string-width (and its Unicode tables) loads only for a command that
 * prints a table; printable ASCII, nearly every cell, takes a column a character and is not looked up.
 */
const loadMeasure = () =>
  (measuring ??= import('string-width').then(
    ({ default: stringWidth }) =>
      (text: string) =>
        PRINTABLE_ASCII.test(text) ? text.length : stringWidth(text),
  ));

let graphemes: Intl.Segmenter | undefined;
/** The text cut to at most `width` columns, … included, at a whole character (an emoji is never halved). */
function cutEnd(text: string, width: number, measure: Measure): string {
  if (measure(text) <= width) return text;
  if (PRINTABLE_ASCII.test(text)) return `${text.slice(0, Math.max(0, width - 1))}…`;
  graphemes ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  let kept = '';
  let used = 0;
  for (const { segment } of graphemes.segment(text)) {
    const w = measure(segment);
    if (used + w > width - 1) break;
    kept += segment;
    used += w;
  }
  return `${kept}…`;
}

/** Each column's widest cell (at least 1). A loop, not Math.max(...): a page may hold 100,000s of rows. */
function widestCells(count: number, rows: readonly (readonly string[])[], measure: Measure): number[] {
  const widths = Array.from({ length: count }, () => 1);
  for (const row of rows) {
    for (let i = 0; i < count; i++) {
      const w = measure(row[i] ?? '');
      if (w > (widths[i] ?? 0)) widths[i] = w;
    }
  }
  return widths;
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
  /** The width of each column shown. */
  widths: readonly number[];
  /** The headers of the columns left out to fit the terminal, in order. */
  hidden: readonly string[];
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
  const measure = await loadMeasure();
  const headers = columns.map((c) => c.header);
  const headerWidths = widestCells(columns.length, [headers], measure);
  const natural = widestCells(columns.length, rows, measure).map((w, i) => Math.max(w, headerWidths[i] ?? 0));
  const fits = columns.map((column, i) => {
    const needed = natural[i] ?? 0;
    return { natural: needed, header: headerWidths[i] ?? 0, floor: floorOf(column.shrink, i, needed, rows) };
  });
  const shown = columnsThatFit(fits, width);
  const widths = fitWidths(
    shown.map((i) => fits[i] as ColumnFit),
    width,
  );
  const lines = (rows: readonly (readonly string[])[], paint?: CellPaint) => {
    // A column that may not shrink widens for a longer value in these rows rather than cut it.
    const widest = widestCells(columns.length, rows, measure);
    const laidOut = shown.map((i, k) =>
      columns[i]?.shrink ? (widths[k] ?? 0) : Math.max(widths[k] ?? 0, widest[i] ?? 0),
    );
    const last = shown.length - 1;
    return rows.map((row, r) =>
      shown
        .map((c, k) => {
          const column = columns[c] as TableColumn;
          const text = row[c] ?? '';
          const room = laidOut[k] ?? 0;
          const cut =
            column.shrink === 'url'
              ? cutEnd(cutUrl(text, room), room, measure)
              : column.shrink
                ? cutEnd(text, room, measure)
                : text;
          const styled = paint ? paint(cut, r, c) : cut;
          // The padding stays unstyled, and the last column has none: no line ends in spaces.
          return k === last ? styled : styled + ' '.repeat(Math.max(0, room - measure(cut)));
        })
        .join(' '.repeat(GAP))
        .trimEnd(),
    );
  };
  return {
    widths,
    hidden: headers.filter((_, i) => !shown.includes(i)),
    header: lines([headers])[0] ?? '',
    lines,
  };
}

/**
 * The columns shown on a terminal `width` columns wide: from the left, each that fits beside those kept
 * when all are as narrow as they may get; one that does not is left out, and a narrower one after it may
 * still fit. The first column always stays (alone, it runs on).
 */
export function columnsThatFit(columns: readonly ColumnFit[], width: number): number[] {
  const shown: number[] = [];
  let used = -GAP;
  columns.forEach((column, i) => {
    if (i > 0 && used + GAP + column.floor > width) return;
    shown.push(i);
    used += GAP + column.floor;
  });
  return shown;
}

/** The line that says which columns a terminal's table left out, or nothing when it shows them all. */
export function hiddenNote(hidden: readonly string[], width: number): string {
  if (hidden.length === 0) return '';
  return `Not shown, to fit ${width} columns: ${hidden.join(', ')} (a wider window, a pipe or --json shows ${hidden.length === 1 ? 'it' : 'them'}).\n`;
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
 * is returned whole (cut at its end by the layout).
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
