import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { invitationKey } from '../../src/invite/invitation.js';
import {
  canonicalBaseUrl,
  contentHash,
  Journal,
  journalPath,
  locateJournal,
} from '../../src/invite/journal.js';
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

describe('canonicalBaseUrl', () => {
  it('spells one service one way: case, default port, loopback, trailing and repeated slashes', () => {
    const one = 'http://127.0.0.1:8080/v1';
    for (const spelling of [
      'http://localhost:8080/v1',
      'http://[::1]:8080/v1/',
      'HTTP://LocalHost:8080/V1//',
      'http://127.0.0.1:8080//v1',
      'http://localhost.:8080/v1',
    ])
      expect(canonicalBaseUrl(spelling), spelling).toBe(one);
    expect(canonicalBaseUrl('https://API.District.example:443/Rostering/V1/')).toBe(
      'https://api.district.example/rostering/v1',
    );
    // Another port, scheme or host is another service.
    expect(canonicalBaseUrl('http://127.0.0.1:8081/v1')).not.toBe(one);
    expect(canonicalBaseUrl('https://127.0.0.1:8080/v1')).not.toBe(one);
    expect(canonicalBaseUrl('http://127.0.0.2:8080/v1')).not.toBe(one);
  });
});

describe('journalPath', () => {
  it('is the same for every spelling of the destination, and keeps the name earlier releases gave it', () => {
    const canonical = journalPath('/state', '/data/invites.csv', {
      baseUrl: 'https://a.example/v1',
      clientId: 'c1',
    });
    expect(
      journalPath('/state', '/data/invites.csv', { baseUrl: 'HTTPS://A.example:443/V1/', clientId: 'c1' }),
    ).toBe(canonical);
    const released = createHash('sha256').update('/data/invites.csv\0https://a.example/v1\0c1').digest('hex');
    expect(canonical).toBe(`/state/invites/invites.csv-${released.slice(0, 16)}.jsonl`);
  });

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

describe('locateJournal', () => {
  it('finds the file by its real path (symlinks, relative, ..) and other journals of it by their header', async () => {
    const root = tempDir();
    mkdirSync(join(root, 'real', 'sub'), { recursive: true });
    writeFileSync(join(root, 'real', 'invites.csv'), 'x');
    symlinkSync(join(root, 'real'), join(root, 'link'));
    const state = tempDir();
    const real = realpathSync(join(root, 'real', 'invites.csv'));
    const places = await Promise.all(
      [join(root, 'link', 'invites.csv'), join(root, 'real', 'sub', '..', 'invites.csv')].map((f) =>
        locateJournal(state, f, district),
      ),
    );
    for (const place of places)
      expect(place).toEqual({ path: journalPath(state, real, district), file: real, legacy: [] });
    // A journal of the same file and service under another spelling, and one of another file.
    const other = join(state, 'invites', 'old.jsonl');
    mkdirSync(join(state, 'invites'));
    const old = {
      ...header(join(root, 'link', 'invites.csv')),
      destination: { ...district, baseUrl: 'HTTPS://A.EXAMPLE/v1/' },
    };
    writeFileSync(other, `${JSON.stringify({ ...old, createdAt: at })}\n`);
    writeFileSync(
      join(state, 'invites', 'else.jsonl'),
      `${JSON.stringify({ ...header('/else.csv'), createdAt: at })}\n`,
    );
    // Anything but a regular file is not read (a FIFO would block).
    execFileSync('mkfifo', [join(state, 'invites', 'fifo.jsonl')]);
    expect((await locateJournal(state, join(root, 'real', 'invites.csv'), district)).legacy).toEqual([other]);
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

  it('carries over older journals once, each row at its most-sent state; a dry run sees them too', async () => {
    const dir = tempDir();
    const old = (name: string, rows: object[]) => {
      const path = join(dir, name);
      writeFileSync(
        path,
        [{ ...header(), createdAt: at }, ...rows].map((o) => `${JSON.stringify(o)}\n`).join(''),
      );
      return path;
    };
    const a = old('a.jsonl', [
      { ...row(2), state: 'sent', at },
      { ...row(3), state: 'failed', at },
    ]);
    const b = old('b.jsonl', [
      { ...row(2), state: 'failed', at },
      { ...row(3), state: 'in-flight', at },
      { ...row(4), state: 'pending', at },
    ]);
    const path = join(dir, 'j.jsonl');
    const seen = (await Journal.peek(path, [a, b])).states;
    expect(existsSync(path)).toBe(false);
    const journal = await Journal.open(path, header(), new Date(at), [a, b]);
    for (const states of [seen, journal.states])
      expect([2, 3, 4].map((n) => states.get(row(n).key)?.state)).toEqual(['sent', 'in-flight', 'pending']);
    expect(journal.carriedOver).toEqual([a, b]);
    await journal.record([{ ...row(3), state: 'sent', at }]);
    await journal.close();
    const length = readFileSync(path, 'utf8').length;
    // Carried over once: a later run keeps what this journal says since.
    const again = await Journal.open(path, header(), new Date(at), [a, b]);
    expect(again.carriedOver).toEqual([]);
    expect(again.states.get(row(3).key)?.state).toBe('sent');
    await again.close();
    expect(readFileSync(path, 'utf8')).toHaveLength(length);
  });

  it('does not carry over a journal an earlier release is running right now (its bare-pid lock is alive)', async () => {
    const dir = tempDir();
    const old = join(dir, 'old.jsonl');
    writeFileSync(old, `${JSON.stringify({ ...header(), createdAt: at })}\n`);
    writeFileSync(`${old}.lock`, String(process.ppid));
    const path = join(dir, 'j.jsonl');
    await expect(Journal.open(path, header(), new Date(at), [old])).rejects.toThrow(/Another roster run/);
    expect(existsSync(`${path}.lock`)).toBe(false);
    expect(readFileSync(`${old}.lock`, 'utf8')).toBe(String(process.ppid));
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
    writeFileSync(`${path}.lock`, String(process.ppid)); // an older release's lock: a live process that is not us
    await expect(Journal.open(path, header(), new Date(at))).rejects.toThrow(
      /Another roster run \(pid \d+\)/,
    );
    writeFileSync(`${path}.lock`, '999999999'); // no such process
    const journal = await Journal.open(path, header(), new Date(at));
    await journal.close();
    expect(existsSync(`${path}.lock`)).toBe(false);
  });
});

describe('the journal lock', () => {
  const owner = (fields: Record<string, unknown>) =>
    JSON.stringify({ pid: process.ppid, token: '0123456789abcdef', host: hostname(), ...fields });
  const opens = (path: string, n: number) =>
    Promise.allSettled(Array.from({ length: n }, () => Journal.open(path, header(), new Date(at))));
  const held = (results: PromiseSettledResult<Journal>[]) =>
    results.filter((r): r is PromiseFulfilledResult<Journal> => r.status === 'fulfilled').map((r) => r.value);
  /** The stale lock at `path` is replaced by ours (our pid, a new token) while open, and gone once closed. */
  async function expectTakenOver(path: string): Promise<void> {
    const stale = JSON.parse(readFileSync(`${path}.lock`, 'utf8'));
    const journal = await Journal.open(path, header(), new Date(at));
    const lock = JSON.parse(readFileSync(`${path}.lock`, 'utf8'));
    expect(lock).toMatchObject({ pid: process.pid, host: hostname() });
    expect(lock.token).toMatch(/^[0-9a-f]{16}$/);
    expect(lock.token).not.toBe(stale.token);
    await journal.close();
    expect(readdirSync(join(path, '..'))).toEqual(['j.jsonl']);
  }

  it('is taken by exactly one of many opens at once, fresh or over a dead owner, and the rest are told why', async () => {
    for (const stale of [undefined, owner({ pid: 999999999 }), '999999999']) {
      const path = join(tempDir(), 'j.jsonl');
      if (stale) writeFileSync(`${path}.lock`, stale);
      const results = await opens(path, 12);
      const winners = held(results);
      expect(winners).toHaveLength(1);
      for (const r of results)
        if (r.status === 'rejected')
          expect(String(r.reason)).toMatch(
            /Another roster run \(pid \d+\) is sending invitations from this file/,
          );
      // The lock names its owner from the moment it exists.
      expect(JSON.parse(readFileSync(`${path}.lock`, 'utf8'))).toMatchObject({ pid: process.pid });
      await winners[0]?.close();
      expect(readdirSync(join(path, '..'))).toEqual(['j.jsonl']);
    }
  });

  // Start times come from /proc: elsewhere a live pid counts as the owner.
  it.skipIf(process.platform !== 'linux')(
    'takes over a lock whose pid now belongs to another process (started at another time)',
    async () => {
      const path = join(tempDir(), 'j.jsonl');
      writeFileSync(`${path}.lock`, owner({ started: '1' }));
      await expectTakenOver(path);
    },
  );

  it('takes over a lock left by an earlier process that had our pid', async () => {
    const path = join(tempDir(), 'j.jsonl');
    writeFileSync(`${path}.lock`, owner({ pid: process.pid }));
    await expectTakenOver(path);
  });

  it('refuses a lock held on another host (it cannot be checked from here), naming the file to delete', async () => {
    const path = join(tempDir(), 'j.jsonl');
    writeFileSync(`${path}.lock`, owner({ pid: 999999999, host: 'elsewhere.example' }));
    await expect(Journal.open(path, header(), new Date(at))).rejects.toMatchObject({
      message: expect.stringMatching(/pid 999999999 on elsewhere\.example/),
      hint: expect.stringMatching(/delete .*j\.jsonl\.lock and run the command again/),
    });
  });

  it('waits out an empty lock while it may be an older release writing its pid, then takes it over', async () => {
    const path = join(tempDir(), 'j.jsonl');
    writeFileSync(`${path}.lock`, '');
    await expect(Journal.open(path, header(), new Date(at))).rejects.toThrow(/Another roster run/);
    const old = new Date(Date.now() - 60_000);
    utimesSync(`${path}.lock`, old, old);
    await (await Journal.open(path, header(), new Date(at))).close();
  });

  it('an empty lock stamped ahead of this machine’s clock is aged by how far: a year ahead is taken over, 2 s ahead waited out', async () => {
    const path = join(tempDir(), 'j.jsonl');
    writeFileSync(`${path}.lock`, '');
    const soon = new Date(Date.now() + 2_000);
    utimesSync(`${path}.lock`, soon, soon);
    await expect(Journal.open(path, header(), new Date(at))).rejects.toThrow(/Another roster run/);
    const nextYear = new Date(Date.now() + 365 * 86_400_000);
    utimesSync(`${path}.lock`, nextYear, nextYear);
    await (await Journal.open(path, header(), new Date(at))).close();
  });

  it('finishes a takeover another run was killed in the middle of', async () => {
    const path = join(tempDir(), 'j.jsonl');
    writeFileSync(`${path}.lock`, owner({ pid: 999999999 }));
    writeFileSync(
      `${path}.lock.0123456789abcdef.takeover`,
      owner({ pid: 999999998, token: 'fedcba9876543210' }),
    );
    const results = await opens(path, 6);
    expect(held(results)).toHaveLength(1);
    await held(results)[0]?.close();
    expect(readdirSync(join(path, '..'))).toEqual(['j.jsonl']);
  });

  it('is released only by its owner: a lock that is no longer ours is left in place', async () => {
    const path = join(tempDir(), 'j.jsonl');
    const journal = await Journal.open(path, header(), new Date(at));
    const other = owner({ pid: process.ppid });
    writeFileSync(`${path}.lock`, other);
    await journal.close();
    expect(readFileSync(`${path}.lock`, 'utf8')).toBe(other);
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
