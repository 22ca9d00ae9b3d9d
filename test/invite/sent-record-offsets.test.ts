// The record's read offset after a run's own appends, which are passed over rather than read back: with a
// torn line a killed writer left, a header this process wrote on a new file, forget's lines, and another
// writer in between, each run still reads every other's sends.
import { appendFileSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { invitationIdentity, SentRecord, sentRecordPath } from '../../src/invite/store/index.js';
import { tempDir } from '../helpers/context.js';

const destination = { baseUrl: 'http://127.0.0.1:8080/v1', clientId: 'district-42' };
const at = (i: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
const entry = (email: string, i = 0) => ({ email, schoolId: 'sch-1', sentAt: at(i) });
const id = (email: string) => invitationIdentity(email, 'sch-1');
const ask = () => ({
  ignoreSent: false,
  ignoreDoubt: false,
  signal: new AbortController().signal,
  holdMs: 60_000,
});
const A = { run: '/j/a', file: 'a.csv' };
const B = { run: '/j/b', file: 'b.csv' };

async function opened(state: string) {
  const r = await SentRecord.open(state, destination);
  r.load();
  return r;
}

describe("roster's record: a run's own appends passed over", () => {
  it('a new file: the header one run writes, then the other, each sees the other’s sends', async () => {
    const state = tempDir();
    const a = await opened(state);
    const b = await opened(state);
    for (let i = 0; i < 5; i++) {
      await a.claim(id(`a${i}@x.org`), A, ask());
      await a.settle(id(`a${i}@x.org`), A, 'done', entry(`a${i}@x.org`, i));
      await b.claim(id(`b${i}@x.org`), B, ask());
      await b.settle(id(`b${i}@x.org`), B, 'done', entry(`b${i}@x.org`, i));
    }
    for (let i = 0; i < 5; i++) {
      expect(await b.claim(id(`a${i}@x.org`), B, ask())).toEqual({ kind: 'sent', sentAt: at(i) });
      expect(await a.claim(id(`b${i}@x.org`), A, ask())).toEqual({ kind: 'sent', sentAt: at(i) });
    }
    await Promise.all([a.close(), b.close()]);
  });

  it('a torn line between two batches, cut by the other writer, then forget lines: offsets follow', async () => {
    const state = tempDir();
    const a = await opened(state);
    await a.add([entry('seed@x.org', 1), entry('f@x.org', 1)]);
    const b = await opened(state);
    const path = sentRecordPath(state, destination);
    // A writer killed mid-line.
    appendFileSync(path, '{"email":"torn@x.org","schoolId":"sch');
    await a.claim(id('a@x.org'), A, ask());
    await a.settle(id('a@x.org'), A, 'done', entry('a@x.org', 2)); // cuts the torn line, passes over its own
    appendFileSync(path, '{"email":"torn2@x.org","sch');
    await b.claim(id('b@x.org'), B, ask());
    await b.settle(id('b@x.org'), B, 'done', entry('b@x.org', 3)); // reads a's, cuts torn2, passes over
    const forgetter = await opened(state);
    await forgetter.forget((p) => p.email === 'f@x.org', true);
    await forgetter.close();
    await a.claim(id('a2@x.org'), A, ask());
    await a.settle(id('a2@x.org'), A, 'done', entry('a2@x.org', 4));
    expect(await a.claim(id('b@x.org'), A, ask())).toEqual({ kind: 'sent', sentAt: at(3) });
    expect(await b.claim(id('a@x.org'), B, ask())).toEqual({ kind: 'sent', sentAt: at(2) });
    expect(await b.claim(id('a2@x.org'), B, ask())).toEqual({ kind: 'sent', sentAt: at(4) });
    expect(a.has(id('f@x.org'))).toBe(false);
    expect(b.has(id('f@x.org'))).toBe(false);
    expect(b.has(id('seed@x.org'))).toBe(true);
    const text = readFileSync(path, 'utf8');
    expect(text).not.toContain('torn');
    const fresh = await opened(state);
    expect(['seed', 'a', 'b', 'a2', 'f'].map((e) => fresh.has(id(`${e}@x.org`)))).toEqual([
      true,
      true,
      true,
      true,
      false,
    ]);
    await Promise.all([a.close(), b.close(), fresh.close()]);
  });
});
