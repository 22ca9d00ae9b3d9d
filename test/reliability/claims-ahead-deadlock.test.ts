import { describe, expect, it } from 'vitest';
import { sendRows } from '../../src/invite/bulk-runner.js';
import { invitationIdentity, SentRecord } from '../../src/invite/store/index.js';
import { destination, guardedRun, plannedRow } from '../helpers/claims.js';
import { tempDir } from '../helpers/context.js';

async function run(state: string, name: string, emails: string[], signal: AbortSignal, sent: string[]) {
  const { journal, guard, close } = await guardedRun(state, name);
  const now = () => new Date();
  const outcome = await sendRows({
    rows: emails.map((e, i) => plannedRow(e, i + 2)),
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
  await close();
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
