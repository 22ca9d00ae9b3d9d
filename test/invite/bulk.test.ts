// `roster invite send --file`, in-process against the sandbox: validation, journal (the destination's
// database, read straight from SQLite), re-runs, failures, drops, interrupts.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { tempDir } from '../helpers/context.js';
import { listOutOfUse } from '../helpers/sandbox.js';
import { journalRows, storeDump, storeOf } from '../helpers/store.js';
import { csvOf, deliveries, posts, roster, scriptedPrompter } from './helpers.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ seed: 11 });
});
afterAll(() => sandbox.close());
beforeEach(() => {
  sandbox.requests.length = 0;
  sandbox.outbox.length = 0;
  sandbox.setOptions({ dropRate: 0, failRate: 0 });
  sandbox.clearFaults();
});

function csvFile(text: string): string {
  const path = join(tempDir('roster-csv-'), 'invites.csv');
  writeFileSync(path, text);
  return path;
}
/** The database the report names ("Journal: <path>"): the destination's, holding the file's journal. */
const journalOf = (stderr: string) => /Journal: (\S+\.db)$/m.exec(stderr)?.[1] ?? '';
/** Each journaled row's last state, by line. */
const journalStates = (db: string) => new Map(journalRows(db).map((e) => [e.line, e.state]));

describe('invite send --file', () => {
  it('sends every row once with the per-run values; the same command again sends nothing', async () => {
    const file = csvFile(csvOf(20));
    const run = await roster(sandbox, ['invite', 'send', '--file', file, '--sent-by-user-id', 'usr-1']);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('Sent 20 of 20 invitations');
    expect(posts(sandbox)).toHaveLength(20);
    expect([...deliveries(sandbox).values()]).toEqual(Array(20).fill(1));
    expect(JSON.parse(posts(sandbox)[0]?.body ?? '')).toStrictEqual({
      email: 'parent0@example.org',
      schoolId: 'org-sch-1',
      scopes: ['fillEnrollment'],
      studentCount: 1,
      sentByUserId: 'usr-1',
    });
    const journal = journalOf(run.stderr);
    expect(journal).toBe(storeOf(join(run.home, 'state')));
    expect(journal.startsWith(join(run.home, 'state', 'sent'))).toBe(true);
    expect([...journalStates(journal).values()]).toEqual(Array(20).fill('sent'));

    sandbox.requests.length = 0;
    const again = await roster(
      sandbox,
      ['invite', 'send', '--file', file, '--sent-by-user-id', 'usr-1', '--json'],
      { home: run.home },
    );
    expect(again.code).toBe(0);
    expect(sandbox.requests).toHaveLength(0);
    expect(JSON.parse(again.stdout).counts).toEqual({
      total: 20,
      sent: 0,
      skipped: 20,
      failed: 0,
      inDoubt: 0,
      notStarted: 0,
    });
  });

  it('a file with bad rows: every one reported with its line, exit 2, zero requests', async () => {
    const file = csvFile(
      'email,schoolId,studentCount\r\nok@example.org,org-sch-1,1\r\nnot-an-email,org-sch-1,1\r\nzero@example.org,org-sch-1,0\r\nok@example.org,org-sch-1,2\r\n"open,org-sch-1,1\r\n',
    );
    const run = await roster(sandbox, ['invite', 'send', '--file', file, '--sent-by-user-id', 'usr-1']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('  line 3: email "not-an-email" is not a valid e-mail address');
    expect(run.stderr).toContain('  line 4: studentCount must be a positive whole number (got "0")');
    expect(run.stderr).toContain('  line 5: duplicate of line 2');
    expect(run.stderr).toContain('  line 6: a quoted field opened on line 6 is never closed');
    expect(run.stderr).toContain('4 problems found');
    // Nothing sent: the only requests read the district's schools, to list unknown school names too.
    expect(sandbox.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /v1/ims/oneroster/v1p1/token',
      'GET /v1/ims/oneroster/v1p1/schools',
    ]);
  });

  it('--dry-run prints each request as a JSON line and sends nothing', async () => {
    const file = csvFile(csvOf(3));
    const run = await roster(sandbox, [
      'invite',
      'send',
      '--file',
      file,
      '--sent-by-user-id',
      'usr-1',
      '--dry-run',
    ]);
    expect(run.code).toBe(0);
    const lines = run.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[0]).toEqual({
      line: 2,
      method: 'POST',
      url: `${sandbox.baseUrl}/enrollment/invitations`,
      body: {
        email: 'parent0@example.org',
        schoolId: 'org-sch-1',
        scopes: ['fillEnrollment'],
        studentCount: 1,
        sentByUserId: 'usr-1',
      },
    });
    expect(lines).toHaveLength(3);
    // No invitation: only the district's schools were read (once) to check the schoolId column.
    expect(posts(sandbox)).toHaveLength(0);
    expect(sandbox.requests.filter((r) => !r.path.endsWith('/token')).map((r) => r.path)).toEqual([
      '/v1/ims/oneroster/v1p1/schools',
    ]);
  });

  it('rejected rows: exit 5, reasons with line numbers, a failed-rows CSV that can be fed back; a re-run retries only them', async () => {
    const file = csvFile(csvOf(10));
    const rejected = new Set(['parent3@example.org', 'parent7@example.org']);
    sandbox.injectFault({
      match: (r) => r.path === '/enrollment/invitations' && rejected.has(JSON.parse(r.body.toString()).email),
      status: 400,
      body: { message: 'schoolId is not known' },
      times: 2,
    });
    const run = await roster(sandbox, [
      'invite',
      'send',
      '--file',
      file,
      '--sent-by-user-id',
      'usr-1',
      '--json',
    ]);
    expect(run.code).toBe(5);
    const report = JSON.parse(run.stdout);
    expect(report.counts).toEqual({ total: 10, sent: 8, skipped: 0, failed: 2, inDoubt: 0, notStarted: 0 });
    expect(run.stderr).toContain(
      '    line 5: parent3@example.org (Alder Elementary School): Invitation to parent3@example.org failed (HTTP 400): schoolId is not known',
    );
    expect(run.stderr).toContain('    line 9: parent7@example.org');
    expect(report.failedCsv).toMatch(/\.failed\.csv$/);
    expect(readFileSync(report.failedCsv, 'utf8')).toBe(
      '\ufeffemail,schoolId,scopes,interestFormSubmissionId,studentCount,learningCenterId,schoolYearId,sentByUserId\r\n' +
        'parent3@example.org,org-sch-1,fillEnrollment,,2,,,usr-1\r\n' +
        'parent7@example.org,org-sch-2,fillEnrollment,,2,,,usr-1\r\n',
    );

    // The failed-rows file is a valid input on its own (dry run: it would send exactly those two).
    const feed = await roster(sandbox, ['invite', 'send', '--file', report.failedCsv, '--dry-run'], {
      home: run.home,
    });
    expect(feed.stdout.trim().split('\n')).toHaveLength(2);

    sandbox.requests.length = 0;
    const again = await roster(sandbox, ['invite', 'send', '--file', file, '--sent-by-user-id', 'usr-1'], {
      home: run.home,
    });
    expect(again.code).toBe(0);
    expect(posts(sandbox).map((r) => JSON.parse(r.body).email)).toEqual([
      'parent3@example.org',
      'parent7@example.org',
    ]);
    expect(again.stderr).toContain('Skipped 8 already sent by an earlier run.');
    expect(existsSync(report.failedCsv)).toBe(false);
    expect([...deliveries(sandbox).values()].every((n) => n === 1)).toBe(true);
  });

  it('dropped connections make rows in doubt, never duplicates; a re-run lists them and sends nothing', async () => {
    // The list out of use: these rows stay in doubt (the list settling them: settle-rerun.test.ts).
    listOutOfUse(sandbox);
    sandbox.setOptions({ dropRate: 0.25 });
    const file = csvFile(csvOf(40));
    const run = await roster(sandbox, [
      'invite',
      'send',
      '--file',
      file,
      '--sent-by-user-id',
      'usr-1',
      '--concurrency',
      '6',
      '--json',
    ]);
    sandbox.setOptions({ dropRate: 0 });
    const report = JSON.parse(run.stdout);
    expect(run.code).toBe(5);
    expect(report.counts.inDoubt).toBeGreaterThan(0);
    expect(report.counts.sent + report.counts.inDoubt).toBe(40);
    expect(posts(sandbox)).toHaveLength(40);
    expect(Math.max(...deliveries(sandbox).values())).toBe(1);
    const doubtful = report.rows.filter((r: { result: string }) => r.result === 'in-doubt');
    expect(run.stderr).toContain(`In doubt: ${doubtful.length} (may have been sent; not sent again)`);
    expect(run.stderr).toContain(
      `check: roster invite list --email ${doubtful[0].email} --school-id ${doubtful[0].schoolId}`,
    );

    sandbox.requests.length = 0;
    const again = await roster(
      sandbox,
      ['invite', 'send', '--file', file, '--sent-by-user-id', 'usr-1', '--json'],
      { home: run.home },
    );
    expect(again.code).toBe(5);
    expect(posts(sandbox)).toHaveLength(0);
    expect(JSON.parse(again.stdout).counts).toMatchObject({
      skipped: report.counts.sent,
      inDoubt: doubtful.length,
    });

    // Only on request, and then exactly the rows in doubt.
    const resend = await roster(
      sandbox,
      ['invite', 'send', '--file', file, '--sent-by-user-id', 'usr-1', '--resend-in-doubt'],
      { home: run.home },
    );
    expect(resend.code).toBe(0);
    expect(
      posts(sandbox)
        .map((r) => JSON.parse(r.body).email)
        .sort(),
    ).toEqual(doubtful.map((r: { email: string }) => r.email).sort());
  });

  it('an interrupt stops taking rows, lets in-flight ones finish, saves the journal, exit 130; the re-run finishes the job', async () => {
    const file = csvFile(csvOf(30));
    const controller = new AbortController();
    let seen = 0;
    sandbox.injectFault({
      match: (r) => {
        if (r.method === 'POST' && r.path === '/enrollment/invitations' && ++seen === 6) controller.abort();
        return false;
      },
    }); // never matches; beforeEach clears it
    const run = await roster(
      sandbox,
      ['invite', 'send', '--file', file, '--sent-by-user-id', 'usr-1', '--concurrency', '3'],
      { signal: controller.signal },
    );
    expect(run.code).toBe(130);
    expect(run.stderr).toMatch(/Sent \d+ of 30 invitations from .* before the interrupt\./);
    expect(run.stderr).toMatch(
      /Error: Interrupted: \d+ rows not started\. Run the same command again to continue/,
    );
    const states = [...journalStates(journalOf(run.stderr)).values()];
    expect(states).not.toContain('in-flight');
    const sentFirst = states.filter((s) => s === 'sent').length;
    expect(sentFirst).toBeGreaterThanOrEqual(6);
    expect(sentFirst).toBeLessThan(30);

    const again = await roster(sandbox, ['invite', 'send', '--file', file, '--sent-by-user-id', 'usr-1'], {
      home: run.home,
    });
    expect(again.code).toBe(0);
    expect(posts(sandbox)).toHaveLength(30);
    expect([...deliveries(sandbox).values()]).toEqual(Array(30).fill(1));
  });

  it('fixing failed rows and inserting one in the same file: a re-run sends only those, never a row already sent', async () => {
    sandbox.injectFault({
      match: (r) => {
        if (r.method !== 'POST' || r.path !== '/enrollment/invitations') return false;
        const body = JSON.parse(r.body.toString());
        return body.schoolId === 'org-sch-7' || body.studentCount === 99;
      },
      status: 400,
      body: { message: 'rejected' },
      times: 100,
    });
    const file = csvFile(
      'email,schoolId,studentCount\n' +
        'fix-0@example.org,org-sch-2,1\n' +
        'fix-1@example.org,org-sch-7,1\n' +
        'fix-2@example.org,org-sch-2,99\n' +
        'fix-3@example.org,org-sch-3,1\n' +
        'fix-4@example.org,org-sch-3,2\n',
    );
    const args = ['invite', 'send', '--file', file, '--sent-by-user-id', 'usr-1'];
    const first = await roster(sandbox, args);
    expect(first.code).toBe(5);
    expect(first.stderr).toContain('Sent 3 of 5 invitations');
    const journal = journalOf(first.stderr);

    // Fixed: fix-1's school (a new identity), fix-2's count (same identity, new value). Inserted: new-0.
    // Moved, its case and count edited after it was sent: fix-3.
    writeFileSync(
      file,
      'email,schoolId,studentCount\n' +
        'fix-0@example.org,org-sch-2,1\n' +
        'new-0@example.org,org-sch-2,1\n' +
        'FIX-3@example.org,org-sch-3,3\n' +
        'fix-1@example.org,org-sch-5,1\n' +
        'fix-2@example.org,org-sch-2,2\n' +
        'fix-4@example.org,org-sch-3,2\n',
    );
    const recorded = storeDump(journal);
    sandbox.requests.length = 0;
    const dry = await roster(sandbox, [...args, '--dry-run'], { home: first.home });
    expect(
      dry.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).body.email),
    ).toEqual(['new-0@example.org', 'fix-1@example.org', 'fix-2@example.org']);
    expect(dry.stderr).toContain('changed since the first run');
    expect(storeDump(journal)).toEqual(recorded); // a dry run writes nothing

    const again = await roster(sandbox, [...args, '--json'], { home: first.home });
    expect(again.code).toBe(0);
    expect(journalOf(again.stderr)).toBe(journal);
    expect(again.stderr).toMatch(
      /^\S+invites\.csv changed since the first run \([^)]+\); rows are matched by e-mail and school, so rows already sent stay skipped\.$/m,
    );
    const report = JSON.parse(again.stdout);
    expect(report.contentChanged).toBe(true);
    expect(report.counts).toEqual({ total: 6, sent: 3, skipped: 3, failed: 0, inDoubt: 0, notStarted: 0 });
    expect(report.rows.find((r: { line: number }) => r.line === 4)).toMatchObject({
      email: 'FIX-3@example.org',
      result: 'skipped',
      changed: true,
    });
    expect(again.stderr).toContain('Skipped 3 already sent by an earlier run.');
    expect(again.stderr).toContain(
      'line 4: FIX-3@example.org (Cedar Elementary School): skipped as already sent (before the edit)',
    );
    expect(posts(sandbox).map((r) => JSON.parse(r.body))).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ email: 'new-0@example.org', schoolId: 'org-sch-2' }),
        expect.objectContaining({ email: 'fix-1@example.org', schoolId: 'org-sch-5' }),
        expect.objectContaining({ email: 'fix-2@example.org', studentCount: 2 }),
      ]),
    );
    expect(posts(sandbox)).toHaveLength(3);
    // One e-mail per address over both runs: nothing sent twice, nothing lost.
    expect(Object.fromEntries(deliveries(sandbox))).toEqual({
      'fix-0@example.org': 1,
      'fix-1@example.org': 1,
      'fix-2@example.org': 1,
      'fix-3@example.org': 1,
      'fix-4@example.org': 1,
      'new-0@example.org': 1,
    });
  });

  it('the same file sent to two destinations keeps two journals: each sends every row once', async () => {
    const other = await startSandbox({ seed: 12 });
    try {
      const file = csvFile(csvOf(5));
      const args = ['invite', 'send', '--file', file, '--sent-by-user-id', 'usr-1'];
      const here = await roster(sandbox, args);
      const there = await roster(other, args, { home: here.home });
      expect([here.code, there.code]).toEqual([0, 0]);
      expect(journalOf(here.stderr)).toMatch(/\.db$/);
      expect(journalOf(there.stderr)).not.toBe(journalOf(here.stderr));
      expect(journalRows(journalOf(there.stderr)).map((e) => e.state)).toEqual(Array(5).fill('sent'));
      expect(there.stderr).toContain('Sent 5 of 5 invitations');
      expect([...deliveries(sandbox).values()]).toEqual(Array(5).fill(1));
      expect([...deliveries(other).values()]).toEqual(Array(5).fill(1));

      const back = await roster(sandbox, args, { home: here.home });
      expect(back.stderr).toContain('Nothing sent');
      expect([...deliveries(sandbox).values()]).toEqual(Array(5).fill(1));
    } finally {
      await other.close();
    }
  });

  it('rows in doubt stay in doubt after the file is edited, listed at their new lines', async () => {
    // The list out of use: these rows stay in doubt (the list settling them: settle-rerun.test.ts).
    listOutOfUse(sandbox);
    const doubtful = new Set(['doubt-1@example.org', 'doubt-3@example.org']);
    sandbox.injectFault({
      match: (r) =>
        r.method === 'POST' &&
        r.path === '/enrollment/invitations' &&
        doubtful.has(JSON.parse(r.body.toString()).email),
      drop: true,
      times: 2,
    });
    const emails = Array.from({ length: 5 }, (_, i) => `doubt-${i}@example.org`);
    const file = csvFile(`email,schoolId,studentCount\n${emails.map((e) => `${e},org-sch-2,1\n`).join('')}`);
    const args = ['invite', 'send', '--file', file, '--sent-by-user-id', 'usr-1'];
    const first = await roster(sandbox, args);
    expect(first.code).toBe(5);
    expect(first.stderr).toContain('In doubt: 2');

    // A new first row, the in-doubt ones edited and moved.
    writeFileSync(
      file,
      'email,schoolId,studentCount\n' +
        'doubt-new@example.org,org-sch-2,1\n' +
        'doubt-3@example.org,org-sch-2,2\n' +
        'doubt-0@example.org,org-sch-2,1\n' +
        'doubt-2@example.org,org-sch-2,1\n' +
        'doubt-4@example.org,org-sch-2,1\n' +
        'DOUBT-1@example.org,org-sch-2,4\n',
    );
    sandbox.requests.length = 0;
    const again = await roster(sandbox, [...args, '--json'], { home: first.home });
    expect(again.code).toBe(5);
    expect(posts(sandbox).map((r) => JSON.parse(r.body).email)).toEqual(['doubt-new@example.org']);
    expect(JSON.parse(again.stdout).counts).toEqual({
      total: 6,
      sent: 1,
      skipped: 3,
      failed: 0,
      inDoubt: 2,
      notStarted: 0,
    });
    expect(again.stderr).toContain('In doubt: 2 (may have been sent; not sent again)');
    expect(again.stderr).toContain('line 3: doubt-3@example.org (Birch Elementary School)');
    expect(again.stderr).toContain('line 7: DOUBT-1@example.org (Birch Elementary School)');
    expect(Math.max(...deliveries(sandbox).values())).toBe(1);

    // Only --resend-in-doubt sends them again, with the values now in the file.
    sandbox.requests.length = 0;
    const resend = await roster(sandbox, [...args, '--resend-in-doubt'], { home: first.home });
    expect(resend.code).toBe(0);
    expect(posts(sandbox)).toHaveLength(2);
    expect(posts(sandbox).map((r) => JSON.parse(r.body))).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ email: 'doubt-3@example.org', studentCount: 2 }),
        expect.objectContaining({ email: 'DOUBT-1@example.org', studentCount: 4 }),
      ]),
    );
  });

  it('a permission failure stops the run early with exit 3', async () => {
    sandbox.injectFault({
      match: (r) => r.path === '/enrollment/invitations',
      status: 403,
      body: { message: 'not allowed' },
      times: 100,
    });
    const file = csvFile(csvOf(30));
    const run = await roster(sandbox, [
      'invite',
      'send',
      '--file',
      file,
      '--sent-by-user-id',
      'usr-1',
      '--concurrency',
      '2',
    ]);
    expect(run.code).toBe(3);
    expect(posts(sandbox).length).toBeLessThanOrEqual(2);
    expect(run.stderr).toContain('Not started: 28');
    expect(run.stderr).toMatch(/Error: Stopped sending: Invitation to .* failed \(HTTP 403\): not allowed/);
  });

  it('on a terminal: confirmation first (declined: cancelled, exit 130, nothing sent at all), --concurrency checked', async () => {
    const file = csvFile(csvOf(7));
    const prompter = scriptedPrompter({ confirm: false });
    const run = await roster(sandbox, ['invite', 'send', '--file', file, '--sent-by-user-id', 'usr-1'], {
      tty: true,
      prompter,
    });
    expect(run.code).toBe(130);
    expect(run.stderr).toContain('Cancelled; nothing was sent.');
    expect(prompter.asked).toEqual(['Send 7 invitations?']);
    expect(run.stderr).toContain('About to e-mail 7 enrollment invitations from');
    // Every row (up to ten), each school by name, and the totals by school.
    expect(run.stderr).toMatch(/\n8 +parent6@example\.org +Alder Elementary School +1\n/);
    expect(run.stderr).not.toContain('… and');
    expect(run.stderr).toMatch(/\nschool +invitations +students\nAlder Elementary School +3 /);
    expect(run.stderr).not.toContain('org-sch-');
    expect(posts(sandbox)).toHaveLength(0);

    const yes = await roster(sandbox, ['invite', 'send', '--file', file, '--sent-by-user-id', 'usr-1'], {
      tty: true,
      prompter: scriptedPrompter({ confirm: true }),
      home: run.home,
    });
    expect(yes.code).toBe(0);
    expect(posts(sandbox)).toHaveLength(7);

    for (const bad of ['0', '17', 'x']) {
      const r = await roster(sandbox, ['invite', 'send', '--file', file, '--concurrency', bad]);
      expect(r.code).toBe(2);
    }
  });
});
