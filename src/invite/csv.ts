// RFC 4180 CSV reading with line numbers, for invitation files exported from spreadsheets: a UTF-8 BOM,
// CRLF or LF line ends, quoted fields holding commas, doubled quotes and line breaks, blank lines skipped.
// Problems are collected, not thrown, so the whole file can be reported at once.

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

export function parseCsv(input: string): CsvParse {
  const text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  const records: CsvRecord[] = [];
  const problems: CsvProblem[] = [];
  let line = 1;
  let i = 0;

  while (i < text.length) {
    const start = line;
    const fields: string[] = [];
    let broken: string | undefined;
    // One record: fields until an unquoted line end or the end of the text.
    for (;;) {
      let value = '';
      if (text[i] === '"') {
        i++;
        let closed = false;
        while (i < text.length) {
          const ch = text[i]!;
          if (ch === '"') {
            if (text[i + 1] === '"') {
              value += '"';
              i += 2;
              continue;
            }
            i++;
            closed = true;
            break;
          }
          // A line break inside quotes moves the line count as one outside does: CRLF, LF or a lone CR.
          if (ch === '\n' || (ch === '\r' && text[i + 1] !== '\n')) line++;
          value += ch;
          i++;
        }
        if (!closed) {
          broken ??= `a quoted field opened on line ${start} is never closed`;
        } else if (i < text.length && text[i] !== ',' && text[i] !== '\r' && text[i] !== '\n') {
          broken ??= 'text after a closing quote (write a quote inside a quoted field as "")';
          while (i < text.length && text[i] !== ',' && text[i] !== '\r' && text[i] !== '\n') i++;
        }
      } else {
        while (i < text.length && text[i] !== ',' && text[i] !== '\r' && text[i] !== '\n') {
          if (text[i] === '"') broken ??= 'a quote inside an unquoted field (quote the whole field)';
          value += text[i];
          i++;
        }
      }
      fields.push(value);
      if (text[i] === ',') {
        i++;
        continue;
      }
      break;
    }
    // The record's line end: CRLF, LF or a lone CR.
    if (text[i] === '\r') i++;
    if (text[i] === '\n') i++;
    line++;

    const blank = fields.length === 1 && fields[0] === '' && broken === undefined;
    if (blank) continue;
    if (broken !== undefined) problems.push({ line: start, reason: broken });
    else records.push({ line: start, fields });
  }
  return { records, problems };
}

/** One CSV field, quoted when it needs to be. */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) || /^\s|\s$/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

export function csvLine(values: string[]): string {
  return `${values.map(csvField).join(',')}\r\n`;
}
