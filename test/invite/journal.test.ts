import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { invitationKey } from '../../src/invite/invitation.js';
import { contentHash, Journal, journalPath } from '../../src/invite/journal.js';
import { tempDir } from '../helpers/context.js';

const district = { baseUrl: 'https://a.example/v1', clientId: 'c1' };
const header = (file = '/data/invites.csv', content = 'x', destination = district) => ({
  journal: 'roster invite send' as const,
  version: 1 as const,
  file,
  destination,
  sha256: contentHash(content),
});
const at = '2026-01-01T00:00:00.000Z';
const row = (n: number) => ({ key: invitationKey(`p${n}@x.org`, 's1'), line: n });

describe('invitationKey', () => {
  it('is the e-mail, trimmed and in any case, and the school', () => {
    expect(invitationKey(' Parent@Example.ORG ', 'sch-1')).toBe(invitationKey('parent@example.org', 'sch-1'));
    expect(invitationKey('parent@example.org', 'sch-1')).not.toBe(
      invitationKey('parent@example.org', 'sch-2'),
    );
  });
});

describe('journalPath', () => {
  it('is named after the file and a hash of its absolute path and destination, not its content', () => {
    const a = journalPath('/state', '/data/invites.csv', district);
    expect(a).toMatch(/^\/state\/invites\/invites\.csv-[0-9a-f]{16}\.jsonl$/);
    expect(journalPath('/state', '/data/invites.csv', { ...district })).toBe(a);
    expect(journalPath('/state', '/other/invites.csv', district)).not.toBe(a);
    expect(
      journalPath('/state', '/data/invites.csv', { ...district, baseUrl: 'https://b.example/v1' }),
    ).not.toBe(a);
    expect(journalPath('/state', '/data/invites.csv', { ...district, clientId: 'c2' })).not.toBe(a);
  });
});

describe('Journal', () => {
  it('appends JSON lines and reads the last state of each row back, by key', async () => {
    const path = join(tempDir(), 'invites', 'j.jsonl');
    const journal = await Journal.open(path, header(), new Date(at));
    expect(journal.created).toBe(true);
    await Promise.all([
      journal.record([{ ...row(2), state: 'in-flight', at }]),
      journal.record([{ ...row(3), state: 'in-flight', at }]),
    ]);
    await journal.record([{ ...row(2), state: 'sent', at }]);
    await journal.close();
    const lines = readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({
      journal: 'roster invite send',
      version: 1,
      file: '/data/invites.csv',
      destination: district,
    });
    expect(lines).toHaveLength(4);

    const again = await Journal.open(path, header(), new Date(at));
    expect(again.created).toBe(false);
    expect(again.states.get(row(2).key)?.state).toBe('sent');
    expect(again.states.get(row(3).key)?.state).toBe('in-flight');
    await again.close();
  });

  it('accepts a changed content (the header keeps the first hash), refuses another file or destination', async () => {
    const path = join(tempDir(), 'j.jsonl');
    await (await Journal.open(path, header('/a.csv', 'first'), new Date(at))).close();
    const edited = await Journal.open(path, header('/a.csv', 'edited'), new Date());
    expect(edited.header.sha256).toBe(contentHash('first'));
    expect(edited.header.createdAt).toBe(at);
    await edited.close();
    expect((await Journal.peek(path)).header?.sha256).toBe(contentHash('first'));
    await expect(Journal.open(path, header('/b.csv'), new Date(at))).rejects.toThrow(
      /belongs to another file or destination/,
    );
    await expect(
      Journal.open(path, header('/a.csv', 'x', { ...district, clientId: 'c2' }), new Date(at)),
    ).rejects.toThrow(/belongs to another file or destination/);
  });

  it('reads entries written before rows had a key by their e-mail and school', async () => {
    const path = join(tempDir(), 'j.jsonl');
    writeFileSync(
      path,
      `${JSON.stringify({ ...header(), createdAt: at })}\n` +
        `{"line":2,"state":"sent","at":"${at}","email":"Old@X.org","schoolId":"s1"}\n` +
        `{"line":3,"state":"in-flight","at":"${at}","email":"other@x.org","schoolId":"s1"}\n`,
    );
    const { states } = await Journal.peek(path);
    expect(states.get(invitationKey('old@x.org', 's1'))).toMatchObject({ state: 'sent', line: 2 });
    expect(states.get(invitationKey('other@x.org', 's1'))?.state).toBe('in-flight');
    // One that names no row cannot be matched: refused rather than forgotten.
    appendFileSync(path, `{"line":4,"state":"sent","at":"${at}"}\n`);
    await expect(Journal.peek(path)).rejects.toThrow(/entry at line 4 that names no e-mail and school/);
  });

  it('drops a torn last line left by a crash, so later appends start on a fresh line', async () => {
    const path = join(tempDir(), 'j.jsonl');
    const first = await Journal.open(path, header(), new Date(at));
    await first.record([{ ...row(2), state: 'in-flight', at }]);
    await first.close();
    appendFileSync(path, '{"key":"p2@x.org s1","line":2,"state":"se');
    const peeked = await Journal.peek(path);
    expect(peeked.states.get(row(2).key)?.state).toBe('in-flight');
    const journal = await Journal.open(path, header(), new Date(at));
    await journal.record([{ ...row(3), state: 'sent', at }]);
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

  it('refuses a damaged journal', async () => {
    const path = join(tempDir(), 'j.jsonl');
    await (await Journal.open(path, header('/a.csv'), new Date(at))).close();
    writeFileSync(
      path,
      `${readFileSync(path, 'utf8')}garbage\n{"key":"p2@x.org s1","line":2,"state":"sent","at":"${at}"}\n`,
    );
    await expect(Journal.open(path, header('/a.csv'), new Date(at))).rejects.toThrow(/damaged at line 2/);
  });
});
