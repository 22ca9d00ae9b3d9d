// A file's send as a person reads it, on a real pseudo-terminal: the dry run shows the confirmation's
// preview (a table of rows with schools by name, "… and N more", the totals by school) instead of raw
// JSON; a pipe and --json still get the requests, one per line. Schools are named where the admin gave
// names: the confirmation, the send summary and the `invite list` table; the ids stay in --json.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/context.js';
import { startPty } from '../helpers/pty.js';
import { demoEnv, useSandbox } from '../helpers/sandbox.js';

const seen = (screen: string) => screen.replace(/\u001b\[[\d;?]*[A-Za-z]/g, '').replace(/\r/g, '');

/** A file of `n` rows: the first at Birch (by name), the rest at Alder (by id), one at Fir Grove org-sch-6. */
function invitesFile(n: number, who = 'family'): string {
  const rows = Array.from({ length: n }, (_, i) => {
    const school = i === 0 ? 'Birch Elementary School' : i === 1 ? 'org-sch-6' : 'org-sch-1';
    return `${who}${i + 1}@example.org,${school},${(i % 2) + 1}`;
  });
  const file = join(tempDir(), 'invites.csv');
  writeFileSync(file, ['email,schoolId,studentCount', ...rows, ''].join('\n'));
  return file;
}

describe('a file send as a person reads it', () => {
  const tests = useSandbox();
  const posts = () =>
    tests.sandbox.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/invitations'));
  const sender = ['--sent-by-user-id', 'adm-001'];

  it('--dry-run on a terminal: the preview, not JSON; nothing sent', async () => {
    const file = invitesFile(14);
    const run = startPty(
      ['invite', 'send', '--file', file, ...sender, '--dry-run'],
      tests.home,
      demoEnv(tests.sandbox),
      {
        columns: 100,
      },
    );
    const result = await run.done;
    expect(result.code).toBe(0);
    const screen = seen(result.stdout);
    expect(screen).not.toContain('{"line"');
    expect(screen).toMatch(
      /line +e-mail +school +students\n2 +family1@example\.org +Birch Elementary School +1\n/,
    );
    // Two schools named Fir Grove School: the name, and which one.
    expect(screen).toMatch(/\n3 +family2@example\.org +Fir Grove School \(org-sch-6\) +2\n/);
    expect(screen).toMatch(/\n11 +family10@example\.org +Alder Elementary School +2\n… and 4 more\n/);
    expect(screen).toMatch(/school +invitations +students\n/);
    expect(screen).toMatch(/\nBirch Elementary School +1 +1\n/);
    expect(screen).toMatch(/\nFir Grove School \(org-sch-6\) +1 +2\n/);
    // Rows 3 to 14: six with one student, six with two.
    expect(screen).toMatch(/\nAlder Elementary School +12 +18\n/);
    expect(screen).toContain('Dry run: would send 14 of 14 invitations; nothing was sent.');
    expect(posts()).toHaveLength(0);
  });

  it('--dry-run in a pipe, or with --json on a terminal: the requests, one JSON object a line', async () => {
    const file = invitesFile(3);
    const piped = await tests.roster(['invite', 'send', '--file', file, ...sender, '--dry-run']);
    expect(piped.code).toBe(0);
    const requests = piped.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(requests.map((r) => [r.line, r.body.schoolId])).toEqual([
      [2, 'org-sch-2'],
      [3, 'org-sch-6'],
      [4, 'org-sch-1'],
    ]);
    const json = await startPty(
      ['invite', 'send', '--file', file, ...sender, '--dry-run', '--json'],
      tests.home,
      demoEnv(tests.sandbox),
    ).done;
    expect(json.code).toBe(0);
    expect(seen(json.stdout)).toContain('{"line":2,"method":"POST"');
    expect(seen(json.stdout)).not.toContain('… and');
    expect(posts()).toHaveLength(0);
  });

  it('the confirmation names the schools and totals them; answering no sends nothing', async () => {
    const file = invitesFile(3);
    const run = startPty(['invite', 'send', '--file', file, ...sender], tests.home, demoEnv(tests.sandbox), {
      columns: 100,
    });
    await run.waitFor('Send 3 invitations?');
    run.type('n\r');
    const result = await run.done;
    expect(result.code).toBe(130);
    const screen = seen(result.stdout);
    expect(screen).toContain(
      'About to e-mail 3 enrollment invitations from ' +
        file +
        ' (they cannot be taken back), sent by user adm-001:',
    );
    expect(screen).toMatch(/\n2 +family1@example\.org +Birch Elementary School +1\n/);
    expect(screen).toMatch(/\nAlder Elementary School +1 +1\n/);
    expect(screen).not.toContain('org-sch-2');
    expect(posts()).toHaveLength(0);
  });

  it("the send summary names a failed row's school; the --json report keeps its id", async () => {
    const file = invitesFile(3);
    tests.sandbox.injectFault({
      match: (req) => req.method === 'POST' && req.body.includes('family1@example.org'),
      status: 400,
      body: { message: 'Refused' },
    });
    const result = await tests.roster(['invite', 'send', '--file', file, ...sender, '--json']);
    expect(result.code).toBe(5);
    expect(result.stderr).toContain('    line 2: family1@example.org (Birch Elementary School): ');
    const report = JSON.parse(result.stdout);
    expect(report.rows[0]).toMatchObject({ line: 2, schoolId: 'org-sch-2', result: 'failed' });
  });

  it("invite plan's preview of several schools names them", async () => {
    const run = startPty(
      ['invite', 'plan', '--school', 'org-sch-1', '--school', 'org-sch-2', '--no-input'],
      tests.home,
      demoEnv(tests.sandbox),
      { columns: 160 },
    );
    const result = await run.done;
    expect(result.code).toBe(0);
    const screen = seen(result.stdout);
    expect(screen).toMatch(/^e-mail +school +students +guardians +children$/m);
    expect(screen).toMatch(/\n\S+@\S+ +(Alder|Birch) Elementary School +\d+ /);
    expect(screen).not.toMatch(/\n\S+@\S+ +org-sch-\d/);
  });

  it('invite list on a terminal shows the school by name; a pipe and --json keep the id', async () => {
    const file = invitesFile(2, 'listed');
    expect((await tests.roster(['invite', 'send', '--file', file, ...sender])).code).toBe(0);
    const shown = await startPty(['invite', 'list'], tests.home, demoEnv(tests.sandbox), { columns: 120 })
      .done;
    expect(shown.code).toBe(0);
    const screen = seen(shown.stdout);
    expect(screen).toMatch(/\nlisted1@example\.org +Birch Elementary School +1 +sent /);
    expect(screen).toMatch(/\nlisted2@example\.org +Fir Grove School \(org-sch-6\) +2 +sent /);
    const piped = await tests.roster(['invite', 'list']);
    expect(piped.stdout).toMatch(/\tlisted1@example\.org\torg-sch-2\t/);
    const json = JSON.parse(
      (await tests.roster(['invite', 'list', '--email', 'listed1@example.org', '--json'])).stdout,
    );
    expect(json.data.map((i: { schoolId: string }) => i.schoolId)).toEqual(['org-sch-2']);
  });
});
