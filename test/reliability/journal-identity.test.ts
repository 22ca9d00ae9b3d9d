import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { type CliResult, startCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { demoEnv } from '../helpers/sandbox.js';
import { journalRows, runRows, storeFiles } from '../helpers/store.js';

let sandbox: Sandbox;
let state: string;
let port: string;
beforeAll(async () => {
  sandbox = await startSandbox();
  port = new URL(sandbox.baseUrl).port;
});
afterAll(() => sandbox.close());
beforeEach(() => {
  state = tempDir();
  sandbox.clearFaults();
  sandbox.setOptions({ latencyMs: 0 });
});

/**
 * `<root>/real/invites.csv` with `rows` rows, a folder `<root>/real/sub`, and `<root>/link` → `<root>/real`.
 */
function layout(tag: string, rows: number) {
  const root = tempDir();
  const real = join(root, 'real');
  mkdirSync(join(real, 'sub'), { recursive: true });
  symlinkSync(real, join(root, 'link'));
  const emails = Array.from({ length: rows }, (_, i) => `${tag}-${i}@example.org`);
  writeFileSync(
    join(real, 'invites.csv'),
    `email,schoolId,studentCount\n${emails.map((e) => `${e},org-sch-1,1`).join('\n')}\n`,
  );
  return { root, real, emails };
}

/** A run of `invite send --file` sharing the test's state folder (so its journals), with its own HOME. */
function send(file: string, baseUrl: string, options: { cwd?: string; extra?: string[] } = {}) {
  return startCli(
    ['invite', 'send', '--file', file, '--sent-by-user-id', 'usr-1', ...(options.extra ?? [])],
    tempDir(),
    {
      env: demoEnv(sandbox, 'demo-allowed', { XDG_STATE_HOME: state, ROSTER_BASE_URL: baseUrl }),
      timeoutMs: 60_000,
      ...(options.cwd !== undefined && { cwd: options.cwd }),
    },
  );
}

const emailsTo = (address: string) => sandbox.outbox.filter((m) => m.to === address).length;
const journalOf = (result: CliResult) => /Journal: (\S+\.db)/.exec(result.stderr)?.[1];
const invitationPosts = () =>
  sandbox.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/invitations')).length;

/** Refuses (400: never sent, so retried by the next run) every row past the first `allowed`. */
function allowOnly(emails: string[], allowed: number) {
  sandbox.clearFaults();
  const refused = new Set(emails.slice(allowed));
  sandbox.injectFault({
    match: (req) =>
      req.method === 'POST' &&
      req.path.endsWith('/invitations') &&
      refused.has(JSON.parse(req.body.toString()).email),
    status: 400,
    body: { message: 'Not yet (test)' },
    times: 1_000,
  });
}

describe('one file, one journal, whatever its spelling', () => {
  it('symlinked folder, relative path, `..`, localhost / 127.0.0.1 / [::1] / trailing slash / letter case: one journal, nobody e-mailed twice', async () => {
    const { root, real, emails } = layout('alias', 12);
    const base = `http://127.0.0.1:${port}/v1`;
    const spellings: { file: string; baseUrl: string; cwd?: string }[] = [
      { file: join(real, 'invites.csv'), baseUrl: base },
      { file: join(root, 'link', 'invites.csv'), baseUrl: `http://localhost:${port}/v1` },
      { file: 'invites.csv', cwd: real, baseUrl: `${base}/` },
      { file: join(real, 'sub', '..', 'invites.csv'), baseUrl: `HTTP://LOCALHOST:${port}/v1//` },
      {
        file: join('..', 'invites.csv'),
        cwd: join(root, 'link', 'sub'),
        baseUrl: `http://LocalHost:${port}/v1/`,
      },
    ];
    const journals = new Set<string>();
    // Run k may send rows up to 2(k+1); the rest are refused and retried by the next spelling.
    for (const [k, spelling] of spellings.entries()) {
      const allowed = k === spellings.length - 1 ? emails.length : 2 * (k + 1);
      allowOnly(emails, allowed);
      const before = invitationPosts();
      const result = await send(spelling.file, spelling.baseUrl, spelling).done;
      const label = `${spelling.file} at ${spelling.baseUrl}`;
      expect(result.code, `${label}\n${result.stderr}`).toBe(allowed === emails.length ? 0 : 5);
      journals.add(journalOf(result) ?? `no journal named by ${label}`);
      // Rows sent by earlier spellings are skipped, not sent again.
      if (k > 0) expect(result.stderr, label).toContain(`Skipped ${2 * k} already sent by an earlier run.`);
      expect(invitationPosts() - before, label).toBe(emails.length - 2 * k);
      expect(emails.slice(0, allowed).map(emailsTo), label).toEqual(emails.slice(0, allowed).map(() => 1));
    }
    expect([...journals]).toHaveLength(1);
    // One database for the destination, holding one run of the file (by its real path) and its 12 rows.
    const db = [...journals][0] as string;
    expect(storeFiles(join(state, 'roster'))).toEqual([db]);
    expect(runRows(db)).toEqual([{ run: realpathSync(join(real, 'invites.csv')), pid: null }]);
    expect(journalRows(db).map((r) => `${r.line} ${r.email} ${r.state}`)).toEqual(
      emails.map((e, i) => `${i + 2} ${e} sent`),
    );

    // IPv6 loopback and the path in another letter case are the same journal too; the sandbox listens on
    // 127.0.0.1 and serves /v1 only, so a dry run (it reads the journal, sends nothing).
    const before = invitationPosts();
    const dry = await send(join(root, 'link', 'invites.csv'), `http://[::1]:${port}/V1/`, {
      extra: ['--dry-run'],
    }).done;
    expect(dry.code).toBe(0);
    expect(dry.stderr).toContain(`Dry run: would send 0 of 12 invitations (12 already sent)`);
    expect(journalOf(dry)).toBe([...journals][0]);
    expect(invitationPosts()).toBe(before);
    expect(emails.map(emailsTo)).toEqual(emails.map(() => 1));
  }, 120_000);

  it('spellings run at once contend for one lock: every address e-mailed exactly once', async () => {
    const { root, real, emails } = layout('together', 12);
    sandbox.setOptions({ latencyMs: 30 });
    const runs = [
      send(join(real, 'invites.csv'), `http://127.0.0.1:${port}/v1`),
      send(join(root, 'link', 'invites.csv'), `http://localhost:${port}/v1`),
      send('invites.csv', `http://127.0.0.1:${port}/v1/`, { cwd: real }),
      send(join(real, 'sub', '..', 'invites.csv'), `HTTP://LOCALHOST:${port}/v1`),
      send(join(root, 'link', 'sub', '..', 'invites.csv'), `http://LocalHost:${port}/v1/`),
      send(join('..', 'invites.csv'), `http://localhost:${port}/v1/`, { cwd: join(root, 'link', 'sub') }),
    ];
    const results = await Promise.all(runs.map((r) => r.done));
    expect(emails.map(emailsTo)).toEqual(emails.map(() => 1));
    for (const result of results)
      if (result.code !== 0)
        expect({ code: result.code, stderr: result.stderr }).toEqual({
          code: 1,
          stderr: expect.stringMatching(
            /Another roster run \(pid \d+\) is sending invitations from this file\./,
          ),
        });
    expect(results.filter((r) => r.code === 0).length).toBeGreaterThanOrEqual(1);
    // They met at one run of one database (its lock), let go once every run ended.
    const dbs = storeFiles(join(state, 'roster'));
    expect(dbs).toHaveLength(1);
    expect(runRows(dbs[0] as string)).toEqual([{ run: realpathSync(join(real, 'invites.csv')), pid: null }]);
  }, 120_000);
});
