// The claims file read on from where a process stopped: after another process rewrote it, even when the
// new file got the old one's inode number back (as ext4 does), the reader starts again from the top.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Claim, ClaimsFile } from '../../src/invite/store/claims.js';
import { tempDir } from '../helpers/temp.js';

const claim = (id: string, state: Claim['state']): Claim => ({
  id,
  run: '/state/invites/run.journal',
  state,
  at: '2026-11-24T12:00:00.000Z',
  pid: 4242,
});
const line = (c: Claim) => `${JSON.stringify(c)}\n`;

/** The latest claim of each invitation as `file` sees it on its next update (adding nothing). */
async function seen(file: ClaimsFile): Promise<Map<string, Claim['state']>> {
  let view = new Map<string, Claim['state']>();
  await file.update((latest) => {
    view = new Map([...latest].map(([id, c]) => [id, c.state]));
    return [];
  });
  return view;
}

describe('the claims file', () => {
  it('is read again from the top when rewritten in place (the same inode, a longer file)', async () => {
    const path = join(tempDir(), 'sent.claims');
    const reader = new ClaimsFile(path);
    await reader.update(() => [claim('a', 'sending'), claim('b', 'sending')]);
    const inode = statSync(path).ino;
    // Another process's rewrite, as the file system may hand it out: same inode, new first line, and longer
    // than what the reader has read, so neither the inode nor the size tells.
    writeFileSync(
      path,
      `{"rewrite":"0b8f4c1e-other-process"}\n${line(claim('b', 'in-doubt'))}${line(claim('c', 'sending'))}${line(claim('d', 'sending'))}`,
    );
    expect(statSync(path).ino).toBe(inode);
    expect(await seen(reader)).toEqual(
      new Map([
        ['b', 'in-doubt'],
        ['c', 'sending'],
        ['d', 'sending'],
      ]),
    );
  });

  it('reads on from where it stopped while the file only grows', async () => {
    const path = join(tempDir(), 'sent.claims');
    const reader = new ClaimsFile(path);
    const writer = new ClaimsFile(path);
    await reader.update(() => [claim('a', 'sending')]);
    await writer.update(() => [claim('a', 'done'), claim('b', 'sending')]);
    expect(await seen(reader)).toEqual(
      new Map([
        ['a', 'done'],
        ['b', 'sending'],
      ]),
    );
  });

  it('rewritten with its unsettled claims under a header line of its own, which readers skip', async () => {
    const path = join(tempDir(), 'sent.claims');
    const writer = new ClaimsFile(path);
    const settled = Array.from({ length: 1100 }, (_, i) => claim(`done-${i}`, 'done'));
    await writer.update(() => [...settled, claim('open', 'sending')]);
    await writer.update(() => [claim('next', 'sending')]);
    const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
    expect(JSON.parse(lines[0] ?? '')).toEqual({ rewrite: expect.any(String) });
    expect(lines.length).toBeLessThan(10);
    expect(await seen(new ClaimsFile(path))).toEqual(
      new Map([
        ['open', 'sending'],
        ['next', 'sending'],
      ]),
    );
  });
});
