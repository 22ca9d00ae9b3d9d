// Forgetting while roster sends. `roster invite forget` adds to roster's record of sent invitations (in the
// destination's database, one transaction): a long run using the database goes on, never sends a family
// twice, and the families it is sending at that moment are not forgotten. Deleting or replacing the database
// file instead (what the README once told users to do with the record) is noticed by the run at its next
// row: it stops, says why, and the same command resumes, nobody e-mailed twice.
// Real processes against the sandbox; e-mails counted per address.
import { copyFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invitationIdentity, SentRecord, storePath } from '../../src/invite/store/index.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { type CliResult, runCli, startCli, until } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { demoEnv, homeWithSchoolsCached } from '../helpers/sandbox.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());

const emailsTo = (address: string) => sandbox.outbox.filter((m) => m.to === address).length;
const destination = () => ({ baseUrl: sandbox.baseUrl, clientId: 'demo-allowed' });
const recordPath = (state: string) => storePath(join(state, 'roster'), destination());
const recorded = async (state: string, email: string) =>
  (await SentRecord.peek(join(state, 'roster'), destination())).has(invitationIdentity(email, 'org-sch-1'));

function writeCsv(name: string, emails: string[]): string {
  const file = join(tempDir(), `${name}.csv`);
  writeFileSync(file, `email,schoolId,studentCount\n${emails.map((e) => `${e},org-sch-1,1`).join('\n')}\n`);
  return file;
}

const env = (state: string) => demoEnv(sandbox, 'demo-allowed', { XDG_STATE_HOME: state });
const send = (file: string, state: string, home: string, concurrency = 4) =>
  startCli(
    [
      'invite',
      'send',
      '--file',
      file,
      '--sent-by-user-id',
      'usr-1',
      '--concurrency',
      String(concurrency),
      '--json',
    ],
    home,
    { env: env(state), timeoutMs: 90_000 },
  );

interface ForgetReport {
  forgotten: { email: string; schoolId: string; sentAt: string }[];
  inFlight: { email: string; pid: number; file?: string }[];
}
const rowsOf = (result: CliResult) =>
  (JSON.parse(result.stdout) as { rows: { email: string; result: string }[] }).rows;

describe('roster invite forget while a long run sends', () => {
  it('the run goes on and e-mails nobody twice; families in flight are not forgotten; the forgotten ones can be sent again', async () => {
    // 32 families at concurrency 4, each request 2 s at the sandbox: four are always in flight for ~16 s.
    sandbox.setOptions({ latencyMs: 2_000, jitterMs: 0 });
    const state = tempDir();
    const families = Array.from({ length: 32 }, (_, i) => `forget-run-${i}@example.org`);
    const file = writeCsv('long', families);
    const home = await homeWithSchoolsCached(sandbox);
    const run = send(file, state, home);
    // The first four answered and recorded (the record learns outcomes with the run's next claims, or
    // within a fraction of a second), the next four in flight (for 2 s).
    await until(() => families.filter((e) => emailsTo(e) === 1).length >= 8, 60_000);
    for (const deadline = Date.now() + 1_500; ; ) {
      const known = await Promise.all(families.slice(0, 4).map((e) => recorded(state, e)));
      if (known.every(Boolean)) break;
      if (Date.now() > deadline) throw new Error('the first four answered were not recorded within 1.5 s');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }

    const forget = await runCli(['invite', 'forget', '--file', file, '--yes', '--json'], tempDir(), {
      env: env(state),
      timeoutMs: 60_000,
    });
    const report = JSON.parse(forget.stdout) as ForgetReport;
    // Some were being sent at that moment: not forgotten, said so, exit 5 (not everything asked for).
    expect(forget.code, forget.stderr).toBe(5);
    expect(report.inFlight.length).toBeGreaterThan(0);
    for (const f of report.inFlight) {
      expect(f.file).toBe(file);
      expect(forget.stderr).toContain(
        `Warning: ${f.email} at org-sch-1 is being sent right now by another roster run (pid ${run.child.pid}, ${file}): it cannot be forgotten`,
      );
    }
    expect(forget.stderr).toContain('not forgotten');
    const forgotten = report.forgotten.map((f) => f.email);
    expect(forgotten.length).toBeGreaterThanOrEqual(4);
    expect(forgotten.filter((e) => report.inFlight.some((f) => f.email === e))).toEqual([]);

    const done = await run.done;
    // The run did not notice anything it must stop for: every family sent, once.
    expect({ code: done.code, stderr: done.stderr }).toMatchObject({ code: 0 });
    expect(families.filter((e) => emailsTo(e) !== 1)).toEqual([]);
    // The record: the forgotten ones are out, those in flight and every later one are in.
    for (const email of families)
      expect([email, await recorded(state, email)]).toEqual([email, !forgotten.includes(email)]);

    // Resuming the same file sends nothing: its journal knows its own rows, forgotten or not.
    const again = await send(file, state, home).done;
    expect(again.code, again.stderr).toBe(0);
    expect(families.filter((e) => emailsTo(e) !== 1)).toEqual([]);

    // Another file with every family: the forgotten ones go out again, the others are skipped.
    sandbox.setOptions({ latencyMs: 0, jitterMs: 0 });
    const other = await send(writeCsv('other', families), state, home).done;
    expect(other.code, other.stderr).toBe(0);
    for (const row of rowsOf(other))
      expect([row.email, row.result]).toEqual([
        row.email,
        forgotten.includes(row.email) ? 'sent' : 'skipped',
      ]);
    for (const email of families) expect(emailsTo(email)).toBe(forgotten.includes(email) ? 2 : 1);
  }, 120_000);
});

describe.each(['deleted', 'replaced'] as const)('the database %s under a running process', (how) => {
  it('is noticed at the next row: the run stops, says why (exit 1); once the file is back the same command resumes, nobody e-mailed twice', async () => {
    sandbox.setOptions({ latencyMs: 400, jitterMs: 0 });
    const state = tempDir();
    const families = Array.from({ length: 16 }, (_, i) => `${how}-${i}@example.org`);
    const file = writeCsv(how, families);
    const home = await homeWithSchoolsCached(sandbox);
    const run = send(file, state, home, 2);
    await until(() => families.filter((e) => emailsTo(e) === 1).length >= 4, 60_000);
    const path = recordPath(state);
    // Deleted as a desktop deletes: moved to the trash, from where it can be put back.
    if (how === 'deleted') renameSync(path, `${path}.trash`);
    else {
      // A copy of the file put back in its place (cp, then mv over it, as a user would): another file.
      copyFileSync(path, `${path}.copy`);
      renameSync(`${path}.copy`, path);
    }
    const stopped = await run.done;
    expect(stopped.code, stopped.stderr).toBe(1);
    expect(stopped.stderr).toContain(
      `roster's record of sent invitations ${path} was ${how} while this run was using it; roster stops sending so that no family is e-mailed twice`,
    );
    expect(stopped.stderr).toContain('roster invite forget');
    const sentBefore = families.filter((e) => emailsTo(e) === 1).length;
    // Stopped before the end: no row was taken after the record went.
    expect(sentBefore).toBeLessThan(families.length);
    expect(families.filter((e) => emailsTo(e) > 1)).toEqual([]);

    sandbox.setOptions({ latencyMs: 0, jitterMs: 0 });
    if (how === 'deleted') {
      // Its last writes are in the log beside it: never begun afresh over them, which would send again.
      const refused = await send(file, state, home).done;
      expect(refused.code, refused.stderr).toBe(1);
      expect(refused.stderr).toContain(
        `roster's record of sent invitations ${path} is missing, but the log of its last writes (${path}-wal) is there`,
      );
      expect(families.filter((e) => emailsTo(e) > 1)).toEqual([]);
      expect(sandbox.outbox.filter((m) => families.includes(m.to))).toHaveLength(sentBefore);
      renameSync(`${path}.trash`, path);
    }
    const resumed = await send(file, state, home).done;
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(
      families.filter((e) => emailsTo(e) !== 1),
      resumed.stderr,
    ).toEqual([]);
    // The record that is there now knows every one of them.
    for (const email of families) expect(await recorded(state, email)).toBe(true);
  }, 90_000);
});
