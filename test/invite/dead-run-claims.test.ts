// A run claims its rows a batch ahead of their requests (bulk-runner.ts). Killed, it leaves claims on rows
// it never sent as well as on rows in flight: another run asks the dead run's journal which is which. A row
// whose request the journal never let leave (no in-flight entry for it, ever) is free; any other, or a
// journal that cannot be trusted to tell, stays in doubt, as every claim of a dead run did before.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { invitationKey } from '../../src/invite/invitation.js';
import { invitationIdentity, SentRecord, sentRecordPath } from '../../src/invite/store/index.js';
import { tempDir } from '../helpers/temp.js';

const destination = { baseUrl: 'http://127.0.0.1:4010/v1', clientId: 'demo-allowed' };
const CLAIMED_AT = '2026-01-01T10:00:00.000Z';
/** A pid that is certainly no process now: one that ran and exited. */
const deadPid = () => spawnSync(process.execPath, ['-e', '0']).pid as number;

const emails = {
  pending: 'pending@example.org',
  untried: 'untried@example.org',
  failed: 'failed@example.org',
  inFlight: 'in-flight@example.org',
  inDoubt: 'in-doubt@example.org',
  sent: 'sent@example.org',
};

interface Setup {
  /** The journal's header, as the dead run wrote it (changed by a test). */
  header?: Record<string, unknown>;
  /** Where the dead run's journal is (default: roster's invites folder). */
  journalAt?: (state: string) => string;
  pid?: number;
  /** The claims' deadline (default: far ahead). */
  until?: string;
  /** More fields of every claim (`began` is the journal's createdAt unless given). */
  claim?: Record<string, unknown>;
  /** Bytes after the entries: a torn line, a damaged one. */
  tail?: string;
}

/** A state folder where a run (pid, journal) claimed every row, then died; returns the record opened. */
async function deadRun(setup: Setup = {}) {
  const state = tempDir();
  const journal = setup.journalAt?.(state) ?? join(state, 'invites', 'dead.csv-0123456789abcdef.jsonl');
  mkdirSync(dirname(journal), { recursive: true, mode: 0o700 });
  const header = {
    journal: 'roster invite send',
    version: 1,
    file: '/data/dead.csv',
    destination,
    sha256: '0'.repeat(64),
    createdAt: '2026-01-01T09:59:00.000Z',
    ...setup.header,
  };
  const entry = (email: string, state: string) =>
    JSON.stringify({
      key: invitationKey(email, 'org-sch-1'),
      line: 2,
      state,
      at: CLAIMED_AT,
      email,
      schoolId: 'org-sch-1',
    });
  const lines = [
    JSON.stringify(header),
    ...[emails.pending, emails.failed, emails.inFlight, emails.inDoubt, emails.sent].map((e) =>
      entry(e, 'pending'),
    ),
    entry(emails.failed, 'in-flight'),
    entry(emails.failed, 'failed'),
    entry(emails.inFlight, 'in-flight'),
    entry(emails.inDoubt, 'in-flight'),
    entry(emails.inDoubt, 'in-doubt'),
    entry(emails.sent, 'in-flight'),
    entry(emails.sent, 'sent'),
  ];
  writeFileSync(journal, `${lines.join('\n')}\n${setup.tail ?? ''}`, { mode: 0o600 });
  const record = sentRecordPath(state, destination);
  mkdirSync(dirname(record), { recursive: true, mode: 0o700 });
  const pid = setup.pid ?? deadPid();
  const claims = Object.values(emails).map((email) => ({
    id: invitationIdentity(email, 'org-sch-1'),
    run: journal,
    file: '/data/dead.csv',
    state: 'sending',
    at: CLAIMED_AT,
    until: setup.until ?? '2099-01-01T00:00:00.000Z',
    pid,
    began: '2026-01-01T09:59:00.000Z',
    ...setup.claim,
  }));
  writeFileSync(`${record}.claims`, claims.map((c) => `${JSON.stringify(c)}\n`).join(''), { mode: 0o600 });
  return { journal, record: await SentRecord.open(state, destination) };
}

/** What another run's claim on each row comes to (it gives up at once on a live run's claim). */
async function claimEach(record: SentRecord): Promise<Record<string, string>> {
  const outcome: Record<string, string> = {};
  for (const [name, email] of Object.entries(emails)) {
    const signal = AbortSignal.timeout(100);
    const result = await record.claim(
      invitationIdentity(email, 'org-sch-1'),
      { run: '/elsewhere/invites/other.jsonl' },
      { ignoreSent: false, ignoreDoubt: false, signal, holdMs: 60_000 },
    );
    outcome[name] = result.kind;
  }
  await record.close();
  return outcome;
}

const inDoubtAll = {
  pending: 'stopped',
  untried: 'stopped',
  failed: 'stopped',
  inFlight: 'stopped',
  inDoubt: 'stopped',
  sent: 'stopped',
};

describe("claims a dead run left, read against that run's journal", () => {
  it('rows whose request the journal never let leave (pending, never tried) are free; failed, in flight, in doubt or sent stay in doubt', async () => {
    const { record } = await deadRun();
    expect(await claimEach(record)).toEqual({
      pending: 'claimed',
      untried: 'claimed',
      // Its request left once (its school year may have been edited since): only the in-flight entry tells.
      failed: 'stopped',
      inFlight: 'stopped',
      inDoubt: 'stopped',
      sent: 'stopped',
    });
  });

  it('a torn last line (the run died writing it) is no entry; the rows before it are read', async () => {
    const torn = JSON.stringify({ key: invitationKey(emails.pending, 'org-sch-1'), line: 2, state: 'in-fl' });
    const { record } = await deadRun({ tail: torn });
    expect((await claimEach(record)).pending).toBe('claimed');
  });

  it('a live run is waited for, never judged by its journal: its rows are busy until it settles them', async () => {
    const { record } = await deadRun({ pid: process.pid });
    expect(await claimEach(record)).toEqual({
      pending: 'aborted',
      untried: 'aborted',
      failed: 'aborted',
      inFlight: 'aborted',
      inDoubt: 'aborted',
      sent: 'aborted',
    });
  });

  it("a live run's claim past its deadline (it hangs, or runs late) stays in doubt: it may still send", async () => {
    const { record } = await deadRun({ pid: process.pid, until: '2026-01-01T10:00:01.000Z' });
    expect(await claimEach(record)).toEqual(inDoubtAll);
  });

  it('a journal that cannot be trusted to tell leaves every row in doubt', async () => {
    // Not the journal the claims name (moved aside and begun again: it no longer knows that run's rows).
    expect(
      await claimEach((await deadRun({ header: { createdAt: '2026-01-01T09:59:30.000Z' } })).record),
    ).toEqual(inDoubtAll);
    // Claims of an earlier roster, which name no journal's beginning.
    expect(await claimEach((await deadRun({ claim: { began: undefined } })).record)).toEqual(inDoubtAll);
    // Claims taken over another run's doubt (--resend-in-doubt): that doubt stands, whatever the journal says.
    expect(await claimEach((await deadRun({ claim: { over: 'in-doubt' } })).record)).toEqual(inDoubtAll);
    // Another destination's.
    expect(
      await claimEach(
        (await deadRun({ header: { destination: { ...destination, clientId: 'other' } } })).record,
      ),
    ).toEqual(inDoubtAll);
    // Not a journal.
    expect(await claimEach((await deadRun({ header: { journal: 'something else' } })).record)).toEqual(
      inDoubtAll,
    );
    // A damaged line anywhere but at the end.
    expect(await claimEach((await deadRun({ tail: 'not json\n' })).record)).toEqual(inDoubtAll);
    // Outside roster's invites folder beside the record.
    expect(
      await claimEach(
        (await deadRun({ journalAt: (state) => join(state, 'elsewhere', 'dead.jsonl') })).record,
      ),
    ).toEqual(inDoubtAll);
  });

  it('a journal others can write (planted, or left 0666) is not trusted: every row in doubt', async () => {
    const { record, journal } = await deadRun();
    chmodSync(journal, 0o666);
    expect(await claimEach(record)).toEqual(inDoubtAll);
  });

  it('a journal gone (deleted) leaves every row in doubt', async () => {
    const { record, journal } = await deadRun();
    writeFileSync(journal, '');
    expect(await claimEach(record)).toEqual(inDoubtAll);
  });
});
