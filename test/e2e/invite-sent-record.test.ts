// roster's record of sent invitations, end to end: real `roster` processes against the sandbox. Single and
// file sends land in it; a file run skips every row another run sent (overlapping files), whatever the file's
// mtime (saved, touched, copied), unless --resend-sent; a single send goes out as asked (saying so when the
// record shows it sent before); a planted record stops a send before anything goes out; the plan's
// informational columns ride along, never sent.
import {
  chmodSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { INVITATIONS_PATH } from '../../src/api/enrollment.js';
import { invitationIdentity, SentRecord, storePath } from '../../src/invite/store/index.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { runCli, startCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { expectUntouched, victim } from '../helpers/planted.js';
import { demoEnv } from '../helpers/sandbox.js';
import { journalRows, recordRows, storeOf } from '../helpers/store.js';

let sandbox: Sandbox;
let home: string;
beforeAll(async () => {
  sandbox = await startSandbox({ seed: 5 });
});
afterAll(() => sandbox.close());
beforeEach(() => {
  home = tempDir();
  sandbox.requests.length = 0;
  sandbox.outbox.length = 0;
  sandbox.setOptions({ latencyMs: 0 });
  sandbox.clearFaults();
});

const SENDER = ['--sent-by-user-id', 'usr-1'];
const roster = (args: string[], at = home) => runCli(args, at, { env: demoEnv(sandbox), timeoutMs: 60_000 });
const stateDir = (at = home) => join(at, '.local', 'state', 'roster');
const destination = () => ({ baseUrl: sandbox.baseUrl, clientId: 'demo-allowed' });
const record = (at = home) => SentRecord.peek(stateDir(at), destination());
const emailsTo = (address: string) => sandbox.outbox.filter((m) => m.to === address).length;
const posts = () => sandbox.requests.filter((r) => r.method === 'POST' && r.path.endsWith(INVITATIONS_PATH));

function csvFile(name: string, header: string, rows: string[]): string {
  const path = join(tempDir(), name);
  writeFileSync(path, `${header}\n${rows.join('\n')}\n`);
  return path;
}
/** Marks a file as saved `secondsAgo` seconds ago. */
const savedAgo = (path: string, secondsAgo: number) => {
  const t = new Date(Date.now() - secondsAgo * 1000);
  utimesSync(path, t, t);
};

describe('every invitation roster confirms sent lands in the record of its destination', () => {
  it('a single send, with its school year; a send the server refuses does not', async () => {
    const ok = await roster([
      'invite',
      'send',
      '--email',
      'Single@Example.org',
      '--school-id',
      'org-sch-1',
      '--school-year-id',
      '2026-27',
      ...SENDER,
    ]);
    expect(ok.code, ok.stderr).toBe(0);
    sandbox.injectFault({
      match: (req) => req.method === 'POST' && req.path.endsWith(INVITATIONS_PATH),
      status: 400,
      body: { message: 'Refused on purpose' },
    });
    const refused = await roster([
      'invite',
      'send',
      '--email',
      'refused@example.org',
      '--school-id',
      'org-sch-1',
      ...SENDER,
    ]);
    expect(refused.code).not.toBe(0);
    const sent = await record();
    expect(sent.has(invitationIdentity('single@example.org', 'org-sch-1', '2026-27'))).toBe(true);
    expect(sent.has(invitationIdentity('refused@example.org', 'org-sch-1'))).toBe(false);
    expect(sent.size).toBe(1);
  });

  it('a file send: every row the server confirmed, none it refused, each with its journal entry; the next run sends the refused row only', async () => {
    const rows = Array.from(
      { length: 12 },
      (_, i) => `file-${i}@example.org,org-sch-${(i % 3) + 1},1,2026-27`,
    );
    const file = csvFile('invites.csv', 'email,schoolId,studentCount,schoolYearId', rows);
    sandbox.injectFault({
      match: (req) => req.method === 'POST' && req.body.includes('file-5@example.org'),
      status: 400,
      body: { message: 'Refused on purpose' },
    });
    const run = await roster(['invite', 'send', '--file', file, ...SENDER]);
    expect(run.code).toBe(5);
    const sent = await record();
    const expected = Array.from({ length: 12 }, (_, i) => i !== 5);
    const has = (r: SentRecord) =>
      Array.from({ length: 12 }, (_, i) =>
        r.has(invitationIdentity(`file-${i}@example.org`, `org-sch-${(i % 3) + 1}`, '2026-27')),
      );
    expect(has(sent)).toEqual(expected);
    // The journal and the record are one database, written in one transaction a row: every row the journal
    // has sent is in the record (by this file), and the record holds nothing the journal does not.
    const db = storeOf(stateDir());
    const journaledSent = () =>
      journalRows(db)
        .filter((r) => r.state === 'sent')
        .map((r) => r.email)
        .sort();
    const recorded = () =>
      recordRows(db)
        .map((r) => `${r.email} ${r.by}`)
        .sort();
    expect(journalRows(db).find((r) => r.email === 'file-5@example.org')?.state).toBe('failed');
    expect(recorded()).toEqual(journaledSent().map((email) => `${email} invites.csv`));
    expect(recorded()).toHaveLength(11);

    // The same command again: the refused row is sent, the others are skipped (nobody e-mailed twice).
    const again = await roster(['invite', 'send', '--file', file, ...SENDER]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('Skipped 11 already sent by an earlier run.');
    expect(has(await record())).toEqual(Array(12).fill(true));
    for (let i = 0; i < 12; i++) expect(emailsTo(`file-${i}@example.org`)).toBe(1);
    expect(recorded()).toEqual(journaledSent().map((email) => `${email} invites.csv`));
    expect(recorded()).toHaveLength(12);
  });

  it('a planted record (a link to another file) stops a single send before anything is sent', async () => {
    const path = storePath(stateDir(), destination());
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const target = victim();
    symlinkSync(target, path);
    const run = await roster([
      'invite',
      'send',
      '--email',
      'planted@example.org',
      '--school-id',
      'org-sch-1',
      ...SENDER,
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^Error: Cannot open .*\.db: it is a symbolic link, which roster does not follow here/,
    );
    expect(posts()).toEqual([]);
    expectUntouched(target);
    // Nothing made beside it either (no -wal, no -shm of a database opened through the link).
    expect(readdirSync(dirname(path))).toEqual([basename(path)]);
  });

  it('a sent/ folder others can write to stops a file send before anything is sent', async () => {
    const file = csvFile('invites.csv', 'email,schoolId,studentCount', ['x@example.org,org-sch-1,1']);
    mkdirSync(join(stateDir(), 'sent'), { recursive: true, mode: 0o700 });
    chmodSync(join(stateDir(), 'sent'), 0o777);
    const run = await roster(['invite', 'send', '--file', file, ...SENDER]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'other users can write to it (mode 0777), so roster will not trust files in it',
    );
    expect(posts()).toEqual([]);
  });
});

describe('invite send --file never e-mails twice what another run sent after the file was saved', () => {
  const header = 'email,schoolId,studentCount';
  const rowsOf = (tag: string, n: number) =>
    Array.from({ length: n }, (_, i) => `${tag}-${i}@example.org,org-sch-1,1`);

  it('two overlapping files saved before either was sent: the second skips the shared rows, says so, exit 0', async () => {
    const a = csvFile('a.csv', header, [...rowsOf('a', 3), ...rowsOf('shared', 3)]);
    const b = csvFile('b.csv', header, [...rowsOf('shared', 3), ...rowsOf('b', 3)]);
    savedAgo(a, 60);
    savedAgo(b, 60);
    expect((await roster(['invite', 'send', '--file', a, ...SENDER])).code).toBe(0);
    const run = await roster(['invite', 'send', '--file', b, ...SENDER, '--json']);
    expect(run.code, run.stderr).toBe(0);
    for (let i = 0; i < 3; i++) {
      expect(emailsTo(`shared-${i}@example.org`)).toBe(1);
      expect(emailsTo(`b-${i}@example.org`)).toBe(1);
    }
    expect(run.stderr).toContain("Skipped 3 that roster's record shows already sent by another run");
    expect(run.stderr).toMatch(/line 2: shared-0@example\.org \(Alder Elementary School\): sent 20\d\d-/);
    const report = JSON.parse(run.stdout);
    expect(report.counts).toMatchObject({ total: 6, sent: 3, skipped: 3 });
    expect(report.rows[0]).toMatchObject({ result: 'skipped', sentElsewhere: expect.any(String) });

    // The dry run says the same, and the same command again sends nothing more.
    const dry = await roster(['invite', 'send', '--file', b, ...SENDER, '--dry-run']);
    expect(dry.stderr).toContain(
      'would send 0 of 6 invitations (3 already sent) (3 already sent by another run, not re-sent)',
    );
    expect((await roster(['invite', 'send', '--file', b, ...SENDER])).code).toBe(0);
    expect(sandbox.outbox).toHaveLength(9);
  });

  it('a file saved, touched or copied after another run sent its rows still skips them; --resend-sent sends them again; a single send goes out', async () => {
    const sendAgain = [
      'invite',
      'send',
      '--email',
      'again@example.org',
      '--school-id',
      'org-sch-1',
      ...SENDER,
    ];
    expect((await roster(sendAgain)).code).toBe(0);
    // Saved (sed -i rewrites the file), touched, copied: all after the sending; none re-sends the row.
    const file = csvFile('later.csv', header, [
      'again@example.org,org-sch-1,1',
      'new-1@example.org,org-sch-1,1',
    ]);
    savedAgo(file, 3600);
    const edited = readFileSync(file, 'utf8').replace('new-1@', 'new-2@');
    writeFileSync(file, edited);
    const saved = await roster(['invite', 'send', '--file', file, ...SENDER]);
    expect(saved.code, saved.stderr).toBe(0);
    expect(saved.stderr).toContain("Skipped 1 that roster's record shows already sent by another run");
    utimesSync(file, new Date(), new Date());
    const touched = await roster(['invite', 'send', '--file', file, ...SENDER, '--dry-run']);
    expect(touched.stderr).toContain(
      'would send 0 of 2 invitations (1 already sent) (1 already sent by another run',
    );
    const copy = join(dirname(file), 'copy.csv');
    writeFileSync(copy, readFileSync(file));
    const copied = await roster(['invite', 'send', '--file', copy, ...SENDER]);
    expect(copied.code, copied.stderr).toBe(0);
    expect(emailsTo('again@example.org')).toBe(1);
    expect(emailsTo('new-2@example.org')).toBe(1);

    // Asked for explicitly: sent again (and only the rows the record shows sent; this file's own stay sent).
    const resend = await roster(['invite', 'send', '--file', copy, ...SENDER, '--resend-sent', '--json']);
    expect(resend.code, resend.stderr).toBe(0);
    expect(emailsTo('again@example.org')).toBe(2);
    expect(emailsTo('new-2@example.org')).toBe(2);
    expect(JSON.parse(resend.stdout).counts).toMatchObject({ total: 2, sent: 2 });
    // --resend-sent goes with --file only.
    const misuse = await roster([...sendAgain, '--resend-sent']);
    expect(misuse.code).toBe(2);
    expect((await roster(sendAgain)).code).toBe(0);
    expect(emailsTo('again@example.org')).toBe(3);
  });

  it('a single send the record shows sent (here by a file) says so on stderr before it sends another; a dry run too', async () => {
    const first = await roster([
      'invite',
      'send',
      '--email',
      'alone@example.org',
      '--school-id',
      'org-sch-1',
      ...SENDER,
    ]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).not.toContain('Warning');
    const file = csvFile('one.csv', header, ['twice@example.org,org-sch-1,1']);
    expect((await roster(['invite', 'send', '--file', file, ...SENDER])).code).toBe(0);
    const single = ['invite', 'send', '--email', 'Twice@Example.org', '--school-id', 'org-sch-1', ...SENDER];
    const when = (await record()).sentAt(invitationIdentity('twice@example.org', 'org-sch-1')) as string;
    const dry = await roster([...single, '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr).toContain(
      `Warning: roster's record shows an invitation to Twice@Example.org for org-sch-1 sent at ${when}; this would send another (see it: roster invite list --email Twice@Example.org).`,
    );
    const again = await roster(single);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`sent at ${when}; this sends another`);
    expect(emailsTo('twice@example.org') + emailsTo('Twice@Example.org')).toBe(2);
  });

  it('two admins running overlapping files at once: the shared rows go out once (checked again before each row)', async () => {
    // A sends the shared rows first; B reaches them last, after its start-up read of the record.
    const a = csvFile('a.csv', header, [...rowsOf('shared2', 5), ...rowsOf('a2', 15)]);
    const b = csvFile('b.csv', header, [...rowsOf('b2', 15), ...rowsOf('shared2', 5)]);
    savedAgo(a, 60);
    savedAgo(b, 60);
    sandbox.setOptions({ latencyMs: 40 });
    const env = demoEnv(sandbox);
    const runs = [a, b].map((f) =>
      startCli(['invite', 'send', '--file', f, ...SENDER, '--concurrency', '1'], home, {
        env,
        timeoutMs: 60_000,
      }),
    );
    const [ra, rb] = await Promise.all(runs.map((r) => r.done));
    expect([ra?.code, rb?.code], `${ra?.stderr}\n${rb?.stderr}`).toEqual([0, 0]);
    for (let i = 0; i < 5; i++) expect(emailsTo(`shared2-${i}@example.org`)).toBe(1);
    // Each shared row goes out from one run and is skipped by the other: mostly B skips them, but B claims
    // its rows a batch ahead, so it may hold the first shared row before A reaches it, and A skips that one.
    const skipped = (stderr = '') =>
      Number(/Skipped (\d+) that roster's record shows already sent by another run/.exec(stderr)?.[1] ?? 0);
    expect(skipped(ra?.stderr) + skipped(rb?.stderr)).toBe(5);
    expect(sandbox.outbox).toHaveLength(35);
  }, 60_000);
});

describe('invite send --file: the plan’s informational columns', () => {
  const header = 'email,schoolId,studentCount,guardianNames,studentIds,schoolName,studentNames';

  it('are accepted, never sent, carried into --json and the failed-rows CSV (which can be sent again as is)', async () => {
    const file = csvFile('plan.csv', header, [
      'ok@example.org,org-sch-1,2,"Ana Ruiz; Luis Ruiz",stu-1 stu-2,Alder Elementary,"Mía; Leo"',
      'fails@example.org,org-sch-1,1,"O\'Brien, Pat",stu-3,Alder Elementary,"=cmd()"',
    ]);
    sandbox.injectFault({
      match: (req) => req.method === 'POST' && req.body.includes('fails@example.org'),
      status: 400,
      body: { message: 'Refused on purpose' },
    });
    const failedCsv = join(tempDir(), 'failed.csv');
    const run = await roster([
      'invite',
      'send',
      '--file',
      file,
      ...SENDER,
      '--json',
      '--failed-csv',
      failedCsv,
    ]);
    expect(run.code).toBe(5);
    for (const post of posts()) {
      expect(Object.keys(JSON.parse(post.body)).sort()).toEqual([
        'email',
        'schoolId',
        'scopes',
        'sentByUserId',
        'studentCount',
      ]);
      expect(post.body).not.toMatch(/Ruiz|stu-|Alder|Brien/);
    }
    const report = JSON.parse(run.stdout);
    expect(report.rows).toEqual([
      expect.objectContaining({
        email: 'ok@example.org',
        result: 'sent',
        // The server's own words for the row: --json's report keeps them (a run without it does not).
        message: 'Invitation sent to ok@example.org',
        guardianNames: 'Ana Ruiz; Luis Ruiz',
        studentIds: 'stu-1 stu-2',
        schoolName: 'Alder Elementary',
        studentNames: 'Mía; Leo',
      }),
      expect.objectContaining({
        email: 'fails@example.org',
        result: 'failed',
        guardianNames: "O'Brien, Pat",
        studentNames: '=cmd()',
      }),
    ]);
    const failed = readFileSync(failedCsv, 'utf8').split('\r\n');
    expect(failed[0]).toBe(
      '\ufeffemail,schoolId,scopes,interestFormSubmissionId,studentCount,learningCenterId,schoolYearId,sentByUserId,guardianNames,studentIds,schoolName,studentNames',
    );
    expect(failed[1]).toBe(
      // A formula is written quoted off for Excel (and read back as it was, below).
      'fails@example.org,org-sch-1,fillEnrollment,,1,,,usr-1,"O\'Brien, Pat",stu-3,Alder Elementary,\'=cmd()',
    );

    sandbox.clearFaults();
    const resend = await roster(['invite', 'send', '--file', failedCsv]);
    expect(resend.code, resend.stderr).toBe(0);
    expect(emailsTo('fails@example.org')).toBe(1);
  });

  it('any other unknown column (a typo) is still refused before anything is sent, naming the accepted ones', async () => {
    const file = csvFile('typo.csv', 'email,schoolId,studentCount,guardianName', [
      'x@example.org,org-sch-1,1,Ana',
    ]);
    const run = await roster(['invite', 'send', '--file', file, ...SENDER]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      'line 1: unknown column "guardianName" (column 4); expected the spec\'s field names: email, schoolId, scopes, interestFormSubmissionId, studentCount, learningCenterId, schoolYearId, sentByUserId (and, not sent: allowUnlistedSchool, guardianNames, studentIds, schoolName, studentNames)',
    );
    const twice = csvFile('twice.csv', 'email,schoolId,studentIds,Student IDs', [
      'x@example.org,org-sch-1,a,b',
    ]);
    expect((await roster(['invite', 'send', '--file', twice, ...SENDER])).stderr).toContain(
      'column studentIds appears twice',
    );
    expect(posts()).toEqual([]);
  });
});
