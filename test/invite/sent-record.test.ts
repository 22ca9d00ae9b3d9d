// roster's record of sent invitations: identities, reading back, real processes appending at once (and one
// killed with kill -9 mid-way), a torn last line, and records or folders planted by someone else.
import { execFileSync, spawn } from 'node:child_process';
import {
  appendFileSync,
  chmodSync,
  mkdirSync,
  readFileSync,
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
  sentRecordPath,
  standing,
  waitEnd,
} from '../../src/invite/store/index.js';
import { tempDir } from '../helpers/context.js';
import { bundleDriver, startDriver } from '../helpers/driver.js';
import { asRoot, expectOwnPrivate, expectUntouched, ME, NOBODY, victim } from '../helpers/planted.js';

const destination = { baseUrl: 'http://127.0.0.1:8080/v1', clientId: 'district-42' };
const at = (i: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
const entry = (email: string, i = 0, schoolYearId?: string) => ({
  email,
  schoolId: 'sch-1',
  ...(schoolYearId !== undefined && { schoolYearId }),
  sentAt: at(i),
});

async function reopened(state: string): Promise<SentRecord> {
  const record = await SentRecord.open(state, destination);
  try {
    record.load();
  } catch (error) {
    // Closed here: Node 26 fails the run on a file handle left to the garbage collector.
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
  it('keeps what was added across processes’ lifetimes: one private file per destination, however spelled', async () => {
    const state = tempDir();
    const record = await SentRecord.open(state, destination);
    record.load();
    expect(record.size).toBe(0);
    await record.add([entry('A@x.org', 1), entry('b@x.org', 2, '2026')]);
    expect(record.has(invitationIdentity('a@x.org', 'sch-1'))).toBe(true);
    await record.close();

    const path = sentRecordPath(state, destination);
    expect(path).toBe(join(state, 'sent', `127.0.0.1_8080-${path.slice(-22, -6)}.jsonl`));
    expectOwnPrivate(path);
    expect((statSync(dirname(path)).mode & 0o777).toString(8)).toBe('700');
    const lines = readFileSync(path, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ record: 'roster sent invitations', version: 1, destination });
    expect(lines.slice(1)).toEqual([entry('A@x.org', 1), entry('b@x.org', 2, '2026')]);

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
  });

  it('peek reads without creating anything; a record that is not this destination’s is refused', async () => {
    const state = join(tempDir(), 'state');
    const peeked = await SentRecord.peek(state, destination);
    expect(peeked.size).toBe(0);
    await expect(peeked.add([entry('a@x.org')])).rejects.toThrow(/read only/);
    expect(() => statSync(state)).toThrow(/ENOENT/);

    const record = await SentRecord.open(state, destination);
    await record.add([entry('a@x.org', 1)]);
    await record.close();
    expect((await SentRecord.peek(state, destination)).has(invitationIdentity('a@x.org', 'sch-1'))).toBe(
      true,
    );

    // The file of one destination copied to another's name (or planted there): not taken for its record.
    const elsewhere = { ...destination, clientId: 'other' };
    writeFileSync(sentRecordPath(state, elsewhere), readFileSync(sentRecordPath(state, destination)), {
      mode: 0o600,
    });
    await expect(SentRecord.peek(state, elsewhere)).rejects.toThrow(
      /is not roster's record of invitations sent to/,
    );
  });

  it('a torn last line (a writer killed mid-write) is not read, and the next append cuts it off before writing', async () => {
    const state = tempDir();
    const record = await SentRecord.open(state, destination);
    await record.add([entry('a@x.org', 1)]);
    await record.close();
    const path = sentRecordPath(state, destination);
    appendFileSync(path, '{"email":"torn@x.org","schoolId":"sch');

    const reader = await reopened(state);
    expect(reader.size).toBe(1);
    await reader.add([entry('b@x.org', 2)]);
    await reader.close();
    const text = readFileSync(path, 'utf8');
    expect(text).not.toContain('torn@x.org');
    expect(text.endsWith('\n')).toBe(true);
    const after = await reopened(state);
    expect([
      after.has(invitationIdentity('a@x.org', 'sch-1')),
      after.has(invitationIdentity('b@x.org', 'sch-1')),
    ]).toEqual([true, true]);
    await after.close();
  });

  it('a damaged line in the middle is refused, not skipped (a forgotten invitation would be sent again)', async () => {
    const state = tempDir();
    const record = await SentRecord.open(state, destination);
    await record.add([entry('a@x.org', 1)]);
    await record.close();
    const path = sentRecordPath(state, destination);
    appendFileSync(path, 'garbage\n{"email":"b@x.org","schoolId":"sch-1","sentAt":"x"}\n');
    await expect(reopened(state)).rejects.toThrow(
      `The record of sent invitations ${path} is damaged at line 3.`,
    );
  });

  it('load() reads only what was appended since, including other processes’ appends', async () => {
    const state = tempDir();
    const mine = await reopened(state);
    const theirs = await reopened(state);
    await theirs.add([entry('theirs@x.org', 1)]);
    expect(mine.has(invitationIdentity('theirs@x.org', 'sch-1'))).toBe(false);
    mine.load();
    expect(mine.has(invitationIdentity('theirs@x.org', 'sch-1'))).toBe(true);
    await Promise.all([mine.close(), theirs.close()]);
  });

  it('forget() appends a line per invitation forgotten: every reader drops it, a later send records it again', async () => {
    const state = tempDir();
    const writer = await reopened(state);
    await writer.add([entry('a@x.org', 1), entry('b@x.org', 2), entry('c@x.org', 3, '2026')]);
    const path = sentRecordPath(state, destination);
    const before = readFileSync(path, 'utf8');
    const forgetter = await reopened(state);
    const look = await forgetter.forget((p) => p.email !== 'b@x.org', false);
    expect(look).toEqual({
      forgotten: [
        { email: 'a@x.org', schoolId: 'sch-1', sentAt: at(1) },
        { email: 'c@x.org', schoolId: 'sch-1', schoolYearId: '2026', sentAt: at(3) },
      ],
      inFlight: [],
    });
    expect(readFileSync(path, 'utf8')).toBe(before);
    const done = await forgetter.forget((p) => p.email !== 'b@x.org', true);
    expect(done.forgotten).toEqual(look.forgotten);
    // Appended, never rewritten: the same file, its old lines untouched.
    expect(readFileSync(path, 'utf8').startsWith(before)).toBe(true);
    writer.load();
    const peeked = await SentRecord.peek(state, destination);
    for (const reader of [writer, forgetter, peeked]) {
      expect(reader.has(invitationIdentity('a@x.org', 'sch-1'))).toBe(false);
      expect(reader.has(invitationIdentity('b@x.org', 'sch-1'))).toBe(true);
      expect(reader.has(invitationIdentity('c@x.org', 'sch-1', '2026'))).toBe(false);
      expect(reader.forgottenAt(invitationIdentity('a@x.org', 'sch-1'))).toEqual(expect.any(String));
    }
    await writer.add([entry('a@x.org', 9)]);
    expect((await SentRecord.peek(state, destination)).sentAt(invitationIdentity('a@x.org', 'sch-1'))).toBe(
      at(9),
    );
    await Promise.all([writer.close(), forgetter.close()]);
  });

  it('a record deleted or replaced under a process: its next write is refused, naming the record', async () => {
    const state = tempDir();
    const record = await reopened(state);
    await record.add([entry('a@x.org', 1)]);
    const path = sentRecordPath(state, destination);
    rmSync(path);
    await expect(record.add([entry('b@x.org', 2)])).rejects.toThrow(
      `roster's record of sent invitations ${path} was deleted while this run was using it`,
    );
    // Another file at its path (a new record, a copy put back).
    writeFileSync(path, '', { mode: 0o600 });
    await expect(record.add([entry('b@x.org', 2)])).rejects.toThrow(
      'was replaced while this run was using it',
    );
    await record.close();
  });
});

describe('SentRecord: real processes appending at once', () => {
  let driver: string;
  beforeAll(async () => {
    // A small program that appends COUNT entries one add() at a time (the most lock traffic).
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

  it('8 processes × 150 appends at once: every entry survives, each once, every line whole', async () => {
    const state = tempDir();
    const runs = Array.from({ length: 8 }, (_, p) => run(state, `p${p}`, 150));
    const results = await Promise.all(runs.map((r) => r.done));
    expect(results.map(({ code, err }) => ({ code, err }))).toEqual(Array(8).fill({ code: 0, err: '' }));

    const lines = readFileSync(sentRecordPath(state, destination), 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(1 + 8 * 150);
    const emails = lines.slice(1).map((l) => (JSON.parse(l) as { email: string }).email);
    expect(new Set(emails).size).toBe(8 * 150);
    const record = await reopened(state);
    expect(record.size).toBe(8 * 150);
    await record.close();
    expect(() => statSync(`${sentRecordPath(state, destination)}.lock`)).toThrow(/ENOENT/);
  }, 60_000);

  it('one process killed with kill -9 mid-way (perhaps holding the lock): the others’ appends all survive', async () => {
    const state = tempDir();
    const victimRun = run(state, 'killed', 100_000);
    // Let it get going, then kill it wherever it is (inside a write, holding the lock, between the two).
    const path = sentRecordPath(state, destination);
    for (let i = 0; i < 200; i++) {
      await new Promise((r) => setTimeout(r, 10));
      try {
        if (statSync(path).size > 20_000) break;
      } catch {}
    }
    victimRun.child.kill('SIGKILL');
    await victimRun.done;
    const killedLines = readFileSync(path, 'utf8').split('\n').length;

    const runs = Array.from({ length: 4 }, (_, p) => run(state, `after${p}`, 50));
    expect((await Promise.all(runs.map((r) => r.done))).map((r) => r.code)).toEqual([0, 0, 0, 0]);
    const record = await reopened(state);
    for (let p = 0; p < 4; p++)
      for (let i = 0; i < 50; i++)
        expect(record.has(invitationIdentity(`after${p}-${i}@x.org`, 'sch-1'))).toBe(true);
    expect(record.size).toBeGreaterThanOrEqual(killedLines - 2 + 200);
    await record.close();
  }, 60_000);
});

describe('SentRecord: planted files and folders are not trusted', () => {
  it('a record that is a link to another file: refused, the file it points at untouched', async () => {
    const state = tempDir();
    const path = sentRecordPath(state, destination);
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const target = victim();
    symlinkSync(target, path);
    await expect(SentRecord.open(state, destination)).rejects.toThrow(
      /^Cannot open .*\.jsonl: it is a symbolic link, which roster does not follow here/,
    );
    await expect(SentRecord.peek(state, destination)).rejects.toThrow(/it is a symbolic link/);
    expectUntouched(target);
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

  it('a record others can write to: refused', async () => {
    const state = tempDir();
    const record = await SentRecord.open(state, destination);
    await record.add([entry('a@x.org')]);
    await record.close();
    chmodSync(sentRecordPath(state, destination), 0o666);
    await expect(SentRecord.open(state, destination)).rejects.toThrow(
      /other users can write to it \(mode 0666\), so roster will not trust it/,
    );
  });

  it.skipIf(!asRoot)(
    'a record of another user’s, or in a folder of another user’s, seeded with "sent" rows: refused',
    async () => {
      const state = tempDir();
      const record = await SentRecord.open(state, destination);
      await record.add([entry('a@x.org')]);
      await record.close();
      const path = sentRecordPath(state, destination);
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
  const A = { run: '/state/invites/a.jsonl', file: '/data/a.csv' };
  const B = { run: '/state/invites/b.jsonl', file: '/data/b.csv' };
  const id = invitationIdentity('Parent@X.org', 'sch-1');
  const ask = (signal = new AbortController().signal) => ({
    ignoreSent: false,
    ignoreDoubt: false,
    signal,
    holdMs: 60_000,
  });
  const claimsOf = (state: string) => `${sentRecordPath(state, destination)}.claims`;
  const lines = (path: string) =>
    readFileSync(path, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; run: string; state: string; pid: number });

  /** A pid that certainly ran and has ended. */
  const deadPid = () => {
    const child = spawn(process.execPath, ['-e', '']);
    return new Promise<number>((resolve) => child.on('exit', () => resolve(child.pid as number)));
  };

  it('a claim is on disk (0600) before it is granted; another run waits while it is held and is let in once it is settled', async () => {
    const state = tempDir();
    const record = await SentRecord.open(state, destination);
    expect(await record.claim(id, A, ask())).toEqual({ kind: 'claimed' });
    expect(lines(claimsOf(state))).toMatchObject([{ id, run: A.run, state: 'sending', pid: process.pid }]);
    expectOwnPrivate(claimsOf(state));
    // B asks again and again while A holds it (A's process is alive): A settles it as certainly not sent.
    let settled = false;
    const waiting = record.claim(id, B, ask()).then((outcome) => ({ outcome, settled }));
    await new Promise((r) => setTimeout(r, 150));
    settled = true;
    await record.settle(id, A, 'done');
    expect(await waiting).toEqual({ outcome: { kind: 'claimed' }, settled: true });
    expect(lines(claimsOf(state)).map((c) => [c.run, c.state])).toEqual([
      [A.run, 'sending'],
      [A.run, 'done'],
      [B.run, 'sending'],
    ]);
    await record.close();
  });

  it("a run's own settled entries go to the file, not to its memory; what other runs append between its batches is read", async () => {
    const state = tempDir();
    const record = await SentRecord.open(state, destination);
    const mine = invitationIdentity('mine@x.org', 'sch-1');
    const theirs = invitationIdentity('theirs@x.org', 'sch-1');
    await record.claim(mine, A, ask());
    const other = await reopened(state);
    await other.add([entry('theirs@x.org', 3)]);
    await record.settle(mine, A, 'done', entry('mine@x.org', 2));
    // Written after theirs, in one batch with nothing else in memory for it.
    expect(record.has(mine)).toBe(false);
    expect(record.sentAt(theirs)).toBe(at(3));
    expect(await record.claim(theirs, A, ask())).toEqual({ kind: 'sent', sentAt: at(3) });
    // Every other process reads both.
    const later = await reopened(state);
    expect([later.sentAt(mine), later.sentAt(theirs)]).toEqual([at(2), at(3)]);
    await Promise.all([record.close(), other.close(), later.close()]);
  });

  it('a record damaged by another writer mid-run still gets the entries of a batch before the batch fails', async () => {
    const state = tempDir();
    const record = await SentRecord.open(state, destination);
    const mine = invitationIdentity('mine@x.org', 'sch-1');
    await record.add([entry('first@x.org', 1)]);
    await record.claim(mine, A, ask());
    appendFileSync(
      sentRecordPath(state, destination),
      'garbage\n{"email":"b@x.org","schoolId":"sch-1","sentAt":"x"}\n',
    );
    await expect(record.settle(mine, A, 'done', entry('mine@x.org', 2))).rejects.toThrow(
      /is damaged at line 3/,
    );
    expect(readFileSync(sentRecordPath(state, destination), 'utf8')).toContain('"email":"mine@x.org"');
    await record.close();
  });

  it('settled as sent: the record has it first, and every other run is told when', async () => {
    const state = tempDir();
    const record = await SentRecord.open(state, destination);
    await record.claim(id, A, ask());
    await record.settle(id, A, 'done', entry('parent@x.org', 7));
    const other = await reopened(state);
    expect(await other.claim(id, B, ask())).toEqual({ kind: 'sent', sentAt: at(7) });
    // --resend-sent: claimed all the same.
    expect(await other.claim(id, B, { ...ask(), ignoreSent: true })).toEqual({ kind: 'claimed' });
    await record.close();
    await other.close();
  });

  it('a run killed while sending, or one that could not tell: in doubt for other runs unless told, free for that run itself', async () => {
    const state = tempDir();
    const pid = await deadPid();
    mkdirSync(dirname(claimsOf(state)), { recursive: true, mode: 0o700 });
    const killed = { id, ...A, state: 'sending', pid, at: at(1) };
    writeFileSync(claimsOf(state), `${JSON.stringify(killed)}\n`, { mode: 0o600 });
    const record = await SentRecord.open(state, destination);
    expect(await record.claim(id, B, ask())).toEqual({ kind: 'stopped', ...A });
    // The killed run's own resume (its journal governs the row) takes it up.
    expect(await record.claim(id, A, ask())).toEqual({ kind: 'claimed' });
    await record.settle(id, A, 'in-doubt');
    expect(await record.claim(id, B, ask())).toEqual({ kind: 'in-doubt', ...A });
    // --resend-in-doubt: taken over that doubt, which the claim says (it stands again unless B sends it).
    expect(await record.claim(id, B, { ...ask(), ignoreDoubt: true })).toEqual({
      kind: 'claimed',
      over: true,
    });
    const lines = readFileSync(claimsOf(state), 'utf8').trimEnd().split('\n');
    expect(JSON.parse(lines.at(-1) as string)).toMatchObject({ ...B, state: 'sending', over: 'in-doubt' });
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

  it('SentRecord: a claim from a host a year ahead is waited for from when this process first saw it, then in doubt', async () => {
    const state = tempDir();
    mkdirSync(dirname(claimsOf(state)), { recursive: true, mode: 0o700 });
    const ahead = Date.now() + 365 * 86_400_000;
    const remote = {
      id,
      ...A,
      state: 'sending',
      pid: 1,
      host: 'other-host.example',
      at: new Date(ahead).toISOString(),
      until: new Date(ahead + 400).toISOString(),
    };
    writeFileSync(claimsOf(state), `${JSON.stringify(remote)}\n`, { mode: 0o600 });
    const record = await SentRecord.open(state, destination);
    // Before, this waited a year: the deadline is by the other host's clock.
    expect(await record.claim(id, B, ask())).toEqual({ kind: 'stopped', ...A });
    await record.close();
  });

  it('read as it grows, and again from the start once another process rewrote it', async () => {
    const state = tempDir();
    const one = await SentRecord.open(state, destination);
    const two = await SentRecord.open(state, destination);
    // Enough claims for a rewrite (past COMPACT_AFTER lines, claims.ts).
    const ids = Array.from({ length: 600 }, (_, i) => invitationIdentity(`g${i}@x.org`, 'sch-1'));
    // `one` claims and settles enough for a rewrite; `two` read the file before it and must see the rest.
    expect(await two.claim(ids[0] as string, B, ask())).toEqual({ kind: 'claimed' });
    for (const i of ids.slice(1)) await one.claim(i, A, ask());
    for (const i of ids.slice(2)) await one.settle(i, A, 'done');
    expect(lines(claimsOf(state)).length).toBeLessThan(ids.length);
    expect(await two.claim(ids[1] as string, B, { ...ask(), signal: AbortSignal.timeout(100) })).toEqual({
      kind: 'aborted',
    });
    expect(await one.claim(ids[0] as string, A, { ...ask(), signal: AbortSignal.timeout(100) })).toEqual({
      kind: 'aborted',
    });
    expect(await two.claim(ids[5] as string, B, ask())).toEqual({ kind: 'claimed' });
    await one.close();
    await two.close();
  });

  it('an interrupt while waiting for another run: aborted, nothing claimed', async () => {
    const state = tempDir();
    const record = await SentRecord.open(state, destination);
    await record.claim(id, A, ask());
    const controller = new AbortController();
    const waiting = record.claim(id, B, ask(controller.signal));
    setTimeout(() => controller.abort(), 100);
    expect(await waiting).toEqual({ kind: 'aborted' });
    expect(lines(claimsOf(state)).map((c) => c.run)).toEqual([A.run]);
    await record.close();
  });

  it('a torn last line is cut off before the next claim; a damaged line is refused (a lost claim could send twice)', async () => {
    const state = tempDir();
    const record = await SentRecord.open(state, destination);
    await record.claim(id, A, ask());
    appendFileSync(claimsOf(state), '{"id":"torn');
    const other = invitationIdentity('other@x.org', 'sch-1');
    expect(await record.claim(other, A, ask())).toEqual({ kind: 'claimed' });
    expect(lines(claimsOf(state)).map((c) => c.id)).toEqual([id, other]);
    writeFileSync(claimsOf(state), `not json\n${readFileSync(claimsOf(state), 'utf8')}`);
    // Read by another process (roster only ever appends or replaces the file whole).
    const reader = await SentRecord.open(state, destination);
    await expect(reader.claim(id, B, ask())).rejects.toThrow(
      /claims on invitations being sent, .* are damaged at line 1/,
    );
    await reader.close();
    await record.close();
  });

  it('kept short: once most claims are settled the file is rewritten with the unsettled ones alone', async () => {
    const state = tempDir();
    const record = await SentRecord.open(state, destination);
    const ids = Array.from({ length: 2100 }, (_, i) => invitationIdentity(`p${i}@x.org`, 'sch-1'));
    await Promise.all(ids.map((i) => record.claim(i, A, ask())));
    await Promise.all(ids.slice(1).map((i) => record.settle(i, A, 'done')));
    const left = lines(claimsOf(state));
    expect(left.length).toBeLessThan(400); // 4,199 lines without the rewrite
    // Whatever was rewritten, the one claim still held is there, and still holds.
    expect(left.filter((c) => c.id === ids[0]).at(-1)).toMatchObject({ state: 'sending', run: A.run });
    expect(await record.claim(ids[0] as string, B, { ...ask(), signal: AbortSignal.timeout(50) })).toEqual({
      kind: 'aborted',
    });
    expectOwnPrivate(claimsOf(state));
    await record.close();
  });

  it('a claims file that is a link, or others can write to: refused before anything is claimed', async () => {
    const state = tempDir();
    const record = await SentRecord.open(state, destination);
    const target = victim();
    symlinkSync(target, claimsOf(state));
    await expect(record.claim(id, A, ask())).rejects.toThrow(/it is a symbolic link/);
    expectUntouched(target);
    rmSync(claimsOf(state));
    writeFileSync(claimsOf(state), '', { mode: 0o600 });
    chmodSync(claimsOf(state), 0o666);
    await expect(record.claim(id, A, ask())).rejects.toThrow(/other users can write to it \(mode 0666\)/);
    await record.close();
  });
});
