// Two runs whose files list the same rows in opposite orders (A: Y, X; B: X, Y), concurrency 1, while a third
// holder E (a single send, or another file's run) has X claimed and then lets it go, certainly unsent. A run
// never holds a row ahead while one of its workers waits for another run's row: otherwise B would hold Y
// ahead and wait for X, A would take X and wait for Y, and both would wait out the whole claim hold (6.5 min
// at the default --timeout) and then report the other's row in doubt.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sendRows } from '../../src/invite/bulk-runner.js';
import type { PlannedRow } from '../../src/invite/invite-file.js';
import { contentHash, invitationIdentity, Journal, SentRecord } from '../../src/invite/store/index.js';
import { recordGuard } from '../../src/invite/store/row-guard.js';
import { tempDir } from '../helpers/context.js';

const destination = { baseUrl: 'http://127.0.0.1:4010/v1', clientId: 'demo-allowed' };
const row = (email: string, line: number): PlannedRow => ({
  line,
  body: { email, schoolId: 's1', scopes: ['fillEnrollment'], studentCount: 1, sentByUserId: 'u1' },
});

async function run(state: string, name: string, emails: string[], signal: AbortSignal, sent: string[]) {
  const path = join(state, 'invites', `${name}.csv-0123456789abcdef.jsonl`);
  const journal = await Journal.open(
    path,
    {
      journal: 'roster invite send',
      version: 1,
      file: `/data/${name}.csv`,
      destination,
      sha256: contentHash(''),
    },
    new Date(),
  );
  const record = await SentRecord.open(state, destination);
  record.load();
  const now = () => new Date();
  const guard = recordGuard(record, {
    run: { run: path, file: `/data/${name}.csv` },
    resendSent: false,
    resendInDoubt: false,
    resending: new Set(),
    timeoutMs: 30_000,
    now,
    warn: () => {},
    info: () => {},
  });
  const outcome = await sendRows({
    rows: emails.map((e, i) => row(e, i + 2)),
    journal,
    guard,
    concurrency: 1,
    signal,
    resending: new Set(),
    now,
    onProgress: () => {},
    send: async (r) => {
      sent.push(`${name} ${r.body.email}`);
      return { message: 'ok' };
    },
  });
  await record.close();
  await journal.close();
  return outcome;
}

describe('two runs with crossing orders and claims ahead', () => {
  it.each([
    ['while A asks for its rows', 30],
    ['just before A starts, so that A takes X ahead', -1],
  ])(
    'E lets X go %s: both finish promptly, each row sent once, none in doubt',
    async (_, releaseAfterMs) => {
      const state = tempDir();
      const X = invitationIdentity('x@x.org', 's1');
      const e = await SentRecord.open(state, destination);
      const eRun = { run: '\0a single send', file: 'E' };
      const never = new AbortController().signal;
      expect(
        (await e.claim(X, eRun, { ignoreSent: false, ignoreDoubt: false, signal: never, holdMs: 60_000 }))
          .kind,
      ).toBe('claimed');
      const release = async () => {
        await e.settle(X, eRun, 'done');
        await e.close();
      };

      const stopA = new AbortController();
      const stopB = new AbortController();
      const sent: string[] = [];
      const b = run(state, 'b', ['x@x.org', 'y@x.org'], stopB.signal, sent);
      // B takes Y ahead (X is E's), and waits for X with a growing back-off.
      await new Promise((r) => setTimeout(r, 1500));
      if (releaseAfterMs < 0) await release();
      const a = run(state, 'a', ['y@x.org', 'x@x.org'], stopA.signal, sent);
      if (releaseAfterMs >= 0) {
        await new Promise((r) => setTimeout(r, releaseAfterMs));
        await release();
      }

      const finished = await Promise.race([
        Promise.all([a, b]).then(() => true),
        new Promise<boolean>((r) => setTimeout(() => r(false), 10_000)),
      ]);
      // Let the test end either way.
      stopA.abort();
      stopB.abort();
      const [outA, outB] = await Promise.all([a, b]);
      const inDoubt = [...outA.results.values(), ...outB.results.values()].filter(
        (r) => r.state === 'in-doubt',
      );
      expect({
        finished,
        sent: [...new Set(sent.map((s) => s.split(' ')[1]))].sort(),
        sends: sent.length,
        inDoubt: inDoubt.length,
      }).toEqual({
        finished: true,
        sent: ['x@x.org', 'y@x.org'],
        sends: 2,
        inDoubt: 0,
      });
    },
    60_000,
  );
});
