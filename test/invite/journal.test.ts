// A file run's journal in the destination's database: the last state of each row by key, resumed by a later
// run of the same file (however it is spelled), and the file's lock (the run's row in `runs`): another live
// run of the file is refused, a dead one's is taken over. Read back straight from SQLite (helpers/store.ts).
import { createHash } from 'node:crypto';
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { invitationKey } from '../../src/invite/invitation.js';
import {
  canonicalBaseUrl,
  contentHash,
  FileRun,
  Journal,
  journalPath,
  peekRun,
  SentRecord,
} from '../../src/invite/store/index.js';
import { tempDir } from '../helpers/context.js';
import { bundleDriver, startDriver } from '../helpers/driver.js';
import { journalRows, runRows, storeDump, storeOf, storeWrite } from '../helpers/store.js';

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
const BUSY = /^Another roster run \(pid (\d+)\) is sending invitations from this file\.$/;

/** The destination's database in `state` (created if need be), for `body`; closed after. */
async function withStore<T>(state: string, body: (record: SentRecord) => T | Promise<T>): Promise<T> {
  const record = await SentRecord.open(state, district);
  try {
    return await body(record);
  } finally {
    await record.close();
  }
}

/** Opens `file`'s journal in `state` and lets it go again at once. */
const openAndClose = (state: string, file = '/data/invites.csv') =>
  withStore(state, (record) => Journal.open(record.store, header(file), new Date(at)).close());

/** Makes the run of `file` look held by another process (pid, host, start time), behind the store's back. */
function holdAs(state: string, file: string, pid: number, host: string | null, started: string | null) {
  storeWrite(
    storeOf(state),
    'UPDATE runs SET pid = ?, host = ?, started = ? WHERE run = ?',
    pid,
    host,
    started,
    file,
  );
}

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
  it('is the same for every spelling of the destination, and a hash of the real path and the canonical destination', () => {
    const canonical = journalPath('/state', '/data/invites.csv', {
      baseUrl: 'https://a.example/v1',
      clientId: 'c1',
    });
    expect(
      journalPath('/state', '/data/invites.csv', { baseUrl: 'HTTPS://A.example:443/V1/', clientId: 'c1' }),
    ).toBe(canonical);
    const hash = createHash('sha256').update('/data/invites.csv\0https://a.example/v1\0c1').digest('hex');
    expect(canonical).toBe(`/state/invites/invites.csv-${hash.slice(0, 16)}.jsonl`);
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

describe('the file a journal belongs to', () => {
  it('is the real path: a link to its folder and a path through `..` resume one journal, in one run', async () => {
    const root = tempDir();
    mkdirSync(join(root, 'real', 'sub'), { recursive: true });
    writeFileSync(join(root, 'real', 'invites.csv'), 'x');
    symlinkSync(join(root, 'real'), join(root, 'link'));
    const state = tempDir();
    const real = realpathSync(join(root, 'real', 'invites.csv'));
    const runOf = (file: string) => ({
      stateDir: state,
      file,
      sha256: contentHash('x'),
      destination: district,
    });
    const flags = { resendInDoubt: false, resendSent: false };

    const first = await FileRun.open(runOf(join(root, 'link', 'invites.csv')), [], flags, new Date(at));
    expect(first.view.header?.file).toBe(real);
    await first.close();
    const peeked = await peekRun(runOf(join(root, 'real', 'sub', '..', 'invites.csv')), [], flags);
    expect(peeked.header).toMatchObject({ file: real, createdAt: at });
    expect(peeked.path).toBe(storeOf(state));
    const again = await FileRun.open(
      runOf(join(root, 'real', 'sub', '..', 'invites.csv')),
      [],
      flags,
      new Date(),
    );
    expect(again.view.header).toMatchObject({ file: real, createdAt: at });
    await again.close();
    expect(runRows(storeOf(state))).toEqual([{ run: real, pid: null }]);
  });
});

describe('Journal', () => {
  it('keeps the last state of each row by key, on disk, and a later run reads them back', async () => {
    const state = tempDir();
    await withStore(state, async (record) => {
      const journal = Journal.open(record.store, header(), new Date(at));
      expect(journal.created).toBe(true);
      expect(journal.run).toBe('/data/invites.csv');
      await Promise.all([
        journal.record([{ ...row(2), state: 'in-flight', at }]),
        journal.record([{ ...row(3), state: 'in-flight', at }]),
      ]);
      await journal.record([{ ...row(2), state: 'sent', at }]);
      // On disk when record() resolves: another connection reads it.
      expect(journalRows(storeOf(state), '/data/invites.csv')).toEqual([
        { line: 2, state: 'sent', email: null, key: row(2).key, run: '/data/invites.csv' },
        { line: 3, state: 'in-flight', email: null, key: row(3).key, run: '/data/invites.csv' },
      ]);
      journal.close();
    });

    await withStore(state, (record) => {
      const again = Journal.open(record.store, header(), new Date());
      expect(again.created).toBe(false);
      expect(again.header).toEqual({ ...header(), createdAt: at });
      expect(again.states.get(row(2).key)?.state).toBe('sent');
      expect(again.states.get(row(3).key)?.state).toBe('in-flight');
      expect(again.states.size).toBe(2);
      again.close();
    });
  });

  it('resumed with a changed content keeps the header it began with (first hash, first time)', async () => {
    const state = tempDir();
    await withStore(state, (record) => {
      Journal.open(record.store, header('/a.csv', 'first'), new Date(at)).close();
      const edited = Journal.open(record.store, header('/a.csv', 'edited'), new Date());
      expect(edited.created).toBe(false);
      expect(edited.header.sha256).toBe(contentHash('first'));
      expect(edited.header.createdAt).toBe(at);
      edited.close();
      expect(Journal.peek(record.store, '/a.csv').header).toMatchObject({
        sha256: contentHash('first'),
        createdAt: at,
      });
    });
  });

  it("keeps two files' journals in one database apart", async () => {
    const state = tempDir();
    await withStore(state, async (record) => {
      const a = Journal.open(record.store, header('/a.csv'), new Date(at));
      await a.record([{ ...row(2), state: 'sent', at }]);
      // Another file: a journal of its own, begun now, which knows nothing of a's rows; both held at once.
      const b = Journal.open(record.store, header('/b.csv'), new Date());
      expect(b.created).toBe(true);
      expect(b.states.size).toBe(0);
      await b.record([{ ...row(2), state: 'failed', at }]);
      a.close();
      b.close();
      expect(Journal.peek(record.store, '/a.csv').states.get(row(2).key)?.state).toBe('sent');
      expect(Journal.peek(record.store, '/b.csv').states.get(row(2).key)?.state).toBe('failed');
    });
  });

  it('peek reads a journal without taking it, and finds none where there is no database or no run', async () => {
    expect(Journal.peek(undefined, '/a.csv')).toEqual({ states: new Map() });
    const state = tempDir();
    await withStore(state, async (record) => {
      expect(Journal.peek(record.store, '/a.csv')).toEqual({ states: new Map() });
      const journal = Journal.open(record.store, header('/a.csv'), new Date(at));
      await journal.record([{ ...row(2), state: 'in-doubt', at, reason: 'cut' }]);
      const before = storeDump(storeOf(state));
      const peeked = Journal.peek(record.store, '/a.csv');
      expect(peeked.header).toEqual({ ...header('/a.csv'), createdAt: at });
      expect(peeked.states.get(row(2).key)).toEqual({ state: 'in-doubt', at, reason: 'cut' });
      expect(storeDump(storeOf(state))).toEqual(before);
      journal.close();
    });
  });
  it("a server's text holding NUL reads back whole on every Node (as U+FFFD; Node 22 stopped at the NUL)", async () => {
    const state = tempDir();
    await withStore(state, async (record) => {
      const journal = Journal.open(record.store, header('/a.csv'), new Date(at));
      await journal.record([{ ...row(2), state: 'failed', at, reason: 'HTTP 400: bad\0 id\0' }]);
      journal.close();
      const peeked = Journal.peek(record.store, '/a.csv');
      expect(peeked.states.get(row(2).key)?.reason).toBe('HTTP 400: bad\uFFFD id\uFFFD');
    });
  });
});

describe("the file's lock (its run's row)", () => {
  let holder: string;
  beforeAll(async () => {
    // Another roster process: takes the journal of FILE in STATE, says so, and holds it until RELEASE exists.
    holder = await bundleDriver(
      'journal-holder',
      `
      import { existsSync } from 'node:fs';
      import { contentHash, Journal, SentRecord } from './src/invite/store/index.ts';
      const [state, file, release] = process.argv.slice(2);
      const destination = ${JSON.stringify(district)};
      const record = await SentRecord.open(state, destination);
      let journal;
      try {
        journal = Journal.open(record.store, { journal: 'roster invite send', version: 1, file, destination, sha256: contentHash('x') }, new Date());
      } catch (error) {
        process.stdout.write('refused: ' + error.message + '\\n');
        await record.close();
        process.exit(1);
      }
      process.stdout.write('held\\n');
      while (!existsSync(release)) await new Promise((r) => setTimeout(r, 20));
      journal.close();
      await record.close();`,
    );
  });

  /** A holder process; `held` resolves true once it holds the journal, false if it ended without. */
  function startHolder(state: string, release: string, file = '/data/invites.csv') {
    const run = startDriver(holder, [state, file, release]);
    const held = new Promise<boolean>((resolve) => {
      run.child.stdout.on('data', (d) => {
        if (String(d).includes('held')) resolve(true);
      });
      run.done.then(() => resolve(false));
    });
    return { ...run, held };
  }

  it('another live run of the same file is refused, naming its pid; once it lets go the file is free', async () => {
    const state = tempDir();
    const release = join(tempDir(), 'release');
    const other = startHolder(state, release);
    expect(await other.held).toBe(true);
    await withStore(state, (record) => {
      expect(() => Journal.open(record.store, header(), new Date(at))).toThrow(
        `Another roster run (pid ${other.child.pid}) is sending invitations from this file.`,
      );
      // Another file is not held by it.
      Journal.open(record.store, header('/data/other.csv'), new Date(at)).close();
    });
    writeFileSync(release, '');
    expect((await other.done).code).toBe(0);
    expect(runRows(storeOf(state))).toContainEqual({ run: '/data/invites.csv', pid: null });
    await withStore(state, (record) => {
      const mine = Journal.open(record.store, header(), new Date(at));
      expect(mine.created).toBe(false);
      expect(runRows(storeOf(state))).toContainEqual({ run: '/data/invites.csv', pid: process.pid });
      mine.close();
    });
    expect(runRows(storeOf(state))).toContainEqual({ run: '/data/invites.csv', pid: null });
  });

  it('a run killed with kill -9 while it held the file: taken over, and its journal resumed', async () => {
    const state = tempDir();
    const other = startHolder(state, join(tempDir(), 'never'));
    expect(await other.held).toBe(true);
    other.child.kill('SIGKILL');
    await other.done;
    expect(runRows(storeOf(state))).toEqual([{ run: '/data/invites.csv', pid: other.child.pid }]);
    await withStore(state, (record) => {
      const journal = Journal.open(record.store, header(), new Date());
      expect(journal.created).toBe(false);
      expect(runRows(storeOf(state))).toEqual([{ run: '/data/invites.csv', pid: process.pid }]);
      journal.close();
    });
    expect(runRows(storeOf(state))).toEqual([{ run: '/data/invites.csv', pid: null }]);
  });

  it('6 processes opening one file at once, fresh and over a killed holder: exactly one holds it, the rest are told why', async () => {
    for (const stale of [false, true]) {
      const state = tempDir();
      if (stale) {
        const killed = startHolder(state, join(tempDir(), 'never'));
        expect(await killed.held).toBe(true);
        killed.child.kill('SIGKILL');
        await killed.done;
      }
      const release = join(tempDir(), 'release');
      const racers = Array.from({ length: 6 }, () => startHolder(state, release));
      const held = await Promise.all(racers.map((r) => r.held));
      expect(held.filter(Boolean)).toHaveLength(1);
      const winner = racers[held.indexOf(true)]!;
      for (const [i, r] of racers.entries()) {
        if (held[i]) continue;
        const { code, out, err } = await r.done;
        expect({ code, out, err }).toEqual({
          code: 1,
          out: `refused: Another roster run (pid ${winner.child.pid}) is sending invitations from this file.\n`,
          err: '',
        });
      }
      expect(runRows(storeOf(state))).toEqual([{ run: '/data/invites.csv', pid: winner.child.pid }]);
      writeFileSync(release, '');
      expect((await winner.done).code).toBe(0);
      expect(runRows(storeOf(state))).toEqual([{ run: '/data/invites.csv', pid: null }]);
    }
  }, 60_000);

  it('this process cannot take a file it holds already', async () => {
    await withStore(tempDir(), (record) => {
      const journal = Journal.open(record.store, header(), new Date(at));
      expect(() => Journal.open(record.store, header(), new Date(at))).toThrow(BUSY);
      journal.close();
      Journal.open(record.store, header(), new Date(at)).close();
    });
  });

  // Start times come from /proc: elsewhere a live pid counts as the holder.
  it.skipIf(process.platform !== 'linux')(
    'taken over when its pid now belongs to another process (started at another time)',
    async () => {
      const state = tempDir();
      await openAndClose(state);
      holdAs(state, '/data/invites.csv', process.ppid, hostname(), '1');
      await openAndClose(state);
      expect(runRows(storeOf(state))).toEqual([{ run: '/data/invites.csv', pid: null }]);
    },
  );

  it.skipIf(process.platform !== 'linux')(
    'taken over when it names our pid but an earlier process (started at another time)',
    async () => {
      const state = tempDir();
      await openAndClose(state);
      holdAs(state, '/data/invites.csv', process.pid, hostname(), '1');
      await openAndClose(state);
      expect(runRows(storeOf(state))).toEqual([{ run: '/data/invites.csv', pid: null }]);
    },
  );

  it("held by a run on another host: taken over (SQLite's WAL is one machine's: a copied folder left it)", async () => {
    const state = tempDir();
    await openAndClose(state);
    holdAs(state, '/data/invites.csv', process.ppid, 'elsewhere.example', null);
    await openAndClose(state);
    expect(runRows(storeOf(state))).toEqual([{ run: '/data/invites.csv', pid: null }]);
  });

  it('is let go only by its holder: a run that took it over meanwhile keeps it', async () => {
    const state = tempDir();
    await withStore(state, (record) => {
      const journal = Journal.open(record.store, header(), new Date(at));
      holdAs(state, '/data/invites.csv', process.ppid, hostname(), null);
      journal.close();
    });
    expect(runRows(storeOf(state))).toEqual([{ run: '/data/invites.csv', pid: process.ppid }]);
    await expect(openAndClose(state)).rejects.toThrow(BUSY);
  });
});
