// Files and folders planted by someone else, as an attacker on a shared machine would plant them: a symbolic
// or hard link at a name roster writes, a 0666 file of another user's at an output name, a state folder of
// another user's holding a database seeded with "sent" rows, a database (or a -wal or -shm beside it) that is
// a link, another user's, or writable by others, a config or cache folder anyone can write to, an export
// folder anyone can write to. Real processes, real folders; files of `nobody` need root (CI).
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { INVITATIONS_PATH } from '../../src/api/enrollment.js';
import { invitationIdentity, storePath } from '../../src/invite/store/index.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { asRoot, expectOwnPrivate, expectUntouched, ME, NOBODY, victim } from '../helpers/planted.js';
import { demoEnv } from '../helpers/sandbox.js';
import { recordRows, storeOf, storeWrite } from '../helpers/store.js';

let sandbox: Sandbox;
let home: string;
beforeAll(async () => {
  sandbox = await startSandbox({ seed: 7, oneroster: { students: 40 } });
});
afterAll(() => sandbox.close());
beforeEach(() => {
  home = tempDir();
  sandbox.requests.length = 0;
  sandbox.outbox.length = 0;
});

const roster = (args: string[], env: Record<string, string> = {}) =>
  runCli(args, home, { env: demoEnv(sandbox, 'demo-allowed', env), timeoutMs: 60_000 });
const oneLine = (stderr: string) => {
  const lines = stderr.trimEnd().split('\n');
  expect(lines, stderr).toHaveLength(1);
  return lines[0] ?? '';
};

/** A file outside every folder roster uses, that a planted link points at: it must never change. */
/** Every entry of the folder is a regular file of the user's, 0600, with one link. */
function allOwnPrivate(dir: string): void {
  for (const name of readdirSync(dir)) expectOwnPrivate(join(dir, name));
}

describe('roster roster export: never writes through a planted file', () => {
  it('links planted at <file>.partial and at the ZIP’s: the files they point at are untouched, every file is roster’s own', async () => {
    const out = join(tempDir(), 'out');
    mkdirSync(out, { mode: 0o700 });
    const targets = [victim(), victim(), victim()];
    symlinkSync(targets[0] ?? '', join(out, 'users.csv.partial'));
    symlinkSync(targets[1] ?? '', join(out, 'oneroster-1.1.zip.partial'));
    // A hard link: O_NOFOLLOW alone would write through it.
    const sameDisk = join(out, '..', 'victim-hard.txt');
    writeFileSync(sameDisk, 'the victim\n', { mode: 0o644 });
    linkSync(sameDisk, join(out, 'enrollments.csv.partial'));

    const result = await roster(['roster', 'export', '--out', out, '--zip']);
    expect(result.code, result.stderr).toBe(0);
    for (const target of [...targets, sameDisk]) expectUntouched(target);
    allOwnPrivate(out);
    expect(readFileSync(join(out, 'users.csv'), 'utf8')).toMatch(/^sourcedId,/);
  });

  it.skipIf(!asRoot)(
    'a 0666 file of another user at <file>.partial: the export ends 0600 and the user’s; their copy never gets a row',
    async () => {
      const out = join(tempDir(), 'out');
      mkdirSync(out, { mode: 0o700 });
      const planted = join(out, 'users.csv.partial');
      writeFileSync(planted, 'planted\n');
      chmodSync(planted, 0o666);
      chownSync(planted, NOBODY, NOBODY);
      // The other user keeps a second link to read whatever lands in "their" file.
      const theirs = join(out, '..', 'their-copy');
      linkSync(planted, theirs);

      const result = await roster(['roster', 'export', '--out', out]);
      expect(result.code, result.stderr).toBe(0);
      expect(readFileSync(theirs, 'utf8')).toBe('planted\n');
      allOwnPrivate(out);
    },
  );

  it.skipIf(!asRoot)(
    'a state file and "complete" files planted by another user are not resumed: refused, nothing kept',
    async () => {
      const out = join(tempDir(), 'out');
      mkdirSync(out, { mode: 0o1777 }); // a shared folder: anyone may add files, only their own
      chmodSync(out, 0o1777);
      expect((await roster(['roster', 'export', '--out', out])).code).toBe(0);
      // Another user's version of an unfinished export: their users.csv, and a state that calls it complete.
      const statePath = join(out, '.roster-export.json');
      const state = JSON.parse(readFileSync(statePath, 'utf8'));
      delete state.finishedAt;
      for (const name of readdirSync(out)) rmSync(join(out, name));
      writeFileSync(statePath, JSON.stringify(state), { mode: 0o644 });
      writeFileSync(join(out, 'users.csv'), 'sourcedId,planted\n', { mode: 0o644 });
      for (const name of readdirSync(out)) chownSync(join(out, name), NOBODY, NOBODY);
      sandbox.requests.length = 0;

      const result = await roster(['roster', 'export', '--out', out]);
      expect(result.code).toBe(1);
      expect(oneLine(result.stderr)).toBe(
        `Error: Cannot read ${statePath}: it belongs to another user (uid ${NOBODY}), so roster will not trust it. Move it aside (another user may have planted it) and run the command again.`,
      );
      expect(readFileSync(join(out, 'users.csv'), 'utf8')).toBe('sourcedId,planted\n');
      expect(sandbox.requests.filter((r) => r.path.endsWith('/users'))).toHaveLength(0);
      // --force starts afresh: their files are replaced by the user's own.
      const forced = await roster(['roster', 'export', '--out', out, '--force']);
      expect(forced.code, forced.stderr).toBe(0);
      expect(readFileSync(join(out, 'users.csv'), 'utf8')).toMatch(/^sourcedId,status,/);
      allOwnPrivate(out);
    },
  );

  it('an --out folder anyone can write to (no sticky bit) is refused before anything is written', async () => {
    const out = join(tempDir(), 'shared');
    mkdirSync(out);
    chmodSync(out, 0o777);
    const result = await roster(['roster', 'export', '--out', out]);
    expect(result.code).toBe(1);
    expect(oneLine(result.stderr)).toBe(
      `Error: ${out}: other users can write to it (mode 0777), so they could replace the exported files. Run: chmod o-w ${out}, or choose a folder of your own.`,
    );
    expect(readdirSync(out)).toEqual([]);
    expect(
      sandbox.requests.filter((r) => r.path.includes('/ims/oneroster/v1p1/') && !r.path.endsWith('/token')),
    ).toEqual([]);
  });

  it('a sticky shared folder (like /tmp) is used; a group-writable one with a warning', async () => {
    const sticky = join(tempDir(), 'sticky');
    mkdirSync(sticky);
    chmodSync(sticky, 0o1777);
    const first = await roster(['roster', 'export', '--out', sticky]);
    expect(first.code, first.stderr).toBe(0);
    allOwnPrivate(sticky);
    const group = join(tempDir(), 'team');
    mkdirSync(group);
    chmodSync(group, 0o770);
    const second = await roster(['roster', 'export', '--out', group]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain(
      `Warning: ${group} can be written to by its group (gid ${statSync(group).gid}): its members could replace the exported files. Run chmod g-w ${group} to prevent it.`,
    );
  });

  it.skipIf(!asRoot)('an --out folder of another user’s is refused', async () => {
    const out = join(tempDir(), 'theirs');
    mkdirSync(out, { mode: 0o755 });
    chownSync(out, NOBODY, NOBODY);
    const result = await roster(['roster', 'export', '--out', out]);
    expect(result.code).toBe(1);
    expect(oneLine(result.stderr)).toBe(
      `Error: ${out}: it belongs to another user (uid ${NOBODY}), so they could replace the exported files. Choose a folder of your own.`,
    );
    expect(readdirSync(out)).toEqual([]);
  });
});

describe('one rule for every file roster writes where the user says: a folder others can write to is refused', () => {
  /** A folder anyone can write to, without the sticky bit: they could replace a file after roster wrote it. */
  const shared = () => {
    const dir = join(tempDir(), 'shared');
    mkdirSync(dir);
    chmodSync(dir, 0o777);
    return dir;
  };
  const requestsBeyondToken = () => sandbox.requests.filter((r) => !r.path.endsWith('/token'));

  it.each([
    ['--out', 'plan.csv'],
    ['--uncovered-csv', 'uncovered.csv'],
  ])('invite plan %s into it: refused before any request, exit 1, nothing written', async (flag, name) => {
    const dir = shared();
    const file = join(dir, name);
    const result = await roster(['invite', 'plan', '--school', 'org-sch-1', flag, file]);
    expect(result.code).toBe(1);
    expect(oneLine(result.stderr)).toBe(
      `Error: ${dir}: other users can write to it (mode 0777), so they could replace ${name} after roster wrote it. Run: chmod o-w ${dir}, or choose a folder of your own.`,
    );
    expect(readdirSync(dir)).toEqual([]);
    expect(requestsBeyondToken()).toEqual([]);
  });

  it.each([
    ['--html', 'audit.html', 'audit.html after roster wrote it'],
    ['--csv-dir', 'to-fix', 'the CSV files'],
  ])(
    'roster audit %s into it: refused before any request, exit 1, nothing written',
    async (flag, name, what) => {
      const dir = shared();
      const target = flag === '--html' ? join(dir, name) : dir;
      const result = await roster(['roster', 'audit', flag, target]);
      expect(result.code).toBe(1);
      expect(oneLine(result.stderr)).toBe(
        `Error: ${dir}: other users can write to it (mode 0777), so they could replace ${what}. Run: chmod o-w ${dir}, or choose a folder of your own.`,
      );
      expect(readdirSync(dir)).toEqual([]);
      expect(requestsBeyondToken()).toEqual([]);
    },
  );

  it('invite send --failed-csv into it: refused before anything is sent, exit 1, nothing written', async () => {
    const csv = join(tempDir(), 'invites.csv');
    writeFileSync(csv, 'email,schoolId,studentCount\nparent@example.org,org-sch-1,1\n');
    const dir = shared();
    const result = await roster([
      'invite',
      'send',
      '--sent-by-user-id',
      'usr-1',
      '--file',
      csv,
      '--yes',
      '--failed-csv',
      join(dir, 'failed.csv'),
    ]);
    expect(result.code).toBe(1);
    expect(oneLine(result.stderr)).toBe(
      `Error: ${dir}: other users can write to it (mode 0777), so they could replace failed.csv after roster wrote it. Run: chmod o-w ${dir}, or choose a folder of your own.`,
    );
    expect(readdirSync(dir)).toEqual([]);
    expect(sandbox.requests.filter((r) => r.method === 'POST' && r.path.endsWith(INVITATIONS_PATH))).toEqual(
      [],
    );
    expect(sandbox.outbox).toEqual([]);
  });

  it('roster changes --csv --out into it: refused before any request, exit 1, nothing written', async () => {
    const dir = shared();
    const result = await roster(['roster', 'changes', 'users', '--since', '1h', '--csv', '--out', dir]);
    expect(result.code).toBe(1);
    expect(oneLine(result.stderr)).toBe(
      `Error: ${dir}: other users can write to it (mode 0777), so they could replace the change files. Run: chmod o-w ${dir}, or choose a folder of your own.`,
    );
    expect(readdirSync(dir)).toEqual([]);
    expect(requestsBeyondToken()).toEqual([]);
  });

  it('a sticky shared folder (like /tmp) is used for the plan, as for an export', async () => {
    const dir = join(tempDir(), 'sticky');
    mkdirSync(dir);
    chmodSync(dir, 0o1777);
    const result = await roster(['invite', 'plan', '--school', 'org-sch-1', '--out', join(dir, 'plan.csv')]);
    expect(result.code, result.stderr).toBe(0);
    allOwnPrivate(dir);
    expect(readFileSync(join(dir, 'plan.csv'), 'utf8')).toMatch(/^\ufeffemail,/);
  });

  it.skipIf(!asRoot)('a folder of another user’s is refused for the plan', async () => {
    const dir = join(tempDir(), 'theirs');
    mkdirSync(dir, { mode: 0o755 });
    chownSync(dir, NOBODY, NOBODY);
    const result = await roster(['invite', 'plan', '--school', 'org-sch-1', '--out', join(dir, 'plan.csv')]);
    expect(result.code).toBe(1);
    expect(oneLine(result.stderr)).toBe(
      `Error: ${dir}: it belongs to another user (uid ${NOBODY}), so they could replace plan.csv after roster wrote it. Choose a folder of your own.`,
    );
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('invite send --file: a database or state folder planted by another user is not trusted', () => {
  const posts = () =>
    sandbox.requests.filter((r) => r.method === 'POST' && r.path.endsWith(INVITATIONS_PATH));
  const rows = ['planted-1@example.org', 'planted-2@example.org'];
  const stateDir = () => join(home, '.local', 'state', 'roster');
  const destination = () => ({ baseUrl: sandbox.baseUrl, clientId: 'demo-allowed' });
  const send = (csv: string, ...args: string[]) =>
    roster(['invite', 'send', '--sent-by-user-id', 'usr-1', '--file', csv, ...args]);
  function csvFile(): string {
    const path = join(tempDir(), 'invites.csv');
    writeFileSync(path, `email,schoolId,studentCount\n${rows.map((e) => `${e},org-sch-1,1`).join('\n')}\n`);
    return path;
  }
  /**
   * The destination's database, as another user would seed it so that every row looks sent already (and
   * is silently skipped): a real one (made by a run of another file), with the rows added to its record.
   */
  async function seedStore(): Promise<string> {
    const other = join(tempDir(), 'other.csv');
    writeFileSync(other, 'email,schoolId,studentCount\nseed@example.org,org-sch-1,1\n');
    const made = await send(other);
    expect(made.code, made.stderr).toBe(0);
    const db = storePath(stateDir(), destination());
    expect(storeOf(stateDir())).toBe(db);
    for (const email of rows)
      storeWrite(
        db,
        'INSERT INTO record (identity, email, school_id, sent_at) VALUES (?, ?, ?, ?)',
        invitationIdentity(email, 'org-sch-1'),
        email,
        'org-sch-1',
        new Date().toISOString(),
      );
    expect(recordRows(db).map((r) => r.email)).toEqual(['seed@example.org', ...rows]);
    sandbox.requests.length = 0;
    sandbox.outbox.length = 0;
    return db;
  }
  /** Refused, a dry run and a send alike, with `message` alone, and nothing sent. */
  async function refusedWith(csv: string, message: string | RegExp): Promise<void> {
    for (const args of [['--dry-run'], []]) {
      const result = await send(csv, ...args);
      expect({ args, code: result.code }).toEqual({ args, code: 1 });
      if (typeof message === 'string') expect(oneLine(result.stderr)).toBe(message);
      else expect(oneLine(result.stderr)).toMatch(message);
    }
    expect(posts()).toEqual([]);
    expect(sandbox.outbox).toEqual([]);
  }

  it.skipIf(!asRoot)(
    'a state folder of another user’s with "sent" rows: refused, nothing suppressed, nothing sent',
    async () => {
      const csv = csvFile();
      const db = await seedStore();
      execFileSync('chown', ['-R', `${NOBODY}:${NOBODY}`, stateDir()]);
      await refusedWith(
        csv,
        `Error: ${stateDir()}: it belongs to another user (uid ${NOBODY}), so roster will not trust files in it. If it is yours, run: chown -R ${ME} ${stateDir()} && chmod 700 ${stateDir()}; otherwise move it aside.`,
      );
      expect(statSync(db).uid).toBe(NOBODY);
    },
  );

  it.skipIf(!asRoot)('a sent folder of another user’s: refused, nothing sent', async () => {
    const csv = csvFile();
    await seedStore();
    const sent = join(stateDir(), 'sent');
    execFileSync('chown', ['-R', `${NOBODY}:${NOBODY}`, sent]);
    await refusedWith(csv, new RegExp(`^Error: ${sent}: it belongs to another user \\(uid ${NOBODY}\\)`));
  });

  it('an invites folder anyone can write to: refused with the chmod', async () => {
    const csv = csvFile();
    const invites = join(stateDir(), 'invites');
    mkdirSync(invites, { recursive: true, mode: 0o700 });
    chmodSync(invites, 0o777);
    const result = await send(csv);
    expect(result.code).toBe(1);
    expect(oneLine(result.stderr)).toBe(
      `Error: ${invites}: other users can write to it (mode 0777), so roster will not trust files in it. Run: chmod 700 ${invites}.`,
    );
    expect(posts()).toEqual([]);
  });

  it('a database that is a link to another file: refused, the file it points at untouched, nothing sent', async () => {
    const csv = csvFile();
    const db = storePath(stateDir(), destination());
    mkdirSync(dirname(db), { recursive: true, mode: 0o700 });
    const target = victim();
    symlinkSync(target, db);
    await refusedWith(
      csv,
      /^Error: Cannot open .*\.db: it is a symbolic link, which roster does not follow here/,
    );
    expectUntouched(target);
    // Nothing made beside it (no -wal or -shm of a database opened through the link).
    expect(readdirSync(dirname(db))).toEqual([basename(db)]);
  });

  it('a database others can write to: refused with the chmod, nothing suppressed, nothing sent', async () => {
    const csv = csvFile();
    const db = await seedStore();
    chmodSync(db, 0o666);
    await refusedWith(
      csv,
      `Error: Cannot open ${db}: other users can write to it (mode 0666), so roster will not trust it. Run: chmod 600 ${db}.`,
    );
    expect(statSync(db).mode & 0o777).toBe(0o666);
  });

  it.skipIf(!asRoot)('a database of another user’s: refused, nothing suppressed, nothing sent', async () => {
    const csv = csvFile();
    const db = await seedStore();
    chownSync(db, NOBODY, NOBODY);
    await refusedWith(
      csv,
      `Error: Cannot open ${db}: it belongs to another user (uid ${NOBODY}), so roster will not trust it. Move it aside (another user may have planted it) and run the command again.`,
    );
    expect(statSync(db).uid).toBe(NOBODY);
  });

  it.each(['-wal', '-shm'])(
    'a %s planted beside the database (a link, a file others can write to or of another user): refused, nothing sent',
    async (suffix) => {
      const csv = csvFile();
      const db = await seedStore();
      const beside = `${db}${suffix}`;
      // The test's own read-only look at the database (recordRows) left an empty -wal and a -shm: every
      // write was in the database file once its writer closed.
      for (const leftover of [`${db}-wal`, `${db}-shm`]) rmSync(leftover, { force: true });
      expect(readdirSync(dirname(db))).toEqual([basename(db)]);
      // Its pages would be read as the database's latest (a -wal), or its index of them (a -shm).
      const target = victim();
      symlinkSync(target, beside);
      await refusedWith(
        csv,
        new RegExp(
          `^Error: Cannot open ${beside}: it is a symbolic link, which roster does not follow here`.replaceAll(
            '.',
            '\\.',
          ),
        ),
      );
      expectUntouched(target);
      rmSync(beside);
      writeFileSync(beside, '', { mode: 0o600 });
      chmodSync(beside, 0o666);
      await refusedWith(
        csv,
        `Error: Cannot open ${beside}: other users can write to it (mode 0666), so roster will not trust it. Run: chmod 600 ${beside}.`,
      );
      if (asRoot) {
        chmodSync(beside, 0o600);
        chownSync(beside, NOBODY, NOBODY);
        await refusedWith(
          csv,
          `Error: Cannot open ${beside}: it belongs to another user (uid ${NOBODY}), so roster will not trust it. Move it aside (another user may have planted it) and run the command again.`,
        );
      }
      expect(recordRows(db).map((r) => r.email)).toEqual(['seed@example.org', ...rows]);
    },
  );
});

describe('invite send --file: the failed-rows CSV', () => {
  it('a link planted at --failed-csv is replaced by the file; what it pointed at is untouched', async () => {
    const csv = join(tempDir(), 'invites.csv');
    writeFileSync(csv, 'email,schoolId,studentCount\nfailing@example.org,org-sch-1,1\n');
    sandbox.injectFault({
      match: (req) => req.method === 'POST' && req.path.endsWith(INVITATIONS_PATH),
      status: 400,
      body: { message: 'Refused on purpose' },
    });
    const target = victim();
    const failed = join(tempDir(), 'failed.csv');
    symlinkSync(target, failed);
    try {
      const result = await roster([
        'invite',
        'send',
        '--sent-by-user-id',
        'usr-1',
        '--file',
        csv,
        '--failed-csv',
        failed,
      ]);
      expect(result.code, result.stderr).toBe(5);
    } finally {
      sandbox.clearFaults();
    }
    expectUntouched(target);
    expect(lstatSync(failed).isFile()).toBe(true);
    expect(statSync(failed).mode & 0o777).toBe(0o600);
    expect(readFileSync(failed, 'utf8')).toContain('failing@example.org');
  });
});

describe('config and cache folders others can write to are refused', () => {
  it('a 0777 config folder: login and every command that reads it are refused, with the chmod', async () => {
    const config = join(home, '.config', 'roster');
    mkdirSync(config, { recursive: true });
    chmodSync(config, 0o777);
    for (const args of [['profiles'], ['token'], ['attendance', 'check']]) {
      const result = await roster(args);
      expect({ args, code: result.code }).toEqual({ args, code: 1 });
      expect(oneLine(result.stderr)).toBe(
        `Error: ${config}: other users can write to it (mode 0777), so roster will not trust files in it. Run: chmod 700 ${config}.`,
      );
    }
    expect(sandbox.requests).toEqual([]);
  });

  it('a cache folder its group can write to: refused (a planted token would be used)', async () => {
    const cache = join(home, '.cache', 'roster');
    mkdirSync(join(cache, 'tokens'), { recursive: true, mode: 0o700 });
    chmodSync(cache, 0o770);
    const result = await roster(['token']);
    expect(result.code).toBe(1);
    expect(oneLine(result.stderr)).toBe(
      `Error: ${cache}: its group can write to it (mode 0770), so roster will not trust files in it. Run: chmod 700 ${cache}.`,
    );
  });

  it.skipIf(!asRoot)('a config folder of another user’s is refused', async () => {
    const config = join(home, '.config', 'roster');
    mkdirSync(config, { recursive: true, mode: 0o700 });
    writeFileSync(
      join(config, 'config.json'),
      JSON.stringify({ profiles: { default: { baseUrl: 'https://evil.example/v1' } } }),
    );
    execFileSync('chown', ['-R', `${NOBODY}:${NOBODY}`, config]);
    const result = await roster(['profiles']);
    expect(result.code).toBe(1);
    expect(oneLine(result.stderr)).toMatch(
      new RegExp(`^Error: ${config}: it belongs to another user \\(uid ${NOBODY}\\)`),
    );
  });
});
