// Real processes claiming and settling the same invitations at once through one destination's database (as
// overlapping bulk runs do), two killed with kill -9 mid-way, a `forget` writing meanwhile: no process may
// miss what another claimed or recorded (nobody sent twice, nobody lost), and the database agrees after.
import { beforeAll, describe, expect, it } from 'vitest';
import { invitationIdentity, SentRecord, storePath } from '../../src/invite/store/index.js';
import { tempDir } from '../helpers/context.js';
import { bundleDriver, startDriver } from '../helpers/driver.js';
import { claimRows, recordRows } from '../helpers/store.js';

const destination = { baseUrl: 'http://127.0.0.1:8080/v1', clientId: 'district-42' };
const IDS = 300;

let driver: string;
beforeAll(async () => {
  driver = await bundleDriver(
    'claimer',
    `
        import { SentRecord, invitationIdentity } from './src/invite/store/index.ts';
        const [state, tag, mode, seed] = process.argv.slice(2);
        const record = await SentRecord.open(state, ${JSON.stringify(destination)});
        record.load();
        let s = Number(seed) || 1;
        const rnd = () => { s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0; return s / 2 ** 32; };
        if (mode === 'forget') {
          for (let i = 0; i < 40; i++) {
            await record.forget((p) => p.email.startsWith('f' + i + '-'), true);
            await new Promise((r) => setTimeout(r, rnd() * 20));
          }
          await record.close();
          process.exit(0);
        }
        const order = Array.from({ length: ${IDS} }, (_, i) => i).sort(() => rnd() - 0.5);
        const run = { run: '/journal/' + tag, file: tag };
        let next = 0;
        async function worker() {
          while (next < order.length) {
            const i = order[next++];
            const email = 'p' + i + '@x.org';
            const id = invitationIdentity(email, 'sch-1');
            const outcome = await record.claim(id, run, { ignoreSent: false, ignoreDoubt: false, signal: new AbortController().signal, holdMs: 60000 });
            if (outcome.kind !== 'claimed') { process.stdout.write(outcome.kind + ' ' + i + '\\n'); continue; }
            process.stdout.write('SENT ' + i + '\\n');
            await new Promise((r) => setTimeout(r, rnd() * 3));
            await record.settle(id, run, 'done', { email, schoolId: 'sch-1', sentAt: new Date().toISOString() });
          }
        }
        await Promise.all([worker(), worker(), worker(), worker()]);
        await record.close();
        process.exit(0);`,
  );
});

const start = (state: string, tag: string, mode: string, seed: number) =>
  startDriver(driver, [state, tag, mode, String(seed)]);

/** Resolves once the process has printed `count` outcomes (or has ended). */
function outcomes(run: ReturnType<typeof start>, count: number): Promise<void> {
  return new Promise((resolve) => {
    let lines = 0;
    run.child.stdout.on('data', (d) => {
      lines += String(d).split('\n').length - 1;
      if (lines >= count) resolve();
    });
    run.done.then(() => resolve());
  });
}

describe("roster's record under concurrent claimers, kills and a forget", () => {
  for (const round of [1, 2, 3])
    it(`round ${round}: every invitation sent at most once, and each sent or in doubt`, async () => {
      const state = tempDir();
      // Seed forgettable entries, so forget writes while the claimers run.
      const seedRecord = await SentRecord.open(state, destination);
      await seedRecord.add(
        Array.from({ length: 40 }, (_, i) => ({
          email: `f${i}-@x.org`,
          schoolId: 'sch-1',
          sentAt: new Date().toISOString(),
        })),
      );
      await seedRecord.close();
      const first = Array.from({ length: 5 }, (_, p) =>
        start(state, `r${round}a${p}`, 'claim', round * 100 + p),
      );
      const forget = start(state, 'forget', 'forget', round);
      // Kill two of them part-way: once each has claimed or been told of some invitations, its workers in
      // the middle of others (a claim taken and not settled, a transaction open, or between two).
      await Promise.all(
        [0, 1].map(async (k) => {
          await outcomes(first[k]!, 10 + k * 20 + round * 5);
          first[k]!.child.kill('SIGKILL');
        }),
      );
      const later = Array.from({ length: 3 }, (_, p) =>
        start(state, `r${round}b${p}`, 'claim', round * 1000 + p),
      );
      const results = await Promise.all([...first, ...later, forget].map((r) => r.done));
      // Killed, not ended: part-way through their invitations.
      for (const k of [0, 1]) {
        expect(results[k]!.code, `process ${k}`).toBeNull();
        expect(results[k]!.out.split('\n').length, `process ${k}`).toBeLessThan(IDS);
      }
      const sent = new Map<number, number>();
      const told = new Map<number, Set<string>>();
      const settled = new Set<number>();
      for (const [k, r] of results.entries()) {
        if (k > 1) expect({ code: r.code, err: r.err }, `process ${k}`).toEqual({ code: 0, err: '' });
        for (const line of r.out.split('\n')) {
          const [kind, i] = line.split(' ');
          if (!kind) continue;
          if (kind === 'SENT') sent.set(Number(i), (sent.get(Number(i)) ?? 0) + 1);
          if (kind === 'SENT' && k > 1) settled.add(Number(i));
          else told.set(Number(i), (told.get(Number(i)) ?? new Set()).add(kind));
        }
      }
      const twice = [...sent].filter(([, n]) => n > 1);
      expect(twice).toEqual([]);
      const missing = Array.from({ length: IDS }, (_, i) => i).filter(
        (i) => !sent.has(i) && !told.get(i)?.has('stopped'),
      );
      expect(missing).toEqual([]);
      // And the database agrees with a fresh reader: each invitation recorded at most once, every one the
      // processes that lived settled among them, each seeded one forgotten once.
      const reader = await SentRecord.open(state, destination);
      reader.load();
      for (const i of settled) expect(reader.has(invitationIdentity(`p${i}@x.org`, 'sch-1'))).toBe(true);
      await reader.close();
      const db = storePath(state, destination);
      const rows = recordRows(db);
      const recorded = rows.filter((r) => r.email.startsWith('p')).map((r) => r.email);
      expect(recorded.length).toBe(new Set(recorded).size);
      expect(recorded.length).toBeGreaterThanOrEqual(settled.size);
      expect(
        rows
          .filter((r) => r.forgottenAt !== undefined)
          .map((r) => r.email)
          .sort(),
      ).toEqual(Array.from({ length: 40 }, (_, i) => `f${i}-@x.org`).sort());
      // Only the killed processes' claims are left: every live one settled what it claimed.
      const killed = [first[0]!.child.pid, first[1]!.child.pid];
      expect(claimRows(db).filter((c) => !killed.includes(c.pid))).toEqual([]);
    }, 120_000);
});
