// The streaming writers: valid JSON however the pages fall, CSV quoting, tables and TSV.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { csvCell, csvLine } from '../../src/output/csv.js';
import { createRecordWriter, type RecordColumn, type RecordFormat } from '../../src/output/record-stream.js';
import { fakeContext } from '../helpers/context.js';

const columns: RecordColumn[] = [
  { header: 'sourcedId', values: (r) => [String((r as { id: string }).id)] },
  { header: 'orgs', values: (r) => (r as { orgs: string[] }).orgs },
];

async function write(
  format: RecordFormat,
  pages: unknown[][],
  tty = false,
  shown: RecordColumn[] = columns,
): Promise<string> {
  const { ctx, stdout } = fakeContext({ tty });
  const writer = createRecordWriter(ctx, format, shown);
  for (const page of pages) await writer.writePage(page);
  await writer.end();
  return stdout();
}

describe('json and ndjson', () => {
  it('writes one valid JSON array whatever the pages, [] when empty', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.jsonValue(), { maxLength: 4 }), { maxLength: 5 }),
        async (pages) => {
          const out = await write('json', pages);
          expect(JSON.parse(out)).toEqual(JSON.parse(JSON.stringify(pages.flat())));
          expect(out.endsWith('\n')).toBe(true);
        },
      ),
    );
    expect(await write('json', [])).toBe('[]\n');
  });

  it('leaves the array open when end() is not reached (an interrupted export is not valid JSON)', async () => {
    const { ctx, stdout } = fakeContext();
    const writer = createRecordWriter(ctx, 'json', columns);
    await writer.writePage([{ a: 1 }]);
    expect(() => JSON.parse(stdout())).toThrow();
  });

  it('writes one record per line for ndjson', async () => {
    expect(await write('ndjson', [[{ a: 1 }, { b: 'x\ny' }], [], [{ c: null }]])).toBe(
      '{"a":1}\n{"b":"x\\ny"}\n{"c":null}\n',
    );
  });
});

describe('csv and tsv', () => {
  it('quotes cells with commas, quotes and line breaks; joins several values with commas', async () => {
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell("O'Brien, Mary")).toBe('"O\'Brien, Mary"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('a\nb')).toBe('"a\nb"');
    expect(csvCell(' padded')).toBe('" padded"');
    expect(csvLine(['a', 'b,c'])).toBe('a,"b,c"\n');
    expect(await write('csv', [[{ id: 'u1', orgs: ['o1', 'o2'] }], [{ id: 'u2', orgs: [] }]])).toBe(
      'sourcedId,orgs\nu1,"o1,o2"\nu2,\n',
    );
    expect(await write('csv', [])).toBe('sourcedId,orgs\n');
  });

  it('writes TSV with a header for pipes, tabs and newlines flattened', async () => {
    expect(await write('tsv', [[{ id: 'u\t1', orgs: ['o1', 'o2'] }]])).toBe('sourcedId\torgs\nu 1\to1, o2\n');
  });
});

describe('table', () => {
  it('aligns columns from the first page; later, longer cells are cut where the column may shrink', async () => {
    const out = await write(
      'table',
      [[{ id: 'stu-1', orgs: ['o1'] }], [{ id: 'stu-000000002-long', orgs: ['o2-with-a-long-id'] }]],
      true,
      [{ ...columns[0]!, shrink: 'end' }, columns[1]!],
    );
    // orgs holds sourcedIds: never cut, the row runs on instead.
    expect(out).toBe('sourcedId  orgs\nstu-1      o1\nstu-0000…  o2-with-a-long-id\n');
  });

  it('with colour the header is bold; an escape a server sent is shown, never obeyed', async () => {
    const { ctx, stdout } = fakeContext({ tty: true });
    ctx.color = true;
    const writer = createRecordWriter(ctx, 'table', columns);
    await writer.writePage([{ id: 'stu-\u001b[2J', orgs: ['o1'] }]);
    await writer.end();
    expect(stdout()).toBe('\u001b[1msourcedId      orgs\u001b[22m\nstu-\\u001b[2J  o1\n');
  });

  it('prints the header of an empty table', async () => {
    expect(await write('table', [], true)).toBe('sourcedId  orgs\n');
  });

  it('takes a first page of 300,000 rows (its widths are measured without spreading the rows)', async () => {
    const page = Array.from({ length: 300_000 }, (_, i) => ({ id: `stu-${i}`, orgs: ['o1'] }));
    const out = await write('table', [page], true);
    expect(out.split('\n')).toHaveLength(300_002);
    expect(out.split('\n')[300_000]).toBe('stu-299999  o1');
  });
});
