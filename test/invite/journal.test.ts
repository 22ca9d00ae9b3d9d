import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { contentHash, Journal, journalPath } from '../../src/invite/journal.js';
import { tempDir } from '../helpers/context.js';

const header = (file = '/data/invites.csv', content = 'x') => ({
  journal: 'roster invite send' as const,
  version: 1 as const,
  file,
  sha256: contentHash(content),
});
const at = '2026-01-01T00:00:00.000Z';

describe('journalPath', () => {
  it('is named after the file and a hash of its absolute path and content', () => {
    const a = journalPath('/state', '/data/invites.csv', 'a');
    expect(a).toMatch(/^\/state\/invites\/invites\.csv-[0-9a-f]{16}\.jsonl$/);
    expect(journalPath('/state', '/data/invites.csv', 'b')).not.toBe(a);
    expect(journalPath('/state', '/other/invites.csv', 'a')).not.toBe(a);
  });
});

describe('Journal', () => {
  it('appends JSON lines and reads the last state of each row back', async () => {
    const path = join(tempDir(), 'invites', 'j.jsonl');
    const journal = await Journal.open(path, header(), new Date(at));
    expect(journal.created).toBe(true);
    await Promise.all([
      journal.record([{ line: 2, state: 'in-flight', at }]),
      journal.record([{ line: 3, state: 'in-flight', at }]),
    ]);
    await journal.record([{ line: 2, state: 'sent', at }]);
    await journal.close();
    const lines = readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ journal: 'roster invite send', version: 1, file: '/data/invites.csv' });
    expect(lines).toHaveLength(4);

    const again = await Journal.open(path, header(), new Date(at));
    expect(again.created).toBe(false);
    expect(again.states.get(2)?.state).toBe('sent');
    expect(again.states.get(3)?.state).toBe('in-flight');
    await again.close();
  });

  it('drops a torn last line left by a crash, so later appends start on a fresh line', async () => {
    const path = join(tempDir(), 'j.jsonl');
    const first = await Journal.open(path, header(), new Date(at));
    await first.record([{ line: 2, state: 'in-flight', at }]);
    await first.close();
    appendFileSync(path, '{"line":2,"state":"se');
    const peeked = await Journal.peek(path);
    expect(peeked.get(2)?.state).toBe('in-flight');
    const journal = await Journal.open(path, header(), new Date(at));
    await journal.record([{ line: 3, state: 'sent', at }]);
    await journal.close();
    const text = readFileSync(path, 'utf8');
    expect(text).not.toContain('"se\n');
    expect(
      text
        .trim()
        .split('\n')
        .every((l) => JSON.parse(l)),
    ).toBe(true);
  });

  it('refuses a second run on the same journal while the first is alive, and takes over a dead one', async () => {
    const path = join(tempDir(), 'j.jsonl');
    writeFileSync(`${path}.lock`, String(process.ppid)); // a live process that is not us
    await expect(Journal.open(path, header(), new Date(at))).rejects.toThrow(
      /Another roster run \(pid \d+\)/,
    );
    writeFileSync(`${path}.lock`, '999999999'); // no such process
    const journal = await Journal.open(path, header(), new Date(at));
    await journal.close();
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it('refuses a journal of another file, and a damaged one', async () => {
    const path = join(tempDir(), 'j.jsonl');
    await (await Journal.open(path, header('/a.csv'), new Date(at))).close();
    await expect(Journal.open(path, header('/b.csv'), new Date(at))).rejects.toThrow(
      /belongs to another file/,
    );
    writeFileSync(path, `${readFileSync(path, 'utf8')}garbage\n{"line":2,"state":"sent","at":"${at}"}\n`);
    await expect(Journal.open(path, header('/a.csv'), new Date(at))).rejects.toThrow(/damaged at line 2/);
  });
});
