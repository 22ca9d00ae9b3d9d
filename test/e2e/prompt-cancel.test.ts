// Leaving a question on a real terminal (a pseudo-terminal): Ctrl-C or Esc at any prompt, or "no" at a
// send confirmation, prints what was not done and exits 130, and nothing reached the server or the disk.
// And everything that can be checked is checked before the first question: no answer is wasted.
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startPty } from '../helpers/pty.js';
import { demoEnv, useSandbox } from '../helpers/sandbox.js';

const CTRL_C = '\u0003';
const ESC = '\u001b';
const ENTER = '\r';

const fixture = useSandbox();

const invitationPosts = () =>
  fixture.sandbox.requests.filter((r) => r.method === 'POST' && r.path === '/v1/enrollment/invitations');
const configDir = () => join(fixture.home, '.config', 'roster');
const stateDir = () => join(fixture.home, '.local', 'state', 'roster');

function csv(rows: string[]): string {
  const path = join(fixture.home, 'families.csv');
  writeFileSync(path, `email,schoolId,studentCount\n${rows.join('\n')}\n`);
  return path;
}

/** The CLI on a pseudo-terminal in the test's HOME, with the demo client's credentials in its environment. */
const ptyAsDemo = (args: string[]) => startPty(args, fixture.home, demoEnv(fixture.sandbox));

/** The screen from the last question on: what the run printed after the key was typed. */
const shownAfter = (screen: string, question: string) => screen.slice(screen.lastIndexOf(question));

describe('cancelling a question: exit 130, "Cancelled; …", nothing sent or saved', () => {
  it.each([
    ['Ctrl-C', CTRL_C],
    ['Esc', ESC],
  ])('login, %s at the first question: nothing saved, nothing asked of the server', async (_, key) => {
    const run = startPty(['login', '--insecure-storage'], fixture.home);
    await run.waitFor('Base URL of the service');
    run.type(key);
    await run.waitFor('Cancelled; nothing was saved.');
    const result = await run.done;
    expect(result.code).toBe(130);
    expect(result.stdout).not.toContain('Error');
    expect(result.stdout).not.toContain('force closed');
    expect(existsSync(configDir())).toBe(false);
    expect(fixture.sandbox.requests).toEqual([]);
  });

  it.each([
    ['Ctrl-C', CTRL_C],
    ['Esc', ESC],
  ])('login, %s at the secret after the URL and id were typed: nothing saved or sent', async (_, key) => {
    const run = startPty(['login', '--insecure-storage'], fixture.home);
    await run.waitFor('Base URL of the service');
    run.type(`${fixture.sandbox.baseUrl}${ENTER}`);
    await run.waitFor('Client ID:');
    run.type(`demo-allowed${ENTER}`);
    await run.waitFor('Client secret:');
    run.type(`half-typed${key}`);
    await run.waitFor('Cancelled; nothing was saved.');
    expect((await run.done).code).toBe(130);
    expect(existsSync(configDir())).toBe(false);
    expect(fixture.sandbox.requests).toEqual([]);
  });

  it.each([
    ['Ctrl-C', CTRL_C],
    ['Esc', ESC],
  ])('invite send, %s at the e-mail question: nothing sent', async (_, key) => {
    const run = ptyAsDemo(['invite', 'send', '--school-id', 'org-sch-1', '--sent-by-user-id', 'usr-1']);
    await run.waitFor('E-mail address of the parent or guardian');
    run.type(`parent@exa${key}`);
    await run.waitFor('Cancelled; nothing was sent.');
    expect((await run.done).code).toBe(130);
    expect(invitationPosts()).toEqual([]);
  });

  it.each([
    ['Ctrl-C', CTRL_C],
    ['Esc', ESC],
  ])('invite send, %s at the school picker: nothing sent', async (_, key) => {
    const run = ptyAsDemo(['invite', 'send', '--email', 'picker@example.org', '--sent-by-user-id', 'usr-1']);
    await run.waitFor('School (type to search by name, identifier or sourcedId)');
    await run.waitFor('Alder Elementary School');
    run.type('ced');
    await run.waitFor('Use "ced" as typed');
    run.type(key);
    await run.waitFor('Cancelled; nothing was sent.');
    const result = await run.done;
    expect(result.code).toBe(130);
    expect(shownAfter(result.stdout, 'School (type')).not.toContain('Send it to');
    expect(invitationPosts()).toEqual([]);
  });

  it.each([
    ['Ctrl-C', CTRL_C],
    ['Esc', ESC],
    ['"n"', `n${ENTER}`],
    ['Enter (the default is no)', ENTER],
  ])('invite send --email, %s at the confirmation: nothing sent, nothing recorded', async (_, key) => {
    const run = ptyAsDemo([
      'invite',
      'send',
      '--email',
      'confirm@example.org',
      '--school-id',
      'org-sch-1',
      '--sent-by-user-id',
      'usr-1',
    ]);
    await run.waitFor('Send it to confirm@example.org?');
    run.type(key);
    await run.waitFor('Cancelled; nothing was sent.');
    const result = await run.done;
    expect(result.code).toBe(130);
    expect(shownAfter(result.stdout, 'Send it to')).not.toMatch(/Error|force closed|sent to/);
    expect(invitationPosts()).toEqual([]);
    expect(existsSync(stateDir()) ? readdirSync(stateDir()) : []).toEqual([]);
  });

  it.each([
    ['Ctrl-C', CTRL_C],
    ['Esc', ESC],
    ['"n"', `n${ENTER}`],
  ])('invite send --file, %s at the confirmation: no row sent', async (_, key) => {
    const file = csv(['a@example.org,org-sch-1,1', 'b@example.org,org-sch-2,2']);
    const run = ptyAsDemo(['invite', 'send', '--file', file, '--sent-by-user-id', 'usr-1']);
    await run.waitFor('Send 2 invitations?');
    run.type(key);
    await run.waitFor('Cancelled; nothing was sent.');
    expect((await run.done).code).toBe(130);
    expect(invitationPosts()).toEqual([]);
  });
});

describe('checked before the first question', () => {
  it('a bad --student-count is a usage error before the e-mail is asked for', async () => {
    const run = ptyAsDemo(['invite', 'send', '--student-count', 'two', '--sent-by-user-id', 'usr-1']);
    const result = await run.done;
    expect(result.code).toBe(2);
    expect(result.stdout).toContain('--student-count must be a positive whole number (got "two")');
    expect(result.stdout).not.toContain('E-mail address');
    expect(fixture.sandbox.requests).toEqual([]);
  });

  it('a --school-id that is no school of the district is refused before the e-mail is asked for', async () => {
    const run = ptyAsDemo(['invite', 'send', '--school-id', 'Aldr Elementary', '--sent-by-user-id', 'usr-1']);
    const result = await run.done;
    expect(result.code).toBe(2);
    expect(result.stdout).toContain('--school-id "Aldr Elementary" is not the name, identifier or sourcedId');
    expect(result.stdout).not.toContain('E-mail address');
    expect(
      fixture.sandbox.requests.filter((r) => r.method === 'POST' && r.path.includes('invitations')),
    ).toEqual([]);
  });

  it('no client credentials: said before the school is asked for, nothing asked of the server', async () => {
    const run = startPty(
      ['invite', 'send', '--email', 'nocreds@example.org', '--sent-by-user-id', 'usr-1'],
      fixture.home,
      {
        ROSTER_BASE_URL: fixture.sandbox.baseUrl,
      },
    );
    const result = await run.done;
    expect(result.code).toBe(4);
    expect(result.stdout).toContain('No client credentials');
    expect(result.stdout).not.toContain('School (type');
    expect(fixture.sandbox.requests).toEqual([]);
  });

  it('no client credentials with every value given: said before the confirmation (not after a "yes")', async () => {
    const run = startPty(
      [
        'invite',
        'send',
        '--email',
        'nocreds@example.org',
        '--school-id',
        'org-sch-1',
        '--sent-by-user-id',
        'usr-1',
      ],
      fixture.home,
      { ROSTER_BASE_URL: fixture.sandbox.baseUrl },
    );
    const result = await run.done;
    expect(result.code).toBe(4);
    expect(result.stdout).toContain('No client credentials');
    expect(result.stdout).not.toContain('Send it to');
    expect(fixture.sandbox.requests).toEqual([]);
  });

  it('--file without client credentials: said before the confirmation, the schools not read without them', async () => {
    const file = csv(['a@example.org,org-sch-1,1']);
    const run = startPty(['invite', 'send', '--file', file, '--sent-by-user-id', 'usr-1'], fixture.home, {
      ROSTER_BASE_URL: fixture.sandbox.baseUrl,
    });
    const result = await run.done;
    expect(result.code).toBe(4);
    expect(result.stdout).toContain('No client credentials');
    expect(result.stdout).not.toContain('Send 1 invitation?');
    expect(result.stdout).not.toContain('could not read');
    expect(fixture.sandbox.requests).toEqual([]);
  });

  it('credentials the server refuses: said before the confirmation', async () => {
    const run = startPty(
      [
        'invite',
        'send',
        '--email',
        'wrong@example.org',
        '--school-id',
        'org-sch-1',
        '--sent-by-user-id',
        'usr-1',
      ],
      fixture.home,
      demoEnv(fixture.sandbox, 'demo-allowed', { ROSTER_CLIENT_SECRET: 'not-the-secret' }),
    );
    const result = await run.done;
    expect(result.code).toBe(4);
    expect(result.stdout).not.toContain('Send it to');
    expect(invitationPosts()).toEqual([]);
  });

  it('--file with a bad row or flag: refused before the confirmation', async () => {
    const file = csv(['a@example.org,org-sch-1,1', 'not-an-address,org-sch-1,1']);
    const bad = await ptyAsDemo(['invite', 'send', '--file', file, '--sent-by-user-id', 'usr-1']).done;
    expect(bad.code).toBe(2);
    expect(bad.stdout).toContain('line 3');
    expect(bad.stdout).not.toContain('Send 1 invitation');
    const flag = await ptyAsDemo([
      'invite',
      'send',
      '--file',
      csv(['a@example.org,org-sch-1,']),
      '--student-count',
      'two',
      '--sent-by-user-id',
      'usr-1',
    ]).done;
    expect(flag.code).toBe(2);
    expect(flag.stdout).not.toContain('Send 1 invitation');
    expect(invitationPosts()).toEqual([]);
  });
});
