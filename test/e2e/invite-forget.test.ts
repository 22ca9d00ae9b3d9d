// `roster invite forget` end to end: real `roster` processes against the sandbox. What it forgets (by the
// rows of a file, an e-mail, a school, or all) is listed first, asked for (no terminal: --yes or a usage
// error), and then sent again by a file that roster's record had skipped; --dry-run and --json.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { invitationIdentity, SentRecord, storePath } from '../../src/invite/store/index.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { startPty } from '../helpers/pty.js';
import { demoEnv } from '../helpers/sandbox.js';
import { recordRows, storeFiles, storeOf } from '../helpers/store.js';

let sandbox: Sandbox;
let home: string;
beforeAll(async () => {
  sandbox = await startSandbox({ seed: 5 });
});
afterAll(() => sandbox.close());
beforeEach(() => {
  home = tempDir();
  sandbox.outbox.length = 0;
  sandbox.setOptions({ latencyMs: 0 });
});

const roster = (args: string[]) => runCli(args, home, { env: demoEnv(sandbox), timeoutMs: 60_000 });
const stateDir = () => join(home, '.local', 'state', 'roster');
const destination = () => ({ baseUrl: sandbox.baseUrl, clientId: 'demo-allowed' });
/** roster's record of sent invitations for the destination, row by row (straight from its database). */
const recordNow = () => recordRows(storeOf(stateDir()));
const has = async (email: string, school = 'org-sch-1') =>
  (await SentRecord.peek(stateDir(), destination())).has(invitationIdentity(email, school));
const emailsTo = (address: string) => sandbox.outbox.filter((m) => m.to === address).length;

function csvFile(rows: string[]): string {
  const path = join(tempDir(), 'families.csv');
  writeFileSync(path, `email,schoolId,studentCount\n${rows.join('\n')}\n`);
  return path;
}
const FAMILIES = ['a@example.org,org-sch-1,1', 'b@example.org,org-sch-1,1', 'c@example.org,org-sch-2,1'];

/** Sends the three families with one file, so roster's record holds them. */
async function sendAll(): Promise<string> {
  const file = csvFile(FAMILIES);
  const sent = await roster(['invite', 'send', '--file', file, '--sent-by-user-id', 'usr-1']);
  expect(sent.code, sent.stderr).toBe(0);
  expect(
    recordNow()
      .map((r) => [r.email, r.sentAt !== undefined])
      .sort(),
  ).toEqual([
    ['a@example.org', true],
    ['b@example.org', true],
    ['c@example.org', true],
  ]);
  return file;
}

describe('roster invite forget', () => {
  it('without a terminal and without --yes: a usage error (exit 2), nothing forgotten', async () => {
    await sendAll();
    const before = recordNow();
    const result = await roster(['invite', 'forget', '--email', 'a@example.org']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('roster invite forget asks before it forgets, and there is no terminal');
    expect(result.stderr).toContain('--yes');
    expect(recordNow()).toEqual(before);
  });

  it.each([
    [[], 'Which invitations?'],
    [['--all', '--email', 'a@example.org'], 'Which invitations?'],
    [['--file', 'x.csv', '--school', 'org-sch-1'], 'Which invitations?'],
    [['--email', ' '], '--email is empty'],
  ])('%j is a usage error', async (args, message) => {
    const result = await roster(['invite', 'forget', ...args, '--yes']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });

  it('--dry-run lists what --email would forget (any letter case) and forgets nothing', async () => {
    await sendAll();
    const before = recordNow();
    const result = await roster(['invite', 'forget', '--email', 'A@Example.org', '--dry-run']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^a@example\.org\torg-sch-1\t\t\d{4}-\d\d-\d\dT[^\n]+\n$/);
    expect(result.stderr).toContain('Dry run: 1 invitation of roster');
    expect(recordNow()).toEqual(before);
  });

  it('--email with --yes forgets that family only; a file that skipped it sends it again', async () => {
    await sendAll();
    const before = recordNow();
    const result = await roster(['invite', 'forget', '--email', 'a@example.org', '--yes', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({
      record: storePath(stateDir(), destination()),
      destination: { clientId: 'demo-allowed' },
      dryRun: false,
      forgotten: [{ email: 'a@example.org', schoolId: 'org-sch-1', sentAt: expect.any(String) }],
      inFlight: [],
    });
    expect(result.stderr).toContain('Forgot 1 invitation of roster');
    expect([
      await has('a@example.org'),
      await has('b@example.org'),
      await has('c@example.org', 'org-sch-2'),
    ]).toEqual([false, true, true]);
    // The record was added to, never rewritten: the forgetting is a row of its own, after the rows it had.
    const after = recordNow();
    expect(after.slice(0, -1)).toEqual(before);
    expect(after.at(-1)).toEqual({
      identity: invitationIdentity('a@example.org', 'org-sch-1'),
      email: 'a@example.org',
      forgottenAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });

    // Another file with the same families: the forgotten one goes out again, the others are skipped.
    const again = await roster([
      'invite',
      'send',
      '--file',
      csvFile(FAMILIES),
      '--sent-by-user-id',
      'usr-1',
      '--json',
    ]);
    expect(again.code, again.stderr).toBe(0);
    expect(['a@example.org', 'b@example.org', 'c@example.org'].map(emailsTo)).toEqual([2, 1, 1]);
    expect(await has('a@example.org')).toBe(true);
  });

  it('--school forgets every invitation of that school; --file the rows of the file; --all the rest', async () => {
    const file = await sendAll();
    const school = await roster(['invite', 'forget', '--school', 'org-sch-2', '--yes']);
    expect(school.code, school.stderr).toBe(0);
    expect(school.stdout).toMatch(/^c@example\.org\torg-sch-2\t/);
    expect(await has('c@example.org', 'org-sch-2')).toBe(false);

    const rows = await roster(['invite', 'forget', '--file', file, '--yes']);
    expect(rows.code, rows.stderr).toBe(0);
    expect(
      rows.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split('\t')[0])
        // In the record's order: the two were sent at once, so either may have been confirmed first.
        .sort(),
    ).toEqual(['a@example.org', 'b@example.org']);
    // c was forgotten already: said, not an error.
    expect(rows.stderr).toContain('1 row of');
    expect(rows.stderr).toContain(
      "is not in roster's record (never confirmed sent by roster, or already forgotten)",
    );
    expect(await has('a@example.org')).toBe(false);

    const all = await roster(['invite', 'forget', '--all', '--yes']);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stderr).toContain('Nothing to forget in roster');
  });

  it('--file of a file naming its schools by name forgets its rows, as the send recorded them', async () => {
    const file = csvFile(['named@example.org,Birch Elementary School,1']);
    expect((await roster(['invite', 'send', '--file', file, '--sent-by-user-id', 'usr-1'])).code).toBe(0);
    expect(await has('named@example.org', 'org-sch-2')).toBe(true);
    const forgot = await roster(['invite', 'forget', '--file', file, '--yes', '--json']);
    expect(forgot.code, forgot.stderr).toBe(0);
    expect((JSON.parse(forgot.stdout) as { forgotten: { email: string }[] }).forgotten).toHaveLength(1);
    expect(await has('named@example.org', 'org-sch-2')).toBe(false);
    // Another file (its own journal) that roster's record had skipped sends it again.
    const again = csvFile(['named@example.org,org-sch-2,1']);
    expect((await roster(['invite', 'send', '--file', again, '--sent-by-user-id', 'usr-1'])).code).toBe(0);
    expect(emailsTo('named@example.org')).toBe(2);
  });

  it("--school given a school's name (not its sourcedId): nothing to forget, and the ids the record holds", async () => {
    await sendAll();
    const before = recordNow();
    const result = await roster(['invite', 'forget', '--school', 'Alder Elementary School', '--yes']);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('Nothing to forget in');
    expect(result.stderr).toContain(
      "--school takes a school's sourcedId, as the record keeps it; it holds invitations for org-sch-1, org-sch-2.",
    );
    expect(recordNow()).toEqual(before);
    // A school the record holds, with an e-mail it does not: the mistake is the e-mail, and no hint blames --school.
    const email = await roster([
      'invite',
      'forget',
      '--school',
      'org-sch-1',
      '--email',
      'nobody@example.org',
      '--yes',
    ]);
    expect(email.code).toBe(0);
    expect(email.stderr).toContain('Nothing to forget in');
    expect(email.stderr).not.toContain('--school takes');
  });

  it('with no record for the destination: nothing to forget, exit 0, nothing created', async () => {
    const result = await roster(['invite', 'forget', '--all', '--yes']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('Nothing to forget');
    expect(storeFiles(stateDir())).toEqual([]);
  });

  it('on a terminal it lists and asks (default no: cancelled, exit 130); yes forgets', async () => {
    await sendAll();
    const declined = startPty(['invite', 'forget', '--email', 'b@example.org'], home, demoEnv(sandbox));
    await declined.waitFor('Forget this invitation?');
    declined.type('\r');
    await declined.waitFor('Cancelled; nothing was forgotten.');
    expect((await declined.done).code).toBe(130);
    expect(await has('b@example.org')).toBe(true);

    const accepted = startPty(['invite', 'forget', '--email', 'b@example.org'], home, demoEnv(sandbox));
    await accepted.waitFor('Forget this invitation?');
    accepted.type('y\r');
    expect((await accepted.done).code).toBe(0);
    expect(await has('b@example.org')).toBe(false);
  });

  it.each([
    ['Ctrl-C', '\u0003'],
    ['Esc', '\u001b'],
  ])('%s at the question: cancelled (exit 130), the record unchanged', async (_, key) => {
    await sendAll();
    const before = recordNow();
    const run = startPty(['invite', 'forget', '--email', 'b@example.org'], home, demoEnv(sandbox));
    await run.waitFor('Forget this invitation?');
    run.type(key);
    await run.waitFor('Cancelled; nothing was forgotten.');
    expect((await run.done).code).toBe(130);
    expect(recordNow()).toEqual(before);
  });
});
