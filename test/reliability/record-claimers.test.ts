// Real processes claiming and settling the same invitations at once through one record (as overlapping bulk
// runs do), two killed with kill -9 mid-way, a `forget` appending meanwhile: with a run's own entries passed
// over rather than read back, no process may miss what another appended (nobody sent twice, nobody lost).
import { beforeAll, describe, expect, it } from 'vitest';
import { invitationIdentity, SentRecord } from '../../src/invite/store/index.js';
import { tempDir } from '../helpers/context.js';
import { bundleDriver, startDriver } from '../helpers/driver.js';

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

describe("roster's record under concurrent claimers, kills and a forget", () => {
  for (const round of [1, 2, 3])
    it(`round ${round}: every invitation sent at most once, and each sent or in doubt`, async () => {
      const state = tempDir();
      // Seed forgettable entries, so forget appends lines while the claimers run.
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
      // Kill two of them part-way.
      await new Promise((r) => setTimeout(r, 150 + round * 50));
      first[0]!.child.kill('SIGKILL');
      await new Promise((r) => setTimeout(r, 30));
      first[1]!.child.kill('SIGKILL');
      const later = Array.from({ length: 3 }, (_, p) =>
        start(state, `r${round}b${p}`, 'claim', round * 1000 + p),
      );
      const results = await Promise.all([...first, ...later, forget].map((r) => r.done));
      const sent = new Map<number, number>();
      const told = new Map<number, Set<string>>();
      const settled = new Set<number>();
      for (const [k, r] of results.entries()) {
        if (k > 1) expect(r.err, `process ${k}`).toBe('');
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
      // And the file agrees with a fresh reader.
      const reader = await SentRecord.open(state, destination);
      reader.load();
      for (const i of settled) expect(reader.has(invitationIdentity(`p${i}@x.org`, 'sch-1'))).toBe(true);
      await reader.close();
    }, 120_000);
});
