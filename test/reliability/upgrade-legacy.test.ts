// An upgrade in the middle of a send: roster 0.1 kept the state of sending in JSON Lines files (a journal per
// file, a record and a claims file per destination); this roster keeps it in SQLite and imports those files
// once, when it first opens the destination's database. A run of the old roster killed with kill -9 half-way
// leaves rows sent, rows in flight (their requests reached the server) and rows claimed ahead and never sent:
// after the upgrade the same command sends the rest, and nobody is e-mailed twice (counted at the sandbox).
// The old files are written here as roster 0.1 wrote them (captured from a real killed run of it).
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { journalPath, sentRecordPath } from '../../src/invite/store/layout.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { demoEnv, useSandbox } from '../helpers/sandbox.js';
import { journalRows, recordRows, storeDump, storeOf } from '../helpers/store.js';

const fixture = useSandbox();
const ROWS = 60;
const SENT = 20; // confirmed, in the journal and the record
const IN_FLIGHT = 4; // their requests reached the server; the journal says in-flight
const AHEAD = 8; // claimed ahead, never sent: the journal has no entry for them
const email = (i: number) => `fam${i}@example.org`;
const key = (i: number) => `${email(i)} org-sch-1`;
const identity = (i: number) => JSON.stringify([email(i), 'org-sch-1', '']);

/** A pid that ran and ended: the killed run's. */
const deadPid = () => spawnSync(process.execPath, ['-e', '0']).pid as number;

const lines = (objects: object[]) => objects.map((o) => `${JSON.stringify(o)}\n`).join('');

function writeLegacyState(state: string, file: string): void {
  const destination = { baseUrl: fixture.sandbox.baseUrl, clientId: 'demo-allowed' };
  const journal = journalPath(state, file, destination);
  const record = sentRecordPath(state, destination);
  mkdirSync(join(state, 'invites'), { recursive: true, mode: 0o700 });
  mkdirSync(join(state, 'sent'), { recursive: true, mode: 0o700 });
  const began = '2026-11-29T07:56:51.279Z';
  const at = '2026-11-29T07:56:51.500Z';
  const entry = (i: number, state: string) => ({
    key: key(i),
    line: i + 2,
    at,
    email: email(i),
    schoolId: 'org-sch-1',
    bodyHash: '0123456789abcdef',
    state,
  });
  const header = {
    journal: 'roster invite send',
    version: 1,
    file,
    destination,
    sha256: 'x',
    createdAt: began,
  };
  const sent = Array.from({ length: SENT }, (_, i) => i);
  const flying = Array.from({ length: IN_FLIGHT }, (_, i) => SENT + i);
  const ahead = Array.from({ length: AHEAD }, (_, i) => SENT + IN_FLIGHT + i);
  writeFileSync(
    journal,
    lines([
      header,
      ...[...sent, ...flying].map((i) => entry(i, 'in-flight')),
      ...sent.map((i) => entry(i, 'sent')),
    ]) + '{"key":"torn',
    { mode: 0o600 },
  );
  writeFileSync(
    record,
    lines([
      { record: 'roster sent invitations', version: 1, destination, createdAt: began },
      // The record lags the journal by two rows: the run was killed between the two writes.
      ...sent
        .slice(0, SENT - 2)
        .map((i) => ({ email: email(i), schoolId: 'org-sch-1', sentAt: at, by: 'fams.csv' })),
    ]),
    { mode: 0o600 },
  );
  const pid = deadPid();
  const claim = (i: number, state: string) => ({
    id: identity(i),
    run: journal,
    file,
    began,
    state,
    pid,
    host: 'vm',
    at,
    ...(state === 'sending' && { until: '2099-01-01T00:00:00.000Z' }),
  });
  writeFileSync(
    `${record}.claims`,
    lines([
      ...[...sent, ...flying, ...ahead].map((i) => claim(i, 'sending')),
      ...sent.map((i) => claim(i, 'done')),
    ]),
    { mode: 0o600 },
  );
}

describe('an upgrade half-way through a send (roster 0.1 killed with kill -9)', () => {
  it('the same command after the upgrade sends the rest; nobody e-mailed twice; the old state imported once', async () => {
    const { sandbox, home } = fixture;
    const dir = tempDir();
    const file = join(dir, 'fams.csv');
    writeFileSync(
      file,
      `email,schoolId,studentCount\n${Array.from({ length: ROWS }, (_, i) => `${email(i)},org-sch-1,1`).join('\n')}\n`,
    );
    // What the old run's requests did at the server: the sent rows and the ones in flight were created
    // (sent here by one run with a state of its own).
    const first = join(dir, 'first.csv');
    const firstRows = Array.from({ length: SENT + IN_FLIGHT }, (_, i) => `${email(i)},org-sch-1,1`);
    writeFileSync(first, `email,schoolId,studentCount\n${firstRows.join('\n')}\n`);
    const old = await runCli(['invite', 'send', '--file', first, '--sent-by-user-id', 'usr-1'], tempDir(), {
      env: demoEnv(sandbox),
    });
    expect(old.code, old.stderr).toBe(0);
    expect(sandbox.outbox).toHaveLength(SENT + IN_FLIGHT);
    const state = join(home, '.local', 'state', 'roster');
    writeLegacyState(state, file);

    const args = ['invite', 'send', '--file', file, '--sent-by-user-id', 'usr-1', '--concurrency', '4'];
    const resumed = await runCli(args, home, { env: demoEnv(sandbox) });
    expect(resumed.code, resumed.stderr).toBe(0);
    // The rows in flight are settled by the server's list, not sent again; the rows claimed ahead are sent.
    expect(resumed.stderr).toContain(
      `Line ${SENT + 2}: Invitation to ${email(SENT)} was sent: the server lists it`,
    );
    expect(resumed.stderr).toContain(`Sent ${ROWS - SENT - IN_FLIGHT} of ${ROWS} invitations`);
    const perAddress = Array.from(
      { length: ROWS },
      (_, i) => sandbox.outbox.filter((m) => m.to === email(i)).length,
    );
    expect(perAddress).toEqual(Array(ROWS).fill(1));

    const db = storeOf(state);
    expect(journalRows(db).map((r) => r.state)).toEqual(Array(ROWS).fill('sent'));
    // Every invitation in the record, the two the old record lacked too: no plan or other file lists them again.
    expect(new Set(recordRows(db).map((r) => r.email)).size).toBe(ROWS);
    // Checked once: later starts do not compare the journal with the record again.
    expect(storeDump(db).imported).toEqual([]);

    // Imported once: the old files are not read again (a row added to them now changes nothing).
    const again = await runCli(args, home, { env: demoEnv(sandbox) });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`Skipped ${ROWS} already sent`);
    expect(sandbox.outbox).toHaveLength(ROWS);
  }, 120_000);

  it('rows the old journal sent and the old record lacked are recorded once the file holds them again', async () => {
    const { sandbox, home } = fixture;
    const file = join(tempDir(), 'fams.csv');
    const rowsUpTo = (n: number) =>
      `email,schoolId,studentCount\n${Array.from({ length: n }, (_, i) => `${email(i)},org-sch-1,1`).join('\n')}\n`;
    const state = join(home, '.local', 'state', 'roster');
    writeLegacyState(state, file);
    const args = ['invite', 'send', '--file', file, '--sent-by-user-id', 'usr-1'];
    // The file cut down to its first 10 rows, all sent: the 2 the record lacks are not in it yet.
    writeFileSync(file, rowsUpTo(10));
    const cut = await runCli(args, home, { env: demoEnv(sandbox) });
    expect(cut.code, cut.stderr).toBe(0);
    const db = storeOf(state);
    expect(recordRows(db)).toHaveLength(SENT - 2);
    expect(storeDump(db).imported).toHaveLength(1);
    // The file with every row the old run sent: the 2 are recorded, and the journal is not checked again.
    writeFileSync(file, rowsUpTo(SENT));
    const whole = await runCli(args, home, { env: demoEnv(sandbox) });
    expect(whole.code, whole.stderr).toBe(0);
    expect(new Set(recordRows(db).map((r) => r.email)).size).toBe(SENT);
    expect(storeDump(db).imported).toEqual([]);
    expect(
      sandbox.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/invitations')),
    ).toHaveLength(0);
  }, 60_000);

  it('a single send the old roster left in doubt stays in doubt for the first file run after the upgrade: no POST', async () => {
    const { sandbox, home } = fixture;
    const state = join(home, '.local', 'state', 'roster');
    const destination = { baseUrl: sandbox.baseUrl, clientId: 'demo-allowed' };
    const record = sentRecordPath(state, destination);
    mkdirSync(join(state, 'sent'), { recursive: true, mode: 0o700 });
    const at = '2026-11-29T07:56:51.500Z';
    writeFileSync(
      record,
      lines([{ record: 'roster sent invitations', version: 1, destination, createdAt: at }]),
      { mode: 0o600 },
    );
    // roster 0.1 named a single send's run with a leading NUL.
    const doubted = {
      id: JSON.stringify(['doubted@example.org', 'org-sch-1', '']),
      run: `\0roster invite send --email ${deadPid()} 1764403011500`,
      file: '`roster invite send --email`',
      state: 'in-doubt',
      pid: deadPid(),
      host: 'vm',
      at,
    };
    writeFileSync(`${record}.claims`, lines([doubted]), { mode: 0o600 });
    const file = join(tempDir(), 'later.csv');
    writeFileSync(file, 'email,schoolId\ndoubted@example.org,org-sch-1\n');
    sandbox.requests.length = 0;
    const run = await runCli(
      ['invite', 'send', '--file', file, '--sent-by-user-id', 'usr-1', '--json'],
      home,
      { env: demoEnv(sandbox) },
    );
    expect(run.code, run.stderr).toBe(5);
    const [row] = (JSON.parse(run.stdout) as { rows: { result: string; reason: string }[] }).rows;
    expect(row?.result).toBe('in-doubt');
    expect(row?.reason).toContain(
      'another run (`roster invite send --email`) could not tell whether it was sent',
    );
    expect(
      sandbox.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/invitations')),
    ).toHaveLength(0);
    // The history names that run as it names a single send today.
    const history = await runCli(['invite', 'history', '--json'], home, { env: demoEnv(sandbox) });
    const { events } = JSON.parse(history.stdout) as {
      events: { email: string; event: string; by: string }[];
    };
    expect(events.map((e) => [e.email, e.event, e.by])).toEqual([
      ['doubted@example.org', 'in-doubt', 'invite send --email'],
    ]);
  }, 60_000);
});
