// A row claimed ahead and let go while a worker waits for another run's row is released before any worker
// claims it again: otherwise the release ("unsent", claim done) could land after the new claim, while this
// run's request for the row is out, and another run would take the row and e-mail the family a second time.
//
// Sequence (concurrency 3, window 16): rows 1..14 are recorded sent by another file's run (their ahead
// verdicts are 'elsewhere': a worker goes through them without waiting for a batch), row 15 is held by a
// live run E. The worker taking row 8 asks for rows 16..23 ahead (a batch, queued). The one taking row 15
// (held: 'later') lets go of the rows held ahead, the batch not yet written; another worker takes the first
// of them and claims it just before its request. That claim must come after the release.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sendRows } from '../../src/invite/bulk-runner.js';
import { invitationIdentity, SentRecord } from '../../src/invite/store/index.js';
import { destination, guardedRun, plannedRow } from '../helpers/claims.js';
import { tempDir } from '../helpers/context.js';

const row = (i: number) => plannedRow(`p${i}@x.org`, i + 2);
const id = (email: string) => invitationIdentity(email, 's1');
const never = new AbortController().signal;

describe('a row released from ahead while another worker claims it just before its request', () => {
  it('stays claimed by the run sending it: another run cannot take it while the request is out', async () => {
    const state = tempDir();
    // Another file's run sent rows 1..14.
    const other = await SentRecord.open(state, destination);
    await other.add(
      Array.from({ length: 14 }, (_, k) => ({
        email: `p${k + 1}@x.org`,
        schoolId: 's1',
        sentAt: new Date().toISOString(),
      })),
    );
    await other.close();
    // A live run E is sending row 15.
    const e = await SentRecord.open(state, destination);
    const eRun = { run: join(state, 'invites', 'e.csv-eeeeeeeeeeeeeeee.jsonl'), file: '/data/e.csv' };
    expect(
      (
        await e.claim(id('p15@x.org'), eRun, {
          ignoreSent: false,
          ignoreDoubt: false,
          signal: never,
          holdMs: 60_000,
        })
      ).kind,
    ).toBe('claimed');

    const { journal, record, guard, close } = await guardedRun(state, 'a');
    const now = () => new Date();
    /** Rows from 16 on whose requests are out: each answered only once the test has looked. */
    const out: string[] = [];
    let answer!: () => void;
    const answered = new Promise<void>((r) => {
      answer = r;
    });
    const run = sendRows({
      rows: Array.from({ length: 24 }, (_, i) => row(i)),
      journal,
      guard,
      concurrency: 3,
      signal: never,
      resending: new Set(),
      now,
      onProgress: () => {},
      send: async (r) => {
        if (Number(r.body.email.slice(1, -6)) >= 16) {
          out.push(r.body.email);
          await answered;
        }
        return { message: 'ok' };
      },
    });

    // Two workers have requests out (the third waits for E's row 15); lazy settles reach the file.
    for (let i = 0; i < 100 && out.length < 2; i++) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 600));
    const claimsNow = readFileSync(`${record.path}.claims`, 'utf8');
    const outAtLook = [...out];
    // Another run (another file, no flags) asks for each row whose request A has out.
    const cRun = { run: join(state, 'invites', 'c.csv-cccccccccccccccc.jsonl'), file: '/data/c.csv' };
    const c = await SentRecord.open(state, destination);
    const takenByC: string[] = [];
    for (const email of outAtLook) {
      const outcome = await c.claim(id(email), cRun, {
        ignoreSent: false,
        ignoreDoubt: false,
        signal: AbortSignal.timeout(500),
        holdMs: 60_000,
      });
      if (outcome.kind === 'claimed') {
        takenByC.push(email);
        await c.settle(id(email), cRun, 'done');
      }
    }
    await c.close();

    answer();
    await e.settle(id('p15@x.org'), eRun, 'done');
    await e.close();
    await run;
    await close();
    const history = (email: string) =>
      claimsNow
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l))
        .filter((cl) => cl.id === id(email))
        .map((cl) => `${cl.state} ${cl.run.slice(-26, -20)}`);
    // While A's requests are out, no other run may take those rows. Fails: C takes the row the release let go.
    expect({ out: outAtLook.length, takenByC, histories: takenByC.map(history) }).toEqual({
      out: 2,
      takenByC: [],
      histories: [],
    });
  }, 30_000);
});
