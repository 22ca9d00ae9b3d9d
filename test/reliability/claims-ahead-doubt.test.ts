import { beforeAll, describe, expect, it } from 'vitest';
import { invitationIdentity } from '../../src/invite/store/index.js';
import { destination, inDoubtByC, plainClaim } from '../helpers/claims.js';
import { until } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { bundleDriver, startDriver } from '../helpers/driver.js';

const X = invitationIdentity('p3@x.org', 's1');

let driver: string;
beforeAll(async () => {
  driver = await bundleDriver(
    'resender',
    `
    import { join } from 'node:path';
    import { sendRows } from './src/invite/bulk-runner.ts';
    import { Journal, SentRecord } from './src/invite/store/index.ts';
    import { recordGuard } from './src/invite/store/row-guard.ts';
    import { ApiError } from './src/errors.ts';
    const [state, mode] = process.argv.slice(2);
    const destination = ${JSON.stringify(destination)};
    const path = join(state, 'invites', 'a.csv-0123456789abcdef.jsonl');
    const journal = await Journal.open(path, { journal: 'roster invite send', version: 1, file: '/data/a.csv', destination, sha256: '0'.repeat(64) }, new Date());
    const record = await SentRecord.open(state, destination);
    record.load();
    const rows = Array.from({ length: 6 }, (_, i) => ({ line: i + 2, body: { email: 'p' + i + '@x.org', schoolId: 's1', scopes: ['fillEnrollment'], studentCount: 1, sentByUserId: 'u1' } }));
    await journal.record(rows.map((r) => ({ key: r.body.email + ' s1', line: r.line, state: 'pending', at: new Date().toISOString(), email: r.body.email, schoolId: 's1' })));
    const now = () => new Date();
    const guard = recordGuard(record, { run: { run: path, file: '/data/a.csv' }, resendSent: false, resendInDoubt: true, resending: new Set(), timeoutMs: 30000, now, warn: () => {}, info: () => {} });
    if (mode === 'hang') setInterval(() => {}, 1000);
    const outcome = await sendRows({
      rows, journal, guard, concurrency: 1, signal: new AbortController().signal, resending: new Set(), now, onProgress: () => {},
      send: async (row) => {
        process.stdout.write('SENDING ' + row.body.email + '\\n');
        if (mode === 'hang') return new Promise(() => {});
        if (mode === 'auth') throw new ApiError('auth', 401, 'token rejected');
        if (mode === 'refuse-x' && row.body.email === 'p3@x.org') throw new ApiError('api', 400, 'refused');
        return { message: 'ok' };
      },
    });
    process.stdout.write('STOPPED ' + outcome.stoppedBy?.message + '\\n');
    await record.close();
    await journal.close();
    process.exit(0);`,
  );
});

describe('a --resend-in-doubt run that claimed a row ahead but never sent it', () => {
  it('sanity: X is in doubt for a plain run before the --resend-in-doubt run starts', async () => {
    const state = tempDir();
    await inDoubtByC(state, X);
    expect(await plainClaim(state, X)).toBe('in-doubt');
  });

  it('stopped by an authentication failure on its first row: X stays in doubt for a plain run', async () => {
    const state = tempDir();
    await inDoubtByC(state, X);
    const a = startDriver(driver, [state, 'auth']);
    const done = await a.done;
    expect(done.err).toBe('');
    expect(done.out).toContain('STOPPED token rejected');
    // A never sent X ...
    expect(done.out).not.toContain('SENDING p3@x.org');
    // ... so X is what it was before A: in doubt (C's request may have gone out). Fails: 'claimed'.
    expect(await plainClaim(state, X)).toBe('in-doubt');
  }, 60_000);

  it('killed with kill -9 while its first request hangs: X stays in doubt for a plain run', async () => {
    const state = tempDir();
    await inDoubtByC(state, X);
    const a = startDriver(driver, [state, 'hang']);
    let out = '';
    a.child.stdout.on('data', (d) => {
      out += d;
    });
    await until(() => out.includes('SENDING p0@x.org'));
    a.child.kill('SIGKILL');
    await a.done;
    expect(out).not.toContain('SENDING p3@x.org');
    // Fails: 'claimed' (A's journal shows X pending, so A's dead claim is read as "never left").
    expect(await plainClaim(state, X)).toBe('in-doubt');
  }, 60_000);

  it.each([
    ['refused (certainly not sent by it): X is in doubt again', 'refuse-x', 'in-doubt'],
    ['confirmed: X is sent, and a plain run skips it as sent', 'ok', 'sent'],
  ])(
    'reaching the row, its request %s',
    async (_, mode, plain) => {
      const state = tempDir();
      await inDoubtByC(state, X);
      const done = await startDriver(driver, [state, mode]).done;
      expect(done.err).toBe('');
      expect(done.out).toContain('SENDING p3@x.org');
      expect(await plainClaim(state, X)).toBe(plain);
    },
    60_000,
  );
});
