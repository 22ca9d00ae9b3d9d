// roster's record of sent invitations and the claims on those being sent, in the destination's database:
// identities, reading back (straight from SQLite too: helpers/store.ts), real processes writing at once (and
// one killed with kill -9 mid-way), databases or folders planted by someone else, and claims between runs.
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  invitationIdentity,
  SentRecord,
  standing,
  storePath,
  waitEnd,
} from '../../src/invite/store/index.js';
import { guardedRun, plannedRow } from '../helpers/claims.js';
import { tempDir } from '../helpers/context.js';
import { bundleDriver, startDriver } from '../helpers/driver.js';
import { asRoot, expectOwnPrivate, expectUntouched, ME, NOBODY, victim } from '../helpers/planted.js';
import { claimRows, recordRows, storeDump, storeWrite } from '../helpers/store.js';

const destination = { baseUrl: 'http://127.0.0.1:8080/v1', clientId: 'district-42' };
const at = (i: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
const entry = (email: string, i = 0, schoolYearId?: string) => ({
  email,
  schoolId: 'sch-1',
  ...(schoolYearId !== undefined && { schoolYearId }),
  sentAt: at(i),
});
/** The record's rows as the tests compare them. */
const rowsOf = (state: string) =>
  recordRows(storePath(state, destination)).map(({ email, sentAt, forgottenAt }) => ({
    email,
    ...(sentAt !== undefined && { sentAt }),
    ...(forgottenAt !== undefined && { forgottenAt }),
  }));

async function reopened(state: string): Promise<SentRecord> {
  const record = await SentRecord.open(state, destination);
  try {
    record.load();
  } catch (error) {
    await record.close();
    throw error;
  }
  return record;
}

describe('invitationIdentity', () => {
  it('one identity per e-mail (trimmed, any case), school and school year (trimmed; none is "")', () => {
    const one = invitationIdentity('Parent@Example.org', 'sch-1', '2026');
    expect(invitationIdentity('  parent@example.ORG ', ' sch-1 ', ' 2026 ')).toBe(one);
    expect(invitationIdentity('parent@example.org', 'sch-1', '2027')).not.toBe(one);
    expect(invitationIdentity('parent@example.org', 'SCH-1', '2026')).not.toBe(one); // ids are exact
    expect(invitationIdentity('parent@example.org', 'sch-1')).toBe(
      invitationIdentity('parent@example.org', 'sch-1', ''),
    );
    expect(invitationIdentity('parent@example.org', 'sch-1', null)).toBe(
      invitationIdentity('parent@example.org', 'sch-1', '  '),
    );
    expect(invitationIdentity('parent@example.org', 'sch-1')).not.toBe(one);
  });

  it('never joins two different invitations into one (ids may hold spaces)', () => {
    expect(invitationIdentity('a@x.org', 'Alder School', '2026')).not.toBe(
      invitationIdentity('a@x.org', 'Alder', 'School 2026'),
    );
    expect(invitationIdentity('a@x.org', 'a","b', '')).not.toBe(invitationIdentity('a@x.org', 'a', 'b'));
  });
});

describe('SentRecord', () => {
  it('keeps what was added after its process lets go: one private database per destination, however spelled', async () => {
    const state = tempDir();
    const record = await SentRecord.open(state, destination);
    record.load();
    expect(record.size).toBe(0);
    await record.add([entry('A@x.org', 1), entry('b@x.org', 2, '2026')]);
    expect(record.has(invitationIdentity('a@x.org', 'sch-1'))).toBe(true);
    const path = storePath(state, destination);
    expect(path).toBe(join(state, 'sent', `127.0.0.1_8080-${path.slice(-19, -3)}.db`));
    expect(path.slice(-19, -3)).toMatch(/^[0-9a-f]{16}$/);
    expectOwnPrivate(path);
    // The write-ahead log beside it while in use: as private.
    expectOwnPrivate(`${path}-wal`);
    expect((statSync(dirname(path)).mode & 0o777).toString(8)).toBe('700');
    // On disk when add() resolves: another connection reads it.
    expect(rowsOf(state)).toEqual([
      { email: 'A@x.org', sentAt: at(1) },
      { email: 'b@x.org', sentAt: at(2) },
    ]);
    await record.close();

    // localhost for 127.0.0.1, a trailing slash, another case: the same service, the same record.
    const again = await SentRecord.open(state, { ...destination, baseUrl: 'HTTP://localhost:8080/V1/' });
    again.load();
    expect(again.has(invitationIdentity(' a@X.org', 'sch-1', ''))).toBe(true);
    expect(again.has(invitationIdentity('b@x.org', 'sch-1', '2026'))).toBe(true);
    expect(again.has(invitationIdentity('b@x.org', 'sch-1'))).toBe(false);
    expect(again.sentAt(invitationIdentity('b@x.org', 'sch-1', '2026'))).toBe(at(2));
    await again.close();
    // Another client of the same service is another record.
    const other = await SentRecord.open(state, { ...destination, clientId: 'district-43' });
    other.load();
    expect(other.size).toBe(0);
    await other.close();
    expect(storePath(state, { ...destination, clientId: 'district-43' })).not.toBe(path);
  });

  it('peek reads without creating anything; another destination’s database is refused', async () => {
    const state = join(tempDir(), 'state');
    const peeked = await SentRecord.peek(state, destination);
    expect(peeked.size).toBe(0);
    // Refused (whether add() throws or rejects).
    await expect(Promise.resolve().then(() => peeked.add([entry('a@x.org')]))).rejects.toThrow(/read only/);
    expect(() => statSync(state)).toThrow(/ENOENT/);

    const record = await SentRecord.open(state, destination);
    await record.add([entry('a@x.org', 1)]);
    await record.close();
    expect((await SentRecord.peek(state, destination)).has(invitationIdentity('a@x.org', 'sch-1'))).toBe(
      true,
    );
    // A destination with no database yet: peek leaves none behind.
    const unknown = { ...destination, clientId: 'unknown' };
    expect((await SentRecord.peek(state, unknown)).size).toBe(0);
    expect(existsSync(storePath(state, unknown))).toBe(false);

    // The database of one destination copied to another's name (or planted there): not taken for its record.
    const elsewhere = { ...destination, clientId: 'other' };
    copyFileSync(storePath(state, destination), storePath(state, elsewhere));
    chmodSync(storePath(state, elsewhere), 0o600);
    const refused = `${storePath(state, elsewhere)} is not roster's record of invitations sent to http://127.0.0.1:8080/v1 as other.`;
    await expect(SentRecord.peek(state, elsewhere)).rejects.toThrow(refused);
    await expect(SentRecord.open(state, elsewhere)).rejects.toThrow(refused);
  });

  it('a damaged database is refused, not taken for an empty record (everyone in it would be e-mailed again)', async () => {
    const state = tempDir();
    const record = await SentRecord.open(state, destination);
    await record.add([entry('a@x.org', 1)]);
    await record.close();
    const path = storePath(state, destination);
    writeFileSync(path, 'not a database, whatever it once was\n'.repeat(200));
    const refused = /^Could not use roster's record of sent invitations .*\.db: file is not a database\.$/;
    await expect(SentRecord.open(state, destination)).rejects.toThrow(refused);
    await expect(SentRecord.peek(state, destination)).rejects.toThrow(refused);
  });

  it('load() reads what other processes added since', async () => {
    const state = tempDir();
    const mine = await reopened(state);
    const theirs = await reopened(state);
    await theirs.add([entry('theirs@x.org', 1)]);
    expect(mine.has(invitationIdentity('theirs@x.org', 'sch-1'))).toBe(false);
    mine.load();
    expect(mine.has(invitationIdentity('theirs@x.org', 'sch-1'))).toBe(true);
    await Promise.all([mine.close(), theirs.close()]);
  });

  it('forget() adds a row per invitation forgotten: every reader drops it, a later send records it again; one being sent is left alone', async () => {
    const state = tempDir();
    const writer = await reopened(state);
    await writer.add([
      entry('a@x.org', 1),
      entry('b@x.org', 2),
      entry('c@x.org', 3, '2026'),
      entry('d@x.org', 4),
    ]);
    // d is being sent again right now (--resend-sent) by a live run (this process).
    const d = invitationIdentity('d@x.org', 'sch-1');
    const run = { run: '/data/a.csv', file: '/data/a.csv' };
    const never = new AbortController().signal;
    expect(
      await writer.claim(d, run, { ignoreSent: true, ignoreDoubt: false, signal: never, holdMs: 60_000 }),
    ).toEqual({ kind: 'claimed' });
    const before = rowsOf(state);
    const forgetter = await reopened(state);
    const look = await forgetter.forget((p) => p.email !== 'b@x.org', false);
    expect(look).toEqual({
      forgotten: [
        { email: 'a@x.org', schoolId: 'sch-1', sentAt: at(1) },
        { email: 'c@x.org', schoolId: 'sch-1', schoolYearId: '2026', sentAt: at(3) },
      ],
      inFlight: [{ email: 'd@x.org', schoolId: 'sch-1', pid: process.pid, file: '/data/a.csv' }],
    });
    expect(rowsOf(state)).toEqual(before);
    const done = await forgetter.forget((p) => p.email !== 'b@x.org', true);
    expect(done).toEqual(look);
    // Added, never rewritten: the rows before untouched, one row more per invitation forgotten.
    const after = rowsOf(state);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.slice(before.length)).toEqual([
      { email: 'a@x.org', forgottenAt: expect.any(String) },
      { email: 'c@x.org', forgottenAt: expect.any(String) },
    ]);
    writer.load();
    const peeked = await SentRecord.peek(state, destination);
    for (const reader of [writer, forgetter, peeked]) {
      expect(reader.has(invitationIdentity('a@x.org', 'sch-1'))).toBe(false);
      expect(reader.has(invitationIdentity('b@x.org', 'sch-1'))).toBe(true);
      expect(reader.has(invitationIdentity('c@x.org', 'sch-1', '2026'))).toBe(false);
      expect(reader.has(d)).toBe(true);
      expect(reader.forgottenAt(invitationIdentity('a@x.org', 'sch-1'))).toEqual(expect.any(String));
    }
    await writer.add([entry('a@x.org', 9)]);
    expect((await SentRecord.peek(state, destination)).sentAt(invitationIdentity('a@x.org', 'sch-1'))).toBe(
      at(9),
    );
    await Promise.all([writer.close(), forgetter.close()]);
  });

  it('a database deleted or replaced under a run: noticed before its next row, naming the database', async () => {
    const state = tempDir();
    const run = await guardedRun(state, 'a');
    const path = run.record.path;
    run.record.checkIdentity();
    expect(await run.guard.begin(plannedRow('a@x.org', 2), inFlight('a@x.org', 2), never())).toBe('go');
    rmSync(path);
    const deleted = `roster's record of sent invitations ${path} was deleted while this run was using it; roster stops sending so that no family is e-mailed twice.`;
    expect(() => run.record.checkIdentity()).toThrow(deleted);
    await expect(run.guard.begin(plannedRow('b@x.org', 3), inFlight('b@x.org', 3), never())).rejects.toThrow(
      deleted,
    );
    // Another file at its path (a new record, a copy put back).
    writeFileSync(path, '', { mode: 0o600 });
    const replaced = `roster's record of sent invitations ${path} was replaced while this run was using it`;
    expect(() => run.record.checkIdentity()).toThrow(replaced);
    await expect(run.guard.begin(plannedRow('b@x.org', 3), inFlight('b@x.org', 3), never())).rejects.toThrow(
      replaced,
    );
    await run.close();
  });
});

const never = () => new AbortController().signal;
const inFlight = (email: string, line: number) => ({
  key: `${email} s1`,
  line,
  state: 'in-flight' as const,
  at: new Date().toISOString(),
  email,
  schoolId: 's1',
});

describe('SentRecord: real processes writing at once', () => {
  let driver: string;
  beforeAll(async () => {
    // A small program that adds COUNT entries one add() at a time (one transaction each: the most traffic).
    driver = await bundleDriver(
      'append',
      `
      import { SentRecord } from './src/invite/store/index.ts';
      const [state, tag, count] = process.argv.slice(2);
      const record = await SentRecord.open(state, ${JSON.stringify(destination)});
      for (let i = 0; i < Number(count); i++)
        await record.add([{ email: tag + '-' + i + '@x.org', schoolId: 'sch-1', sentAt: new Date().toISOString() }]);
      await record.close();`,
    );
  });

  const run = (state: string, tag: string, count: number) => startDriver(driver, [state, tag, String(count)]);

  it('8 processes × 150 adds at once: every entry survives, each once', async () => {
    const state = tempDir();
    const runs = Array.from({ length: 8 }, (_, p) => run(state, `p${p}`, 150));
    const results = await Promise.all(runs.map((r) => r.done));
    expect(results.map(({ code, err }) => ({ code, err }))).toEqual(Array(8).fill({ code: 0, err: '' }));

    const emails = rowsOf(state).map((r) => r.email);
    expect(emails).toHaveLength(8 * 150);
    expect(new Set(emails).size).toBe(8 * 150);
    for (let p = 0; p < 8; p++) expect(emails.filter((e) => e.startsWith(`p${p}-`))).toHaveLength(150);
    const record = await reopened(state);
    expect(record.size).toBe(8 * 150);
    await record.close();
  }, 120_000);

  it('one process killed with kill -9 mid-way (perhaps inside a transaction): what it committed and the others’ adds all survive', async () => {
    const state = tempDir();
    const victimRun = run(state, 'killed', 100_000);
    // Let it get going, then kill it wherever it is (inside a transaction, committing, between two).
    const count = () => {
      try {
        return rowsOf(state).length;
      } catch {
        return 0;
      }
    };
    for (let i = 0; i < 500 && count() < 100; i++) await new Promise((r) => setTimeout(r, 10));
    victimRun.child.kill('SIGKILL');
    await victimRun.done;
    const killed = rowsOf(state);
    expect(killed.length).toBeGreaterThanOrEqual(100);
    // Each of its adds committed whole, in order, once.
    expect(killed.map((r) => r.email)).toEqual(killed.map((_, i) => `killed-${i}@x.org`));

    const runs = Array.from({ length: 4 }, (_, p) => run(state, `after${p}`, 50));
    expect((await Promise.all(runs.map((r) => r.done))).map((r) => [r.code, r.err])).toEqual(
      Array(4).fill([0, '']),
    );
    const rows = rowsOf(state);
    expect(rows.slice(0, killed.length)).toEqual(killed);
    expect(rows).toHaveLength(killed.length + 200);
    const record = await reopened(state);
    for (let p = 0; p < 4; p++)
      for (let i = 0; i < 50; i++)
        expect(record.has(invitationIdentity(`after${p}-${i}@x.org`, 'sch-1'))).toBe(true);
    expect(record.size).toBe(killed.length + 200);
    await record.close();
  }, 120_000);
});

describe('SentRecord: planted files and folders are not trusted', () => {
  it('a database that is a link to another file: refused, the file it points at untouched', async () => {
    const state = tempDir();
    const path = storePath(state, destination);
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const target = victim();
    symlinkSync(target, path);
    await expect(SentRecord.open(state, destination)).rejects.toThrow(
      /^Cannot open .*\.db: it is a symbolic link, which roster does not follow here/,
    );
    await expect(SentRecord.peek(state, destination)).rejects.toThrow(/it is a symbolic link/);
    expectUntouched(target);
  });

  it('a -wal or -shm beside the database that is a link, or others can write to: refused, nothing read from it', async () => {
    for (const beside of ['-wal', '-shm']) {
      const state = tempDir();
      const record = await SentRecord.open(state, destination);
      await record.add([entry('a@x.org', 1)]);
      await record.close();
      const path = storePath(state, destination);
      const before = storeDump(path);
      const target = victim();
      rmSync(`${path}${beside}`, { force: true });
      symlinkSync(target, `${path}${beside}`);
      await expect(SentRecord.open(state, destination), beside).rejects.toThrow(
        new RegExp(`^Cannot open .*\\.db${beside}: it is a symbolic link, which roster does not follow here`),
      );
      await expect(SentRecord.peek(state, destination), beside).rejects.toThrow(/it is a symbolic link/);
      expectUntouched(target);
      rmSync(`${path}${beside}`);
      writeFileSync(`${path}${beside}`, '');
      chmodSync(`${path}${beside}`, 0o666);
      await expect(SentRecord.open(state, destination), beside).rejects.toThrow(
        /other users can write to it \(mode 0666\), so roster will not trust it/,
      );
      rmSync(`${path}${beside}`);
      expect(storeDump(path)).toEqual(before);
    }
  });

  it('a sent/ folder anyone can write to: refused with the chmod', async () => {
    const state = tempDir();
    mkdirSync(join(state, 'sent'), { mode: 0o700 });
    chmodSync(join(state, 'sent'), 0o777);
    await expect(SentRecord.open(state, destination)).rejects.toThrow(
      `${join(state, 'sent')}: other users can write to it (mode 0777), so roster will not trust files in it`,
    );
    await expect(SentRecord.peek(state, destination)).rejects.toThrow(/other users can write to it/);
  });

  it('a database others can write to: refused', async () => {
    const state = tempDir();
    const record = await SentRecord.open(state, destination);
    await record.add([entry('a@x.org')]);
    await record.close();
    chmodSync(storePath(state, destination), 0o666);
    await expect(SentRecord.open(state, destination)).rejects.toThrow(
      /other users can write to it \(mode 0666\), so roster will not trust it/,
    );
    await expect(SentRecord.peek(state, destination)).rejects.toThrow(/mode 0666/);
  });

  it.skipIf(!asRoot)(
    'a database of another user’s, or in a folder of another user’s, seeded with "sent" rows: refused',
    async () => {
      const state = tempDir();
      const record = await SentRecord.open(state, destination);
      await record.add([entry('a@x.org')]);
      await record.close();
      const path = storePath(state, destination);
      execFileSync('chown', [`${NOBODY}:${NOBODY}`, path]);
      await expect(SentRecord.open(state, destination)).rejects.toThrow(
        `it belongs to another user (uid ${NOBODY})`,
      );
      await expect(SentRecord.peek(state, destination)).rejects.toThrow(
        `it belongs to another user (uid ${NOBODY})`,
      );
      execFileSync('chown', [`${ME}:${ME}`, path]);
      execFileSync('chown', [`${NOBODY}:${NOBODY}`, dirname(path)]);
      await expect(SentRecord.open(state, destination)).rejects.toThrow(
        `${dirname(path)}: it belongs to another user (uid ${NOBODY}), so roster will not trust files in it`,
      );
      rmSync(state, { recursive: true, force: true });
    },
  );
});

describe('SentRecord: claims on invitations being sent', () => {
  const A = { run: '/data/a.csv', file: '/data/a.csv' };
  const B = { run: '/data/b.csv', file: '/data/b.csv' };
  const id = invitationIdentity('Parent@X.org', 'sch-1');
  const ask = (signal = new AbortController().signal) => ({
    ignoreSent: false,
    ignoreDoubt: false,
    signal,
    holdMs: 60_000,
  });
  const claimsIn = (state: string) =>
    claimRows(storePath(state, destination)).map(({ identity, run, state: s, pid }) => ({
      identity,
      run,
      state: s,
      pid,
    }));

  let claimer: string;
  beforeAll(async () => {
    // Another roster process: claims ID for RUN, says so, and stays (until killed).
    claimer = await bundleDriver(
      'claimer',
      `
      import { SentRecord } from './src/invite/store/index.ts';
      const [state, id, run, file] = process.argv.slice(2);
      const record = await SentRecord.open(state, ${JSON.stringify(destination)});
      const outcome = await record.claim(id, { run, file }, { ignoreSent: false, ignoreDoubt: false, signal: new AbortController().signal, holdMs: 600000 });
      process.stdout.write(outcome.kind + '\\n');
      setInterval(() => {}, 1000);`,
    );
  });

  it('a claim is on disk before it is granted; another run waits while it is held and is let in once it is settled', async () => {
    const state = tempDir();
    const record = await SentRecord.open(state, destination);
    expect(await record.claim(id, A, ask())).toEqual({ kind: 'claimed' });
    expect(claimsIn(state)).toEqual([{ identity: id, run: A.run, state: 'sending', pid: process.pid }]);
    // B asks again and again while A holds it (A's process is alive): A settles it as certainly not sent.
    let settled = false;
    const waiting = record.claim(id, B, ask()).then((outcome) => ({ outcome, settled }));
    await new Promise((r) => setTimeout(r, 100));
    expect(claimsIn(state)).toEqual([{ identity: id, run: A.run, state: 'sending', pid: process.pid }]);
    settled = true;
    await record.settle(id, A, 'done');
    expect(await waiting).toEqual({ outcome: { kind: 'claimed' }, settled: true });
    // A settled claim is no row: B's alone.
    expect(claimsIn(state)).toEqual([{ identity: id, run: B.run, state: 'sending', pid: process.pid }]);
    await record.close();
  });

  it('a claim asks the database, not what the run loaded: an invitation another run recorded since is sent', async () => {
    const state = tempDir();
    const record = await reopened(state);
    const mine = invitationIdentity('mine@x.org', 'sch-1');
    const theirs = invitationIdentity('theirs@x.org', 'sch-1');
    const other = await reopened(state);
    await other.add([entry('theirs@x.org', 3)]);
    // Loaded before: this run's snapshot lacks it, its claim does not.
    expect(record.has(theirs)).toBe(false);
    expect(await record.claim(theirs, A, ask())).toEqual({ kind: 'sent', sentAt: at(3) });
    await record.claim(mine, A, ask());
    await record.settle(mine, A, 'done', entry('mine@x.org', 2));
    expect(await other.claim(mine, B, ask())).toEqual({ kind: 'sent', sentAt: at(2) });
    // Every other process reads both.
    const later = await reopened(state);
    expect([later.sentAt(mine), later.sentAt(theirs)]).toEqual([at(2), at(3)]);
    expect(claimsIn(state)).toEqual([]);
    await Promise.all([record.close(), other.close(), later.close()]);
  });

  it('settled as sent: the record has it, in the same transaction, and every other run is told when', async () => {
    const state = tempDir();
    const record = await SentRecord.open(state, destination);
    await record.claim(id, A, ask());
    await record.settle(id, A, 'done', entry('parent@x.org', 7));
    expect(rowsOf(state)).toEqual([{ email: 'parent@x.org', sentAt: at(7) }]);
    expect(claimsIn(state)).toEqual([]);
    const other = await reopened(state);
    expect(await other.claim(id, B, ask())).toEqual({ kind: 'sent', sentAt: at(7) });
    // --resend-sent: claimed all the same.
    expect(await other.claim(id, B, { ...ask(), ignoreSent: true })).toEqual({ kind: 'claimed' });
    await record.close();
    await other.close();
  });

  it('a run killed (kill -9) while sending, or one that could not tell: in doubt for other runs unless told, free for that run itself', async () => {
    const state = tempDir();
    const killed = startDriver(claimer, [state, id, A.run, A.file]);
    await new Promise<void>((resolve) => killed.child.stdout.on('data', () => resolve()));
    killed.child.kill('SIGKILL');
    const { out } = await killed.done;
    expect(out).toBe('claimed\n');
    expect(claimsIn(state)).toEqual([{ identity: id, run: A.run, state: 'sending', pid: killed.child.pid }]);
    const record = await SentRecord.open(state, destination);
    expect(await record.claim(id, B, ask())).toEqual({ kind: 'stopped', ...A });
    // The killed run's own resume (its journal governs the row) takes it up.
    expect(await record.claim(id, A, ask())).toEqual({ kind: 'claimed' });
    await record.settle(id, A, 'in-doubt');
    expect(claimsIn(state)).toEqual([{ identity: id, run: A.run, state: 'in-doubt', pid: process.pid }]);
    expect(await record.claim(id, B, ask())).toEqual({ kind: 'in-doubt', ...A });
    // --resend-in-doubt: taken over that doubt, which the claim says (it stands again unless B sends it).
    expect(await record.claim(id, B, { ...ask(), ignoreDoubt: true })).toEqual({
      kind: 'claimed',
      over: true,
    });
    expect(storeDump(storePath(state, destination)).claims).toEqual([
      expect.objectContaining({ identity: id, ...B, state: 'sending', over: 'in-doubt' }),
    ]);
    // Not sent by B after all: A's doubt stands again for every run.
    await record.settle(id, B, 'in-doubt', undefined, { over: true });
    expect(await record.claim(id, { run: '/data/c.csv' }, ask())).toEqual({ kind: 'in-doubt', ...B });
    await record.close();
  });

  it('a claim past its deadline is stopped even if its pid runs (suspended, or the pid reused); another host’s gets 5 minutes for clock skew', () => {
    const start = Date.parse(at(0));
    const until = new Date(start + 60_000).toISOString();
    // Our own pid stands for a live process that never settles (no start time: a reused pid looks alive).
    const local = { id, ...A, state: 'sending' as const, pid: process.pid, at: at(0), until };
    expect(standing(local, B, start + 30_000)).toBe('busy');
    expect(standing(local, B, start + 61_000)).toBe('stopped');
    const remote = { ...local, pid: 1, host: 'other-host.example' };
    expect(standing(remote, B, start + 61_000)).toBe('busy');
    expect(standing(remote, B, start + 60_000 + 5 * 60_000 + 1)).toBe('stopped');
    expect(standing(remote, A, start + 61_000)).toBe('free');
    expect(standing({ ...remote, state: 'done' }, B, start)).toBe('free');
  });

  it('another host’s clock a year ahead: its claim is waited for no longer than its length (at most this run’s own hold) from when this run first saw it', () => {
    const start = Date.parse(at(0));
    const year = 365 * 86_400_000;
    const remote = {
      id,
      ...A,
      state: 'sending' as const,
      pid: 1,
      host: 'other-host.example',
      at: new Date(start + year).toISOString(),
      until: new Date(start + year + 60_000).toISOString(),
    };
    const wait = { since: start, holdMs: 120_000 };
    expect(standing(remote, B, start + 59_000, wait)).toBe('busy');
    expect(standing(remote, B, start + 60_001, wait)).toBe('stopped');
    expect(waitEnd(remote, start + 30_000, wait)).toBe(start + 60_000);
    // A claim that states a year's length is held no longer than this run's own claims are.
    const long = { ...remote, at: at(0), until: new Date(start + year).toISOString() };
    expect(standing(long, B, start + 119_000, wait)).toBe('busy');
    expect(standing(long, B, start + 120_001, wait)).toBe('stopped');
    // Without a deadline, this run's own hold bounds the wait as well (before, such a claim held forever).
    const { until: _, ...open } = long;
    expect(standing(open, B, start + 120_001, wait)).toBe('stopped');
    // A deadline long past by our clock still ends the wait at once, however recently we first saw it.
    const old = { ...remote, at: at(0), until: new Date(start + 60_000).toISOString() };
    expect(standing(old, B, start + 6 * 60_000 + 1, { since: start + 6 * 60_000, holdMs: 120_000 })).toBe(
      'stopped',
    );
  });

  it('a claim from a host a year ahead is waited for from when this process first saw it, then stopped', async () => {
    const state = tempDir();
    await (await SentRecord.open(state, destination)).close();
    const ahead = Date.now() + 365 * 86_400_000;
    storeWrite(
      storePath(state, destination),
      'INSERT INTO claims (identity, run, file, state, at, until, pid, host) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      id,
      A.run,
      A.file,
      'sending',
      new Date(ahead).toISOString(),
      new Date(ahead + 400).toISOString(),
      1,
      'other-host.example',
    );
    const record = await SentRecord.open(state, destination);
    const started = Date.now();
    // Before, this waited a year: the deadline is by the other host's clock.
    expect(await record.claim(id, B, ask())).toEqual({ kind: 'stopped', ...A });
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    await record.close();
  });

  it('an interrupt while waiting for another run: aborted, nothing claimed', async () => {
    const state = tempDir();
    const record = await SentRecord.open(state, destination);
    await record.claim(id, A, ask());
    const controller = new AbortController();
    const waiting = record.claim(id, B, ask(controller.signal));
    setTimeout(() => controller.abort(), 100);
    expect(await waiting).toEqual({ kind: 'aborted' });
    expect(claimsIn(state)).toEqual([{ identity: id, run: A.run, state: 'sending', pid: process.pid }]);
    await record.close();
  });

  it('settled claims leave no row: after many, the one still held is all there is, and it still holds', async () => {
    const state = tempDir();
    const record = await SentRecord.open(state, destination);
    const ids = Array.from({ length: 300 }, (_, i) => invitationIdentity(`p${i}@x.org`, 'sch-1'));
    await Promise.all(ids.map((i) => record.claim(i, A, ask())));
    expect(claimsIn(state)).toHaveLength(300);
    await Promise.all(ids.slice(1).map((i) => record.settle(i, A, 'done')));
    expect(claimsIn(state)).toEqual([{ identity: ids[0], run: A.run, state: 'sending', pid: process.pid }]);
    expect(await record.claim(ids[0] as string, B, { ...ask(), signal: AbortSignal.timeout(50) })).toEqual({
      kind: 'aborted',
    });
    expect(await record.claim(ids[1] as string, B, ask())).toEqual({ kind: 'claimed' });
    await record.close();
  });
});
