import { describe, expect, it } from 'vitest';
import { type Column, tableText } from '../../src/output/render.js';
import { colours } from '../../src/output/style.js';
import { cutCell, fieldShrink, tableWidths } from '../../src/output/table.js';

const ESC = '\u001b';
const plain = (width: number) => ({ width, color: false });

describe('the table layout', () => {
  it('gh style: a header row, columns two spaces apart, no borders, no separators, no trailing spaces', () => {
    const columns: Column<[string, number]>[] = [
      { header: 'NAME', value: (r) => r[0] },
      { header: 'COUNT', value: (r) => r[1] },
    ];
    expect(
      tableText(
        columns,
        [
          ['alder', 3],
          ['birch-elementary', 12],
        ],
        plain(80),
      ),
    ).toBe(['NAME              COUNT', 'alder             3', 'birch-elementary  12', ''].join('\n'));
  });

  it('fits the terminal by cutting only the shrinkable columns, the widest first', () => {
    const columns = [
      { header: 'sourcedId' },
      { header: 'email' },
      { header: 'title', shrink: 'end' as const },
      { header: 'notes', shrink: 'end' as const },
    ];
    const row = ['usr-000000000001', 'guardian.long@district.example', 'x'.repeat(30), 'y'.repeat(20)];
    // 102 characters wide: the title gives way first, then title and notes in turn.
    expect(tableWidths(columns, [row], 80)).toEqual([16, 30, 14, 14]);
    expect(tableWidths(columns, [row], 92)).toEqual([16, 30, 20, 20]);
    expect(tableWidths(columns, [row], 200)).toEqual([16, 30, 30, 20]);
    // Not below 8 characters: the row runs on past a very narrow terminal.
    expect(tableWidths(columns, [row], 40)).toEqual([16, 30, 8, 8]);
    const text = tableText(
      columns.map((c, i) => ({ ...c, value: (r: string[]) => r[i] })),
      [row],
      plain(80),
    );
    for (const line of text.trimEnd().split('\n')) expect(line.length).toBeLessThanOrEqual(80);
    expect(text).toContain(`usr-000000000001  guardian.long@district.example  ${'x'.repeat(13)}…  `);
    expect(text).toContain('…');
  });

  it('never cuts an identifier: when nothing can shrink, the row runs on', () => {
    const widths = tableWidths(
      [{ header: 'id' }, { header: 'email' }],
      [['a'.repeat(50), 'b'.repeat(50)]],
      80,
    );
    expect(widths).toEqual([50, 50]);
  });

  it('a URL keeps scheme://host:port and the end of its path', () => {
    const url = 'https://sis.springfield-district.example:8443/ims/oneroster/rostering/v1p1';
    expect(cutCell(url, 60, 'url')).toBe('https://sis.springfield-district.example:8443…/v1p1');
    expect(cutCell(url, 47, 'url')).toBe('https://sis.springfield-district.example:8443…');
    // The column never gets narrower than the origin and its ellipsis.
    expect(tableWidths([{ header: 'BASE URL', shrink: 'url' }], [[url]], 20)).toEqual([46]);
    expect(cutCell('(not set)', 5, 'url')).toBe('(not…');
    expect(cutCell('short', 10, 'end')).toBe('short');
    // Counted and cut by character: an emoji is not split into half a surrogate pair.
    expect(cutCell('Zoë 😀😀😀😀', 6, 'end')).toBe('Zoë 😀…');
    expect(tableWidths([{ header: 'n' }], [['Zoë 😀']], 80)).toEqual([5]);
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

  it("makes server text safe first, then styles it: its escapes shown, roster's own bold rendered", () => {
    const bold = colours(true).bold;
    const columns: Column<string>[] = [
      { header: 'NAME', value: (name) => name, style: (text) => bold(text) },
    ];
    const text = tableText(columns, [`Eve${ESC}[2J`], { width: 80, color: true });
    expect(text).toContain(`${ESC}[1mEve\\u001b[2J${ESC}[22m`);
    expect(text).toContain(`${ESC}[1mNAME${ESC}[22m`);
    // The styling is measured by nobody: the cell is cut by its visible text.
    const narrow = tableText(
      [
        { header: 'NAME', value: (n: string) => n, style: (t: string) => bold(t), shrink: 'end' as const },
        { header: 'ID', value: () => 'x'.repeat(70) },
      ],
      ['a'.repeat(20)],
      { width: 80, color: true },
    );
    expect(narrow).toContain(`${ESC}[1m${'a'.repeat(7)}…${ESC}[22m  ${'x'.repeat(70)}`);
    // Without colour no style is applied at all.
    expect(tableText(columns, ['Eve'], plain(80))).not.toContain(ESC);
  });

  it('an instant in a cell is shown in local time on a terminal; a date alone stays', () => {
    const columns: Column<Record<string, string>>[] = [
      { header: 'createdAt', value: (r) => r.createdAt },
      { header: 'birthDate', value: (r) => r.birthDate },
    ];
    const text = tableText(
      columns,
      [{ createdAt: '2026-11-24T09:15:00.000Z', birthDate: '2015-03-02' }],
      plain(80),
    );
    expect(text).toMatch(/2026-11-24 \d\d:\d\d \S+ +2015-03-02/);
  });
});
