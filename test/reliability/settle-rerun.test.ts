// Rows a run left in doubt are settled by the server's list on the next run, and by `roster invite settle
// [--file]` on demand; an older invitation to the same family settles nothing. The built CLI against the
// sandbox; e-mails counted at its outbox, POSTs and list reads where they arrived.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GATEWAY_503_TEXT } from '../../src/sandbox/gateway.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { demoEnv } from '../helpers/sandbox.js';

let sandbox: Sandbox;
let home: string;
/** The sandbox's clock runs this far behind real time (tests set it back to make an older invitation). */
let behindMs = 0;
beforeAll(async () => {
  sandbox = await startSandbox({ seed: 5, now: () => Date.now() - behindMs });
});
afterAll(() => sandbox.close());
beforeEach(() => {
  home = tempDir();
  behindMs = 0;
  sandbox.requests.length = 0;
  sandbox.clearFaults();
});

const isPost = (r: { method: string; path: string }) =>
  r.method === 'POST' && r.path === '/enrollment/invitations';
const isList = (r: { method: string; path: string }) =>
  r.method === 'GET' && r.path === '/enrollment/invitations';
const posts = () =>
  sandbox.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/enrollment/invitations'));
const listReads = () =>
  sandbox.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/enrollment/invitations'));
const emailsTo = (email: string) => sandbox.outbox.filter((m) => m.to === email).length;
/** The gateway's 503 text/plain after the API created the invitation, on every POST. */
const gatewayAfterCreating = () =>
  sandbox.injectFault({
    match: isPost,
    afterProcessing: true,
    status: 503,
    headers: { 'content-type': 'text/plain' },
    body: GATEWAY_503_TEXT,
    times: 1_000,
  });
/** The list out of use for the next reads (a 404): the first run cannot settle anything. */
const listOutOfUse = () =>
  sandbox.injectFault({ match: isList, status: 404, body: { message: 'No such endpoint' }, times: 1_000 });

function familiesCsv(tag: string, count: number) {
  const emails = Array.from({ length: count }, (_, i) => `${tag}-${i}@example.org`);
  const file = join(tempDir(), `${tag}.csv`);
  writeFileSync(file, `email,schoolId\n${emails.map((e) => `${e},org-sch-2`).join('\n')}\n`);
  return { file, emails };
}

/** A first run whose 3 rows all end in doubt: the gateway answered after creating, the list out of use. */
async function runLeftInDoubt(tag: string) {
  const { file, emails } = familiesCsv(tag, 3);
  gatewayAfterCreating();
  listOutOfUse();
  const send = ['invite', 'send', '--file', file, '--sent-by-user-id', 'usr-1', '--json'];
  const first = await runCli(send, home, { env: demoEnv(sandbox) });
  expect(first.code).toBe(5);
  const rows = (JSON.parse(first.stdout) as { rows: { result: string }[] }).rows;
  expect(rows.map((r) => r.result)).toEqual(['in-doubt', 'in-doubt', 'in-doubt']);
  sandbox.clearFaults();
  sandbox.requests.length = 0;
  return { file, emails, send };
}

describe('rows a run left in doubt', () => {
  it("are settled by the next run's read of the server's list: sent, no POST, exit 0, one e-mail each", async () => {
    const { emails, send } = await runLeftInDoubt('rerun');
    const again = await runCli(send, home, { env: demoEnv(sandbox) });
    expect(again.code).toBe(0);
    expect(posts()).toHaveLength(0);
    expect(
      sandbox.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/enrollment/invitations')),
    ).toHaveLength(3);
    for (const email of emails) expect(emailsTo(email), email).toBe(1);
    for (const [i, email] of emails.entries())
      expect(again.stderr).toMatch(
        new RegExp(
          `Line ${i + 2}: Invitation to ${email.replace(/\./g, '\\.')} was sent: the server lists it \\(created at [^)]+\\); it is not sent again\\.`,
        ),
      );
    // Settled before this run's sending began: in its report, already sent.
    const rows = (JSON.parse(again.stdout) as { rows: { result: string }[] }).rows;
    expect(rows.map((r) => r.result)).toEqual(['skipped', 'skipped', 'skipped']);
    // A third run has nothing to ask: the journal holds them sent.
    sandbox.requests.length = 0;
    const third = await runCli(send, home, { env: demoEnv(sandbox) });
    expect(third.code).toBe(0);
    expect(sandbox.requests.filter((r) => r.path.endsWith('/enrollment/invitations'))).toHaveLength(0);
  });

  it('are settled by `roster invite settle --file` on demand (--json), and the next send posts nothing', async () => {
    const { file, emails, send } = await runLeftInDoubt('settle-cmd');
    const settle = await runCli(['invite', 'settle', '--file', file, '--json'], home, {
      env: demoEnv(sandbox),
    });
    expect(settle.code).toBe(0);
    const report = JSON.parse(settle.stdout) as {
      counts: Record<string, number>;
      rows: { line: number; email: string; was: string; now: string; createdAt?: string }[];
    };
    expect(report.counts).toEqual({ sent: 3, inDoubt: 0, failed: 0 });
    expect(report.rows.map((r) => [r.line, r.email, r.was, r.now])).toEqual(
      emails.map((e, i) => [i + 2, e, 'in-doubt', 'sent']),
    );
    for (const row of report.rows)
      expect(row.createdAt).toBe(sandbox.invitations().find((i) => i.email === row.email)?.createdAt);
    expect(settle.stderr).toBe(
      'Settled as sent: 3; still in doubt: 0; failed, sent again by the next run: 0.\n',
    );

    const again = await runCli([...send, '--resend-in-doubt'], home, { env: demoEnv(sandbox) });
    expect(again.code).toBe(0);
    expect(posts()).toHaveLength(0);
    for (const email of emails) expect(emailsTo(email), email).toBe(1);
  });

  it('of a file naming its schools by name are found and settled by `invite settle --file`', async () => {
    const file = join(tempDir(), 'by-name.csv');
    writeFileSync(file, 'email,schoolId\nnamed-0@example.org,Birch Elementary School\n');
    gatewayAfterCreating();
    listOutOfUse();
    const send = ['invite', 'send', '--file', file, '--sent-by-user-id', 'usr-1'];
    expect((await runCli(send, home, { env: demoEnv(sandbox) })).code).toBe(5);
    sandbox.clearFaults();
    const settle = await runCli(['invite', 'settle', '--file', file, '--json'], home, {
      env: demoEnv(sandbox),
    });
    expect(settle.code).toBe(0);
    const report = JSON.parse(settle.stdout) as { rows: { email: string; schoolId: string; now: string }[] };
    expect(report.rows.map((r) => [r.email, r.schoolId, r.now])).toEqual([
      ['named-0@example.org', 'org-sch-2', 'sent'],
    ]);
  });

  it('that the list cannot settle stay in doubt: the table says why, exit 5, and a later send posts nothing', async () => {
    const { file, send } = await runLeftInDoubt('settle-none');
    listOutOfUse();
    const settle = await runCli(['invite', 'settle', '--file', file], home, { env: demoEnv(sandbox) });
    expect(settle.code).toBe(5);
    const lines = settle.stdout.trim().split('\n');
    expect(lines[0]).toBe('LINE\tEMAIL\tSCHOOL\tWAS\tNOW\tWHY');
    expect(lines.slice(1).map((l) => l.split('\t').slice(3, 5))).toEqual(
      Array(3).fill(['in-doubt', 'in-doubt']),
    );
    expect(lines[1]).toMatch(/the server's list cannot tell \(its list could not be read: .*HTTP 404/);
    expect(settle.stderr).toMatch(/^Warning: roster cannot settle invitations in doubt by the server's list/);
    expect(settle.stderr).toMatch(/Error: 3 invitations are still in doubt/);
    const again = await runCli(send, home, { env: demoEnv(sandbox) });
    expect(again.code).toBe(5);
    expect(posts()).toHaveLength(0);
  });

  it('`invite settle` of a file never sent: nothing to settle, exit 0, nothing asked', async () => {
    const { file } = familiesCsv('never-sent', 2);
    const settle = await runCli(['invite', 'settle', '--file', file], home, { env: demoEnv(sandbox) });
    expect(settle.code).toBe(0);
    expect(settle.stdout).toBe('');
    expect(settle.stderr).toMatch(/^Nothing to settle: no row of .*never-sent\.csv is in doubt/);
    expect(sandbox.requests.filter((r) => r.path.endsWith('/enrollment/invitations'))).toHaveLength(0);
  });

  it('`invite settle --file ""` is a usage error (exit 2), nothing asked', async () => {
    const settle = await runCli(['invite', 'settle', '--file', ''], home, { env: demoEnv(sandbox) });
    expect(settle.code).toBe(2);
    expect(settle.stderr).toMatch(/Give --file FILE/);
    expect(sandbox.requests).toHaveLength(0);
  });
});

describe('`roster invite settle` without --file: the record of sent invitations', () => {
  const sendOne = (email: string) =>
    runCli(
      ['invite', 'send', '--email', email, '--school-id', 'org-sch-4', '--sent-by-user-id', 'usr-1'],
      home,
      { env: demoEnv(sandbox) },
    );
  /** A single send left in doubt: the gateway answered after creating, the list out of use. */
  async function singleLeftInDoubt(email: string) {
    gatewayAfterCreating();
    listOutOfUse();
    const one = await sendOne(email);
    expect(one.code).toBe(5);
    sandbox.clearFaults();
    sandbox.requests.length = 0;
  }
  /** The same family sent again by a file of its own (its own journal): only roster's record stops it. */
  const sendInAFile = (email: string) => {
    const file = join(tempDir(), 'again.csv');
    writeFileSync(file, `email,schoolId\n${email},org-sch-4\n`);
    return runCli(['invite', 'send', '--file', file, '--sent-by-user-id', 'usr-1'], home, {
      env: demoEnv(sandbox),
    });
  };
  const settleRecord = (...more: string[]) =>
    runCli(['invite', 'settle', ...more], home, { env: demoEnv(sandbox) });

  it("settles a single send in doubt and a file run's rows: sent, recorded, and no later run posts them", async () => {
    const single = 'single-in-doubt@example.org';
    await singleLeftInDoubt(single);
    const { file, emails, send } = await runLeftInDoubt('settle-record');
    const settle = await settleRecord('--json');
    expect(settle.code).toBe(0);
    const report = JSON.parse(settle.stdout) as {
      record: string;
      counts: Record<string, number>;
      rows: { email: string; run: string; was: string; now: string; createdAt?: string }[];
    };
    expect(report.counts).toEqual({ sent: 4, inDoubt: 0 });
    expect(report.rows.map((r) => [r.email, r.now]).sort()).toEqual(
      [single, ...emails].map((e) => [e, 'sent']).sort(),
    );
    expect(report.rows.find((r) => r.email === single)?.run).toBe('`roster invite send --email`');
    expect(report.rows.find((r) => r.email === emails[0])?.run).toBe(file);
    for (const row of report.rows)
      expect(row.createdAt).toBe(sandbox.invitations().find((i) => i.email === row.email)?.createdAt);
    // Asked the list once each, and posted nothing.
    expect(listReads()).toHaveLength(4);
    expect(posts()).toHaveLength(0);
    expect(settle.stderr).toBe('Settled as sent: 4; still in doubt: 0.\n');

    // Settled for every run: the file's run skips them as sent (even told to resend doubt), and a file
    // holding the single send's family skips it too.
    sandbox.requests.length = 0;
    expect((await runCli([...send, '--resend-in-doubt'], home, { env: demoEnv(sandbox) })).code).toBe(0);
    expect((await sendInAFile(single)).code).toBe(0);
    expect(posts()).toHaveLength(0);
    for (const email of [single, ...emails]) expect(emailsTo(email), email).toBe(1);
    // Nothing is left to settle.
    sandbox.requests.length = 0;
    const again = await settleRecord();
    expect(again.code).toBe(0);
    expect(again.stdout).toBe('');
    expect(again.stderr).toMatch(
      /^Nothing to settle: roster's record of sent invitations holds none in doubt/,
    );
    expect(listReads()).toHaveLength(0);
  });

  it('what the list cannot settle stays in doubt: the table names the run that left it, exit 5', async () => {
    const email = 'unsettled-single@example.org';
    await singleLeftInDoubt(email);
    listOutOfUse();
    const settle = await settleRecord();
    expect(settle.code).toBe(5);
    const lines = settle.stdout.trim().split('\n');
    expect(lines[0]).toBe('EMAIL\tSCHOOL\tLEFT BY\tNOW\tWHY');
    expect(lines[1]?.split('\t').slice(0, 4)).toEqual([
      email,
      'org-sch-4',
      '`roster invite send --email`',
      'in-doubt',
    ]);
    expect(lines[1]).toMatch(/the server's list cannot tell \(its list could not be read: .*HTTP 404/);
    expect(settle.stderr).toMatch(/Error: 1 invitation is still in doubt/);
    expect(settle.stderr).toMatch(/roster invite send --email … --school-id … --resend-in-doubt/);
    expect(posts()).toHaveLength(0);
    // Still in doubt for a file run.
    sandbox.clearFaults();
    listOutOfUse();
    expect((await sendInAFile(email)).code).toBe(5);
    expect(posts()).toHaveLength(0);
    expect(emailsTo(email)).toBe(1);
  });
});

describe("an older invitation to the same family (last year's)", () => {
  it('settles nothing: a gateway 503 before the API acted stays in doubt, exit 5', async () => {
    const email = 'returning-family@example.org';
    const sendOne = [
      'invite',
      'send',
      '--email',
      email,
      '--school-id',
      'org-sch-3',
      '--sent-by-user-id',
      'usr-1',
    ];
    // Last season's invitation, by the server's clock 40 minutes ago.
    behindMs = 40 * 60_000;
    expect((await runCli(sendOne, home, { env: demoEnv(sandbox) })).code).toBe(0);
    behindMs = 0;
    // Now the gateway answers 503 text/plain before the API sees the request: nothing was created.
    sandbox.injectFault({
      match: isPost,
      status: 503,
      headers: { 'content-type': 'text/plain' },
      body: GATEWAY_503_TEXT,
    });
    const now = await runCli([...sendOne, '--yes'], home, { env: demoEnv(sandbox) });
    expect(now.code).toBe(5);
    expect(now.stderr).toMatch(/the outcome is unknown \(in doubt\)/);
    expect(now.stderr).not.toMatch(/cannot settle/);
    expect(
      sandbox.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/enrollment/invitations')),
    ).toHaveLength(1);
    expect(emailsTo(email)).toBe(1);
  });
});

describe('--resend-sent', () => {
  it('leaves a row another run left in doubt alone (--resend-in-doubt is for it): no POST, exit 5', async () => {
    const email = 'doubted-elsewhere@example.org';
    listOutOfUse();
    gatewayAfterCreating();
    const one = await runCli(
      ['invite', 'send', '--email', email, '--school-id', 'org-sch-4', '--sent-by-user-id', 'usr-1'],
      home,
      { env: demoEnv(sandbox) },
    );
    expect(one.code).toBe(5);
    sandbox.clearFaults();
    listOutOfUse();
    sandbox.requests.length = 0;
    const file = join(tempDir(), 'resend-sent.csv');
    writeFileSync(file, `email,schoolId\n${email},org-sch-4\n`);
    const send = ['invite', 'send', '--file', file, '--sent-by-user-id', 'usr-1', '--json'];
    const resent = await runCli([...send, '--resend-sent'], home, { env: demoEnv(sandbox) });
    expect(resent.code).toBe(5);
    expect(posts()).toHaveLength(0);
    const [row] = (JSON.parse(resent.stdout) as { rows: { result: string; reason: string }[] }).rows;
    expect(row?.result).toBe('in-doubt');
    expect(row?.reason).toContain('could not tell whether it was sent');
    expect(emailsTo(email)).toBe(1);
    // On purpose: --resend-in-doubt sends it.
    const again = await runCli([...send, '--resend-in-doubt'], home, { env: demoEnv(sandbox) });
    expect(again.code).toBe(0);
    expect(posts()).toHaveLength(1);
  });

  it('says so in its help', async () => {
    const help = await runCli(['invite', 'send', '--help'], home, { env: demoEnv(sandbox) });
    expect(help.stdout.replace(/\s+/g, ' ')).toContain(
      "--resend-sent with --file: send rows roster's record shows already sent, again (not rows in doubt: --resend-in-doubt)",
    );
  });
});
