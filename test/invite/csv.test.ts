import { describe, expect, it } from 'vitest';
import {
  CsvEncodingError,
  csvLine,
  csvText,
  detectDelimiter,
  parseCsv,
  SLICE,
} from '../../src/invite/csv.js';

describe('parseCsv', () => {
  it('strips a UTF-8 BOM and reads CRLF, LF and lone CR line ends', async () => {
    const { records, problems } = await parseCsv('\ufeffa,b\r\n1,2\n3,4\r5,6');
    expect(problems).toEqual([]);
    expect(records).toEqual([
      { line: 1, fields: ['a', 'b'] },
      { line: 2, fields: ['1', '2'] },
      { line: 3, fields: ['3', '4'] },
      { line: 4, fields: ['5', '6'] },
    ]);
  });

  it('quoted fields hold commas, doubled quotes and line breaks; line numbers follow the file', async () => {
    const { records } = await parseCsv('h1,h2\r\n"a, b","say ""hi"""\r\n"two\r\nlines",x\r\nlast,y\r\n');
    expect(records).toEqual([
      { line: 1, fields: ['h1', 'h2'] },
      { line: 2, fields: ['a, b', 'say "hi"'] },
      { line: 3, fields: ['two\r\nlines', 'x'] },
      { line: 5, fields: ['last', 'y'] },
    ]);
  });

  it('skips blank lines, trailing or not, and keeps empty fields', async () => {
    const { records } = await parseCsv('a,b\n\n1,\n\n\r\n\r\n');
    expect(records).toEqual([
      { line: 1, fields: ['a', 'b'] },
      { line: 3, fields: ['1', ''] },
    ]);
  });

  it('counts the same lines with or without a quote in the file (a quote-free one skips csv-parse info)', async () => {
    const lines = [
      { line: 2, fields: ['a', 'b'] },
      { line: 4, fields: [' '] },
      { line: 5, fields: ['1', '2'] },
      { line: 7, fields: ['3', '4'] },
    ];
    // csvText left a second BOM, then a blank line; CRLF, LF and lone CR; a line of a space is no blank line.
    const plain = await parseCsv('\ufeff\na,b\r\n\r\n \n1,2\r\r3,4');
    expect(plain).toEqual({ records: lines, problems: [] });
    const quoted = await parseCsv('\ufeff\na,b\r\n\r\n \n"1",2\r\r3,4');
    expect(quoted).toEqual({ records: lines, problems: [] });
  });

  it('a quote-free file of several MiB (read a slice at a time) gives the lines a quoted one does', async () => {
    const ends = ['\n', '\r\n', '\r', '\n\n', '\r\n\r\n', '\r\r'];
    const lines: string[] = [];
    for (let i = 0, size = 0; size < 2.5 * 2 ** 20; i++) {
      const line = `p${i}@example.org,org-sch-${i % 7},${'x'.repeat(i % 13)}${ends[(i * 7) % ends.length]}`;
      lines.push(line);
      size += line.length;
    }
    const plain = await parseCsv(lines.join(''));
    const quoted = await parseCsv(`${lines.join('')}"last",row`);
    expect(plain.records.length).toBe(lines.length);
    expect(quoted.records.slice(0, -1)).toEqual(plain.records);
    expect(plain.records.at(-1)?.line).toBeGreaterThan(lines.length);
  });

  it('a quote-free file cut into slices where a line end meets the cut gives the lines a quoted one does', async () => {
    /**
     * A file whose line end `end` (after LF-ended filler lines) starts at byte `at`, then three more lines;
     * `cell`, the first cell of the line `end` ends.
     */
    const fileWith = (at: number, end: string) => {
      const filler = Math.floor((at - 10) / 64);
      const cell = 'r'.repeat(at - filler * 64 - 2);
      return { text: `${'f'.repeat(61)},g\n`.repeat(filler) + `${cell},s${end}t,u\nv,w\r\nx,y`, cell };
    };
    const cases = [
      [SLICE - 1, '\r\n'], // a CRLF across the cut
      [SLICE, '\r\n'], // a CRLF from the cut
      [SLICE, '\r'], // a lone CR at the cut
      [SLICE - 1, '\n'], // the cut at a line's start
      [SLICE - 1, '\n\n\r\n'], // blank lines across the cut
      [SLICE, '\r\r'],
    ] as const;
    for (const [at, end] of cases) {
      const { text, cell } = fileWith(at, end);
      expect(text.slice(at, at + end.length)).toBe(end);
      const plain = await parseCsv(text);
      const quoted = await parseCsv(`${text}\n"last",row`);
      expect(quoted.records.slice(0, -1)).toEqual(plain.records);
      expect(plain.records.slice(-4).map((r) => r.fields[0])).toEqual([cell, 't', 'v', 'x']);
    }
  });

  it('a broken record behind a second BOM and a blank line is reported on its own line', async () => {
    const { records, problems } = await parseCsv('\ufeff\n"a"x,1\nc,d');
    expect(problems).toEqual([{ line: 2, reason: expect.stringContaining('text after a closing quote') }]);
    expect(records).toEqual([{ line: 3, fields: ['c', 'd'] }]);
  });

  it('reports broken quoting with the line it starts on, and goes on reading', async () => {
    const { records, problems } = await parseCsv('a,b\n"x"y,1\nok,2\nq"uote,3\n"never closed,4\nmore');
    expect(problems).toEqual([
      { line: 2, reason: expect.stringContaining('text after a closing quote') },
      { line: 4, reason: expect.stringContaining('quote inside an unquoted field') },
      { line: 5, reason: expect.stringContaining('never closed') },
    ]);
    expect(records.map((r) => r.line)).toEqual([1, 3]);
  });

  it('a broken first record behind a second BOM (one csvText left) resumes where it broke, not 3 bytes early', async () => {
    const { records, problems } = await parseCsv('\ufeff"a\nb"x\nc,d\n');
    expect(problems).toEqual([{ line: 1, reason: expect.stringContaining('text after a closing quote') }]);
    expect(records).toEqual([{ line: 3, fields: ['c', 'd'] }]);
  });

  it('after a broken record spanning lines, reading resumes on the line after the one where it broke', async () => {
    const { records, problems } = await parseCsv('a,b\r\n"multi\r\nline"x,1\r\nok,2\r\n""\r\n"x",y');
    expect(problems).toEqual([{ line: 2, reason: expect.stringContaining('text after a closing quote') }]);
    // A line holding only "" is blank.
    expect(records).toEqual([
      { line: 1, fields: ['a', 'b'] },
      { line: 4, fields: ['ok', '2'] },
      { line: 6, fields: ['x', 'y'] },
    ]);
  });

  it('csvLine quotes what needs quoting and round-trips', async () => {
    const values = ['plain', 'a,b', 'say "hi"', 'two\nlines', ' padded'];
    const text = csvLine(values);
    expect(text).toBe('plain,"a,b","say ""hi""","two\nlines"," padded"\r\n');
    expect((await parseCsv(text)).records[0]?.fields).toEqual(values);
  });
});

describe('detectDelimiter', () => {
  it("the header's most frequent of comma, semicolon and tab, outside quotes; a comma otherwise", () => {
    expect(detectDelimiter('email;schoolId;studentCount\r\na,b;c;1')).toBe(';');
    expect(detectDelimiter('\ufeffemail\tschoolId\n')).toBe('\t');
    expect(detectDelimiter('email,schoolId\n')).toBe(',');
    expect(detectDelimiter('"a;b;c",d\n')).toBe(',');
    expect(detectDelimiter('\r\n\r\nemail;schoolId')).toBe(';');
    expect(detectDelimiter('email\nx;y;z')).toBe(',');
  });

  it('a forced delimiter is used whatever the header', async () => {
    const { records } = await parseCsv('a,b;c\n1,2;3\n', ';');
    expect(records.map((r) => r.fields)).toEqual([
      ['a,b', 'c'],
      ['1,2', '3'],
    ]);
  });
});

describe('csvText', () => {
  const text = 'email;name\r\nz@example.org;Zoë 李\r\n';
  it('decodes UTF-8 with or without a BOM and UTF-16 LE and BE by their BOM', () => {
    expect(csvText(Buffer.from(text))).toBe(text);
    expect(csvText(Buffer.from(`\ufeff${text}`))).toBe(text);
    expect(csvText(Buffer.from(`\ufeff${text}`, 'utf16le'))).toBe(text);
    expect(csvText(Buffer.from(`\ufeff${text}`, 'utf16le').swap16())).toBe(text);
  });

  it('refuses bytes that are not UTF-8, naming the line, and odd UTF-16', () => {
    expect(() => csvText(Buffer.from('a\nb\n\xe9t\xe9\n', 'latin1'))).toThrow(
      new CsvEncodingError(
        'line 3 is not UTF-8 text; save it from Excel as "CSV UTF-8 (Comma delimited)" or "Unicode Text"',
      ),
    );
    expect(() => csvText(Buffer.from([0xff, 0xfe, 0x41]))).toThrow(/not valid UTF-16/);
  });
});
