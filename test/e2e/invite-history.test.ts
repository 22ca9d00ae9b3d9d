// `roster invite history`: what roster's own state says was sent, when, by which run, and what is in doubt,
// without asking the server. The built CLI against the sandbox: sends made by real runs, then history read.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GATEWAY_503_TEXT } from '../../src/sandbox/gateway.js';
import { tempDir } from '../helpers/context.js';
import { useSandbox } from '../helpers/sandbox.js';

const fixture = useSandbox();
const { roster } = fixture;
const sender = ['--sent-by-user-id', 'usr-1'];

function csv(name: string, lines: string[]) {
  const file = join(tempDir(), name);
  writeFileSync(file, `email,schoolId\n${lines.join('\n')}\n`);
  return file;
}
/** The pipe's table: its header, then each line's cells. */
const table = (stdout: string) =>
  stdout
    .trimEnd()
    .split('\n')
    .map((l) => l.split('\t'));

describe('roster invite history', () => {
  it('tells what each run sent, and by which run, oldest first, asking the server nothing', async () => {
    // A school by name, as admins write them: the record keeps the id the send resolved.
    const file = csv('families.csv', [
      'one@example.org,Birch Elementary School',
      'two@example.org,org-sch-1',
    ]);
    const sent = await roster(['invite', 'send', '--file', file, ...sender, '--yes']);
    expect(sent.code).toBe(0);
    // Node 22 calls node:sqlite experimental on every load: roster keeps that warning from the admin.
    expect(sent.stderr).not.toMatch(/Warning/);
    const single = ['invite', 'send', '--email', 'Three@Example.org', '--school-id', 'org-sch-3', ...sender];
    expect((await roster([...single, '--yes'])).code).toBe(0);
    fixture.sandbox.requests.length = 0;

    const history = await roster(['invite', 'history']);
    expect(history.code).toBe(0);
    const rows = table(history.stdout);
    expect(rows[0]).toEqual(['WHEN', 'EVENT', 'EMAIL', 'SCHOOL', 'YEAR', 'BY']);
    // The file's two rows went out together, in either order; the single send after them.
    const told = rows.slice(1).map((r) => r.slice(1));
    expect(told.slice(0, 2).sort((a, b) => String(a[1]).localeCompare(String(b[1])))).toEqual([
      ['sent', 'one@example.org', 'org-sch-2', '', 'families.csv'],
      ['sent', 'two@example.org', 'org-sch-1', '', 'families.csv'],
    ]);
    expect(told[2]).toEqual(['sent', 'Three@Example.org', 'org-sch-3', '', 'invite send --email']);
    const times = rows.slice(1).map((r) => r[0] ?? '');
    expect([...times].sort()).toEqual(times);
    for (const time of times) expect(Date.parse(time)).not.toBeNaN();
    expect(fixture.sandbox.requests).toHaveLength(0);

    // One family, in any case, as JSON.
    const one = await roster(['invite', 'history', '--email', 'three@EXAMPLE.org', '--json']);
    expect(one.code).toBe(0);
    const json = JSON.parse(one.stdout) as { kind: string; total: number; events: { email: string }[] };
    expect(json.kind).toBe('record');
    expect(json.events.map((e) => e.email)).toEqual(['Three@Example.org']);

    // The newest N, saying how many there are.
    const newest = await roster(['invite', 'history', '--limit', '1']);
    expect(
      table(newest.stdout)
        .slice(1)
        .map((r) => r[2]),
    ).toEqual(['Three@Example.org']);
    expect(newest.stderr).toBe('Showing the newest 1 of 3; --limit 0 shows every one.\n');
  });

  it("--file: the file's rows as its journal tells them, sent by another run, and never tried", async () => {
    const first = csv('first.csv', ['elsewhere@example.org,org-sch-1']);
    expect((await roster(['invite', 'send', '--file', first, ...sender, '--yes'])).code).toBe(0);
    // The second file: one row sent, one another run sent, one refused by the server (400).
    const second = csv('second.csv', [
      'mine@example.org,org-sch-2',
      'elsewhere@example.org,org-sch-1',
      'refused@example.org,org-sch-1',
    ]);
    fixture.sandbox.injectFault({
      match: (r) => r.method === 'POST' && r.body.includes('refused@example.org'),
      status: 400,
      body: { message: 'This family asked not to be invited' },
    });
    expect((await roster(['invite', 'send', '--file', second, ...sender, '--yes'])).code).toBe(5);
    const history = await roster(['invite', 'history', '--file', second]);
    expect(history.code).toBe(0);
    const rows = table(history.stdout);
    expect(rows[0]).toEqual(['LINE', 'STATE', 'WHEN', 'EMAIL', 'SCHOOL', 'REASON']);
    expect(rows.slice(1).map((r) => [r[0], r[1], r[3], r[4]])).toEqual([
      ['2', 'sent', 'mine@example.org', 'org-sch-2'],
      ['3', 'sent elsewhere', 'elsewhere@example.org', 'org-sch-1'],
      ['4', 'failed', 'refused@example.org', 'org-sch-1'],
    ]);
    expect(rows[3]?.[5]).toContain('This family asked not to be invited');

    const never = csv('never.csv', ['new@example.org,org-sch-1']);
    const none = await roster(['invite', 'history', '--file', never]);
    expect(none.code).toBe(0);
    expect(
      table(none.stdout)
        .slice(1)
        .map((r) => r.slice(0, 5)),
    ).toEqual([['2', 'not sent', '', 'new@example.org', 'org-sch-1']]);
    expect(none.stderr).toMatch(/never\.csv was never sent to this server: no journal/);
  });

  it('shows an invitation in doubt, and the forgotten ones', async () => {
    const { sandbox } = fixture;
    sandbox.injectFault({
      match: (r) => r.method === 'POST' && r.path === '/enrollment/invitations',
      afterProcessing: true,
      status: 503,
      headers: { 'content-type': 'text/plain' },
      body: GATEWAY_503_TEXT,
      times: 100,
    });
    sandbox.injectFault({
      match: (r) => r.method === 'GET' && r.path === '/enrollment/invitations',
      status: 404,
      body: { message: 'No such endpoint' },
      times: 100,
    });
    const doubt = ['invite', 'send', '--email', 'doubt@example.org', '--school-id', 'org-sch-4', ...sender];
    expect((await roster([...doubt, '--yes'])).code).toBe(5);
    sandbox.clearFaults();
    const sent = ['invite', 'send', '--email', 'gone@example.org', '--school-id', 'org-sch-4', ...sender];
    expect((await roster([...sent, '--yes'])).code).toBe(0);
    const forget = await roster(['invite', 'forget', '--email', 'gone@example.org', '--yes']);
    expect(forget.code, forget.stderr).toBe(0);
    expect(forget.stderr).toContain('Forgot 1 invitation of roster');

    const history = await roster(['invite', 'history', '--json']);
    const events = (JSON.parse(history.stdout) as { events: { email: string; event: string; by?: string }[] })
      .events;
    expect(events.map((e) => [e.email, e.event, e.by])).toEqual([
      ['doubt@example.org', 'in-doubt', 'invite send --email'],
      ['gone@example.org', 'sent', 'invite send --email'],
      ['gone@example.org', 'forgotten', undefined],
    ]);
  });

  it('refuses what it cannot use with exit 2, before reading anything', async () => {
    for (const [args, message] of [
      [['--email', ' '], /--email is empty/],
      [['--limit', '-1'], /Invalid --limit "-1"/],
      [['--limit', 'ten'], /Invalid --limit "ten"/],
      [['--file', ''], /--file is empty/],
    ] as const) {
      const run = await roster(['invite', 'history', ...args]);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toMatch(message);
    }
    const nothing = await roster(['invite', 'history']);
    expect(nothing.code).toBe(0);
    expect(nothing.stderr).toMatch(/^Nothing recorded \(/);
  });
});
