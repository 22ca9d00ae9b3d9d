// A row the file's own earlier run left in doubt (killed mid-request: its claim still `sending`, an in-flight
// entry in the journal), sent again with --resend-in-doubt: the re-run may claim it ahead (its own claim, so
// "nothing stands in the way") and then release it unsent (interrupted, a worker waiting, the record replaced).
// The release settles the claim `done`: every other run now finds the row free and e-mails the family, though
// the first run's request may have reached the server. The row must stay in doubt for other runs.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { expect, it } from 'vitest';
import { invitationKey } from '../../src/invite/invitation.js';
import { invitationIdentity, SentRecord, sentRecordPath } from '../../src/invite/store/index.js';
import { recordGuard } from '../../src/invite/store/row-guard.js';
import { tempDir } from '../helpers/temp.js';

const destination = { baseUrl: 'http://127.0.0.1:4010/v1', clientId: 'demo-allowed' };
const began = '2026-01-01T09:59:00.000Z';
const email = 'family@example.org';
const deadPid = () => spawnSync(process.execPath, ['-e', '0']).pid as number;

it("releasing a row claimed ahead keeps the file's own earlier doubt for other runs", async () => {
  const state = tempDir();
  const journal = join(state, 'invites', 'mine.csv-0123456789abcdef.jsonl');
  mkdirSync(dirname(journal), { recursive: true, mode: 0o700 });
  const entry = (s: string) =>
    JSON.stringify({
      key: invitationKey(email, 'org-sch-1'),
      line: 2,
      state: s,
      at: began,
      email,
      schoolId: 'org-sch-1',
    });
  const header = {
    journal: 'roster invite send',
    version: 1,
    file: '/data/mine.csv',
    destination,
    sha256: '0'.repeat(64),
    createdAt: began,
  };
  // The first run was killed with the request out.
  writeFileSync(journal, `${[JSON.stringify(header), entry('pending'), entry('in-flight')].join('\n')}\n`, {
    mode: 0o600,
  });
  const record = sentRecordPath(state, destination);
  mkdirSync(dirname(record), { recursive: true, mode: 0o700 });
  const id = invitationIdentity(email, 'org-sch-1');
  const dead = {
    id,
    run: journal,
    file: '/data/mine.csv',
    began,
    state: 'sending',
    at: began,
    until: '2099-01-01T00:00:00.000Z',
    pid: deadPid(),
  };
  writeFileSync(`${record}.claims`, `${JSON.stringify(dead)}\n`, { mode: 0o600 });

  // The file's re-run with --resend-in-doubt claims the row ahead, then lets it go before its request.
  const mine = await SentRecord.open(state, destination);
  const guard = recordGuard(mine, {
    run: { run: journal, file: '/data/mine.csv', began },
    resendSent: false,
    resendInDoubt: true,
    resending: new Set([invitationKey(email, 'org-sch-1')]),
    timeoutMs: 1000,
    now: () => new Date(),
    warn: () => {},
    info: () => {},
  });
  const row = { line: 2, body: { email, schoolId: 'org-sch-1' } } as never;
  const verdict = await guard.claim(row, new AbortController().signal, true);
  if (verdict === 'go') await guard.settle(row, 'unsent');
  await guard.flush();
  await mine.close();

  // Another file's run, without any --resend-*: the first run's request may have gone out.
  const other = await SentRecord.open(state, destination);
  const outcome = await other.claim(
    id,
    { run: join(state, 'invites', 'other.jsonl'), began: 'x' },
    {
      ignoreSent: false,
      ignoreDoubt: false,
      signal: AbortSignal.timeout(500),
      holdMs: 60_000,
    },
  );
  await other.close();
  expect(outcome.kind).not.toBe('claimed');
});
