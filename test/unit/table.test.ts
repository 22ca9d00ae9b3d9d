import { describe, expect, it } from 'vitest';
import { type Column, tableText } from '../../src/output/render.js';
import { colours } from '../../src/output/style.js';
import {
  columnsThatFit,
  cutUrl,
  fieldShrink,
  fitWidths,
  layoutTable,
  type TableColumn,
} from '../../src/output/table.js';

/** Each column's width for these rows on a terminal `width` columns wide. */
const tableWidths = async (columns: TableColumn[], rows: string[][], width: number) => [
  ...(await layoutTable(columns, rows, width)).widths,
];

const ESC = '\u001b';
const plain = (width: number) => ({ width, color: false });

describe('the table layout', () => {
  it('gh style: a header row, columns two spaces apart, no borders, no separators, no trailing spaces', async () => {
    const columns: Column<[string, number]>[] = [
      { header: 'NAME', value: (r) => r[0] },
      { header: 'COUNT', value: (r) => r[1] },
    ];
    expect(
      await tableText(
        columns,
        [
          ['alder', 3],
          ['birch-elementary', 12],
        ],
        plain(80),
      ),
    ).toBe(['NAME              COUNT', 'alder             3', 'birch-elementary  12', ''].join('\n'));
  });

  it('fits the terminal by cutting only the shrinkable columns, the widest first', async () => {
    const columns = [
      { header: 'sourcedId' },
      { header: 'email' },
      { header: 'title', shrink: 'end' as const },
      { header: 'notes', shrink: 'end' as const },
    ];
    const row = ['usr-000000000001', 'guardian.long@district.example', 'x'.repeat(30), 'y'.repeat(20)];
    // 102 characters wide: the title gives way first, then title and notes in turn.
    expect(await tableWidths(columns, [row], 80)).toEqual([16, 30, 14, 14]);
    expect(await tableWidths(columns, [row], 92)).toEqual([16, 30, 20, 20]);
    expect(await tableWidths(columns, [row], 200)).toEqual([16, 30, 30, 20]);
    // Not below 8 characters: on a very narrow terminal the e-mail, which may not be cut, is left out.
    expect(await tableWidths(columns, [row], 40)).toEqual([16, 10, 10]);
    const text = await tableText(
      columns.map((c, i) => ({ ...c, value: (r: string[]) => r[i] })),
      [row],
      plain(80),
    );
    for (const line of text.trimEnd().split('\n')) expect(line.length).toBeLessThanOrEqual(80);
    expect(text).toContain(`usr-000000000001  guardian.long@district.example  ${'x'.repeat(13)}…  `);
    expect(text).toContain('…');
  });

  it('never cuts an identifier: a column that cannot fit is left out, and the caller says so', async () => {
    const layout = await layoutTable(
      [{ header: 'id' }, { header: 'email' }],
      [['a'.repeat(50), 'b'.repeat(50)]],
      80,
    );
    expect(layout.widths).toEqual([50]);
    expect(layout.hidden).toEqual(['email']);
    expect(layout.lines([['a'.repeat(50), 'b'.repeat(50)]])).toEqual(['a'.repeat(50)]);
    // The first column always stays: alone, it runs on.
    expect((await layoutTable([{ header: 'id' }], [['a'.repeat(90)]], 80)).widths).toEqual([90]);
  });

  it('leaves columns out from the right, keeping a narrower one after a column that cannot fit', async () => {
    const columns: Column<string[]>[] = [
      { header: 'sourcedId', value: (r) => r[0] },
      { header: 'givenName', value: (r) => r[1], shrink: 'end' },
      { header: 'email', value: (r) => r[2] },
      { header: 'status', value: (r) => r[3], shrink: 'end' },
    ];
    const row = ['stu-000001', 'Zoë', 'zoe.akesson1@students.riverside.example.org', 'active'];
    const text = await tableText(columns, [row], plain(60));
    expect(text).toBe(
      [
        'sourcedId   givenName  status',
        'stu-000001  Zoë        active',
        'Not shown, to fit 60 columns: email (a wider window, a pipe or --json shows it).',
        '',
      ].join('\n'),
    );
    expect(
      columnsThatFit(
        [16, 8, 8].map((floor) => ({ natural: floor, header: 1, floor })),
        30,
      ),
    ).toEqual([0, 1]);
  });

  it('a URL keeps scheme://host:port and the end of its path', async () => {
    const url = 'https://sis.springfield-district.example:8443/ims/oneroster/rostering/v1p1';
    expect(cutUrl(url, 60)).toBe('https://sis.springfield-district.example:8443…/v1p1');
    expect(cutUrl(url, 47)).toBe('https://sis.springfield-district.example:8443…');
    // The column never gets narrower than the origin and its ellipsis.
    expect(await tableWidths([{ header: 'BASE URL', shrink: 'url' }], [[url]], 20)).toEqual([46]);
    // Text that is not a URL is cut at its end.
    expect(cutUrl('(not set)', 5)).toBe('(not set)');
    const cut = await tableText(
      [
        { header: 'BASE URL', value: (r: string) => r, shrink: 'url' },
        { header: 'ID', value: () => 'x'.repeat(70) },
      ],
      ['(not set) by anyone at all'],
      plain(80),
    );
    expect(cut).toContain(`(not se…  ${'x'.repeat(70)}`);
  });

  it('measures and cuts as a terminal shows text: CJK characters and emoji take two columns', async () => {
    const columns: Column<[string, string]>[] = [
      { header: 'name', value: (r) => r[0], shrink: 'end' },
      { header: 'id', value: (r) => r[1] },
    ];
    const rows: [string, string][] = [
      ['日本語の名前', 'a-1'],
      ['Zoë 😀', 'b-2'],
      ['plain', 'c-3'],
    ];
    // 日本語の名前 is 6 characters and 12 columns: every id starts in column 14.
    expect(await tableText(columns, rows, plain(80))).toBe(
      ['name          id', '日本語の名前  a-1', 'Zoë 😀        b-2', 'plain         c-3', ''].join('\n'),
    );
    // Cut to 8 columns: three wide characters and … (7), padded by one; the ids stay in line.
    expect(await tableText(columns, rows, plain(13))).toBe(
      ['name      id', '日本語…   a-1', 'Zoë 😀    b-2', 'plain     c-3', ''].join('\n'),
    );
    // Cut to 8 columns, an emoji is never split into half a surrogate pair, and the column keeps its width.
    const emoji = await tableText(
      columns,
      [
        ['Zoë 😀😀😀😀', 'a-1'],
        ['abcdefghij', 'b-2'],
      ],
      plain(13),
    );
    expect(emoji).toBe(['name      id', 'Zoë 😀…   a-1', 'abcdefg…  b-2', ''].join('\n'));
    expect(emoji).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });

  it('keeps headers whole while a value can give way; only then cuts a header, never an identifier', async () => {
    const columns = [
      { header: 'id' },
      { header: 'givenName', shrink: 'end' as const },
      { header: 'notes', shrink: 'end' as const },
    ];
    const row = ['usr-0000000000000001', 'Maximilianus', 'n'.repeat(40)];
    // The notes give way to 8 before givenName is cut below its header's 9.
    expect(await tableWidths(columns, [row], 41)).toEqual([20, 9, 8]);
    const text = await tableText(
      columns.map((c, i) => ({ ...c, value: (r: string[]) => r[i] })),
      [row],
      plain(41),
    );
    expect(text.split('\n')[0]).toBe('id                    givenName  notes');
    expect(text.split('\n')[1]).toBe(`usr-0000000000000001  Maximili…  ${'n'.repeat(7)}…`);
    // One column short: the header is cut last, down to 8, as that makes the row fit.
    expect(await tableWidths(columns, [row], 40)).toEqual([20, 8, 8]);
    // A row that cannot fit however narrow its names get leaves the last column out, headers whole.
    expect(await tableWidths(columns, [row], 39)).toEqual([20, 12]);
    const fits = [
      { natural: 20, header: 2, floor: 20 },
      { natural: 12, header: 9, floor: 8 },
      { natural: 40, header: 5, floor: 8 },
    ];
    expect(fitWidths(fits, 30)).toEqual([20, 9, 8]);
    expect(fitWidths(fits, 80)).toEqual([20, 12, 40]);
  });

  it('knows which record fields identify', () => {
    for (const field of [
      'id',
      'sourcedId',
      'schoolId',
      'orgSourcedIds',
      'userIds',
      'parent',
      'class',
      'classCode',
      'email',
      'username',
      'identifier',
      'createdAt',
      'dateLastModified',
      'beginDate',
    ]) {
      expect(fieldShrink(field)).toBeUndefined();
    }
    expect(fieldShrink('baseUrl')).toBe('url');
    for (const field of ['givenName', 'title', 'status', 'scopes', 'grid', 'role']) {
      expect(fieldShrink(field)).toBe('end');
    }
  });

  it("makes server text safe first, then styles it: its escapes shown, roster's own bold rendered", async () => {
    const bold = colours(true).bold;
    const columns: Column<string>[] = [
      { header: 'NAME', value: (name) => name, style: (text) => bold(text) },
    ];
    const text = await tableText(columns, [`Eve${ESC}[2J`], { width: 80, color: true });
    expect(text).toContain(`${ESC}[1mEve\\u001b[2J${ESC}[22m`);
    expect(text).toContain(`${ESC}[1mNAME${ESC}[22m`);
    // The styling is not measured: the cell is cut by its visible text, then styled, … included.
    const narrow = await tableText(
      [
        { header: 'NAME', value: (n: string) => n, style: (t: string) => bold(t), shrink: 'end' as const },
        { header: 'ID', value: () => 'x'.repeat(70) },
      ],
      ['a'.repeat(20)],
      { width: 80, color: true },
    );
    expect(narrow).toContain(`${ESC}[1m${'a'.repeat(7)}…${ESC}[22m  ${'x'.repeat(70)}`);
    // Without colour no style is applied at all.
    expect(await tableText(columns, ['Eve'], plain(80))).not.toContain(ESC);
  });

  it('an instant in a cell is shown in local time on a terminal; a date alone stays', async () => {
    const columns: Column<Record<string, string>>[] = [
      { header: 'createdAt', value: (r) => r.createdAt },
      { header: 'birthDate', value: (r) => r.birthDate },
    ];
    const text = await tableText(
      columns,
      [{ createdAt: '2026-11-24T09:15:00.000Z', birthDate: '2015-03-02' }],
      plain(80),
    );
    expect(text).toMatch(/2026-11-24 \d\d:\d\d \S+ +2015-03-02/);
  });
});
