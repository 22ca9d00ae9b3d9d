// Invitation files exported from spreadsheets, read with csv-parse (RFC 4180: CRLF, LF or CR line ends,
// quoted fields holding delimiters, doubled quotes and line breaks; blank lines skipped), as Excel saves them:
// UTF-8 with or without a BOM, UTF-16 with its BOM ("Unicode Text"), and the delimiter of the header line
// (a comma, or the semicolon of locales whose decimal mark is a comma, or the tab of "Unicode Text") unless
// one is forced. What is ours: the line each record starts on, counted from the bytes (csv-parse's own count is where a record
// ends, and counts a CRLF inside quotes twice), and going on after broken quoting so the whole file is
// reported at once: a broken record is reported on its first line and reading resumes on the line after
// the one where it broke. Column counts are checked against the header by the caller (invite-file.ts).
import type { CsvError, Options } from 'csv-parse/sync';
import { csvCell } from '../output/csv.js';

export interface CsvRecord {
  /** 1-based line of the file where the record starts. */
  line: number;
  fields: string[];
}

export interface CsvProblem {
  line: number;
  reason: string;
}

export interface CsvParse {
  records: CsvRecord[];
  problems: CsvProblem[];
}

const CR = 13;
const LF = 10;
const QUOTE = 0x22;

/** The delimiters a spreadsheet writes, by the names `--delimiter` takes. */
export const DELIMITERS = { comma: ',', semicolon: ';', tab: '\t' } as const;
export type Delimiter = (typeof DELIMITERS)[keyof typeof DELIMITERS];

/** Why a file's bytes are not text roster reads (thrown by csvText). */
export class CsvEncodingError extends Error {}

/**
 * A file's bytes as text: UTF-16 (little or big endian) when it starts with that BOM, else UTF-8 (a BOM
 * dropped). Bytes that are not UTF-8 (Excel's plain "CSV" in a Windows code page) are refused, never
 * guessed at: a name mangled into U+FFFD would be sent as it reads.
 */
export function csvText(bytes: Uint8Array): string {
  const [a, b] = bytes;
  const decode = (encoding: string, from: number) =>
    new TextDecoder(encoding, { fatal: true, ignoreBOM: true }).decode(bytes.subarray(from));
  try {
    if (a === 0xff && b === 0xfe) return decode('utf-16le', 2);
    if (a === 0xfe && b === 0xff) return decode('utf-16be', 2);
    const bom = a === 0xef && b === 0xbb && bytes[2] === 0xbf;
    return decode('utf-8', bom ? 3 : 0);
  } catch (error) {
    // A decoding error is the file's encoding; the only other failure is a file too large for one string.
    if (!(error instanceof TypeError))
      throw new CsvEncodingError(
        `it is too large to read (${Math.round(bytes.length / 2 ** 20)} MiB); split it`,
      );
    const utf16 = a === 0xff || a === 0xfe;
    throw new CsvEncodingError(
      utf16
        ? 'it starts as UTF-16 but is not valid UTF-16 text'
        : `line ${firstBadLine(bytes)} is not UTF-8 text; save it from Excel as "CSV UTF-8 (Comma delimited)" or "Unicode Text"`,
    );
  }
}

/** The line of the first character that is not UTF-8 (as a lenient decode marks it), for the message. */
function firstBadLine(bytes: Uint8Array): number {
  const text = new TextDecoder('utf-8').decode(bytes);
  const at = text.indexOf('\ufffd');
  return text.slice(0, Math.max(at, 0)).split(/\r\n|\r|\n/).length;
}

/**
 * The delimiter of the header (the first line that is not blank): the one of comma, semicolon and tab that
 * it holds most often outside quotes; a comma when it holds none (a one-column file) or on a tie.
 */
export function detectDelimiter(text: string): Delimiter {
  const header = text.replace(/^\ufeff/, '').replace(/^[\r\n]+/, '');
  const counts = new Map<string, number>(Object.values(DELIMITERS).map((d) => [d, 0]));
  let quoted = false;
  for (const char of header) {
    if (char === '"') quoted = !quoted;
    else if (!quoted && (char === '\r' || char === '\n')) break;
    else if (!quoted && counts.has(char)) counts.set(char, (counts.get(char) ?? 0) + 1);
  }
  let best: Delimiter = ',';
  for (const [d, n] of counts) if (n > (counts.get(best) ?? 0)) best = d as Delimiter;
  return best;
}

/** Every record and every problem of a CSV text. */
export async function parseCsv(input: string, delimiter?: Delimiter): Promise<CsvParse> {
  const records: CsvRecord[] = [];
  const { problems } = await readCsvRecords(input, (record) => records.push(record), delimiter);
  return { records, problems };
}

/** The CSV's records handed to `onRecord` in order as they are read (none held), and its problems. */
export async function readCsvRecords(
  input: string,
  onRecord: (record: CsvRecord) => void,
  delimiter: Delimiter = detectDelimiter(input),
): Promise<{ problems: CsvProblem[] }> {
  // Loaded on first use: only `invite send --file` reads a CSV.
  const { parse, CsvError } = await import('csv-parse/sync');
  const bytes = Buffer.from(input, 'utf8');
  const lineAt = lineFinder(bytes);
  if (!bytes.includes(QUOTE)) {
    readUnquoted(parse, bytes, delimiter, (start, fields) => onRecord({ line: lineAt(start), fields }));
    return { problems: [] };
  }
  const problems: CsvProblem[] = [];
  let from = 0;
  while (from < bytes.length) {
    const offset = from;
    let end = from; // where the last record read ended
    const options: Options = {
      ...PLAIN,
      bom: offset === 0,
      delimiter,
      on_record: (fields: string[], info) => {
        const start = recordStart(bytes, end);
        end = offset + info.bytes;
        if (!isBlank(fields)) onRecord({ line: lineAt(start), fields });
        return null;
      },
    };
    try {
      parse(bytes.subarray(offset), options);
      break;
    } catch (error) {
      if (!(error instanceof CsvError)) throw error;
      const start = recordStart(bytes, end);
      problems.push({ line: lineAt(start), reason: reasonOf(error, lineAt(start)) });
      // Where the record broke: the same bytes parsed again with `raw`, whose error holds the record up to
      // the character where it broke (after any blank lines before it). Only a broken file pays for `raw`:
      // it copies every character, and costs a district's file ~40% more to read.
      const again: Options = { ...options, raw: true, on_record: () => null };
      const raw = rawOfError(parse, CsvError, bytes.subarray(offset), again);
      const broke = start + Buffer.byteLength(raw.replace(/^[\r\n]+/, '')) - 1;
      from = nextLine(bytes, Math.max(start, broke));
    }
  }
  return { problems };
}

/** How every CSV is read: any line end, blank lines skipped, column counts checked by the caller. */
const PLAIN: Options = {
  record_delimiter: ['\r\n', '\n', '\r'],
  skip_empty_lines: true,
  relax_column_count: true,
};

/** A record csv-parse makes of a line holding only "": as blank as an empty one. */
const isBlank = (fields: string[]) => fields.length === 1 && fields[0] === '';

/**
 * A file without a quote character, read by csv-parse a slice of whole lines at a time, each record handed on
 * with the byte it starts at. With no quote, every line that is not empty is one record (csv-parse skips only
 * lines with no character at all), so a record ends with its line: its start is found from there, not from
 * csv-parse's per-record info, which costs two objects a record (a third of a district file's parse).
 */
function readUnquoted(
  parse: typeof import('csv-parse/sync').parse,
  bytes: Buffer,
  delimiter: Delimiter,
  onRecord: (start: number, fields: string[]) => void,
): void {
  let end = 0;
  for (let from = 0; from < bytes.length; ) {
    const to = nextLine(bytes, Math.min(from + SLICE, bytes.length));
    const records: string[][] = parse(bytes.subarray(from, to), { ...PLAIN, bom: from === 0, delimiter });
    for (const fields of records) {
      const start = recordStart(bytes, end);
      if (!isBlank(fields)) onRecord(start, fields);
      end = nextLine(bytes, start);
    }
    from = to;
  }
}

/** Bytes of a file without quotes parsed at a time: its records are handed on, not all held at once. */
export const SLICE = 1 << 20;

/** The `raw` text of the error parsing `bytes` meets (raw on): the record it broke in, up to where. */
function rawOfError(
  parse: typeof import('csv-parse/sync').parse,
  CsvError: typeof import('csv-parse/sync').CsvError,
  bytes: Buffer,
  options: Options,
): string {
  try {
    parse(bytes, options);
  } catch (error) {
    if (error instanceof CsvError && typeof error.raw === 'string') return error.raw;
  }
  return '';
}

function reasonOf(error: CsvError, line: number): string {
  switch (error.code) {
    case 'CSV_INVALID_CLOSING_QUOTE':
      return 'text after a closing quote (write a quote inside a quoted field as "")';
    case 'INVALID_OPENING_QUOTE':
      return 'a quote inside an unquoted field (quote the whole field)';
    case 'CSV_QUOTE_NOT_CLOSED':
      return `a quoted field opened on line ${line} is never closed`;
    default:
      return error.message;
  }
}

/** The 1-based line of a byte offset; CRLF, LF and a lone CR each end a line. */
function lineFinder(bytes: Buffer): (offset: number) => number {
  const starts = [0];
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === CR && bytes[i + 1] === LF) i++;
    if (bytes[i] === CR || bytes[i] === LF) starts.push(i + 1);
  }
  return (offset) => {
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if ((starts[mid] as number) <= offset) low = mid;
      else high = mid - 1;
    }
    return low + 1;
  };
}

function skipLineEnds(bytes: Buffer, at: number): number {
  let i = at;
  while (bytes[i] === CR || bytes[i] === LF) i++;
  return i;
}

/**
 * Where the record after the one that ended at `end` starts: past blank lines, and past a BOM csv-parse
 * dropped at the very start (a second one: csvText drops the first), which is not in the record's text.
 */
const recordStart = (bytes: Buffer, end: number) => skipLineEnds(bytes, skipBom(bytes, end));

/** Past a UTF-8 BOM at the very start of the bytes (csv-parse's `bom` option drops it). */
function skipBom(bytes: Buffer, at: number): number {
  return at === 0 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : at;
}

/** The offset of the line after the one holding `at`. */
function nextLine(bytes: Buffer, at: number): number {
  let i = at;
  while (i < bytes.length && bytes[i] !== CR && bytes[i] !== LF) i++;
  if (bytes[i] === CR && bytes[i + 1] === LF) i++;
  return i + 1;
}

/** One row of a CSV written for spreadsheets (CRLF line ends), fed back with `--file`. */
export function csvLine(values: readonly string[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}
