// Tables fit the terminal, as gh's do: on a real pseudo-terminal 80 columns wide no row of
// `roster roster students` wraps onto a second line; the e-mail, which is never cut, is left out and said
// to be, and names give way with …; a pipe and --json keep every column whole.
import { describe, expect, it } from 'vitest';
import { startPty } from '../helpers/pty.js';
import { demoEnv, useSandbox } from '../helpers/sandbox.js';

/** The lines a terminal shows, without colour or carriage returns. */
const seen = (screen: string) =>
  screen
    .replace(/\u001b\[[\d;]*m/g, '')
    .split(/\r?\n/)
    .filter((line) => line !== '');

describe('tables fit the terminal', () => {
  const tests = useSandbox();

  it('roster roster students at 80 columns: one line a row, the e-mail left out and named', async () => {
    const pty = startPty(['roster', 'students', '--limit', '20'], tests.home, demoEnv(tests.sandbox), {
      columns: 80,
    });
    const result = await pty.done;
    expect(result.code).toBe(0);
    const lines = seen(result.stdout);
    expect(lines[0]).toMatch(/^sourcedId +givenName +familyName +grades +status$/);
    const rows = lines.filter((line) => /^stu-\d{6} /.test(line));
    expect(rows).toHaveLength(20);
    for (const line of [lines[0] as string, ...rows]) expect([...line].length).toBeLessThanOrEqual(80);
    expect(rows[0]).toMatch(/^stu-000001 +Zoë +Åkesson +02 +active$/);
    expect(result.stdout).not.toContain('@students.riverside.example');
    expect(lines).toContain(
      'Not shown, to fit 80 columns: email (a wider window, a pipe or --json shows it).',
    );
  });

  it('wide enough, every column is shown and nothing is said', async () => {
    const pty = startPty(['roster', 'students', '--limit', '3'], tests.home, demoEnv(tests.sandbox), {
      columns: 160,
    });
    const result = await pty.done;
    expect(seen(result.stdout)[0]).toMatch(/^sourcedId +givenName +familyName +grades +email +status$/);
    expect(result.stdout).toContain('zoe.akesson1@students.riverside.example');
    expect(result.stdout).not.toContain('Not shown');
  });

  it('a pipe and --json keep every column and the whole value', async () => {
    const piped = await tests.roster(['roster', 'students', '--limit', '2']);
    expect(piped.stdout.split('\n')[0]).toBe('sourcedId\tgivenName\tfamilyName\tgrades\temail\tstatus');
    expect(piped.stdout).toContain('zoe.akesson1@students.riverside.example');
    expect(piped.stderr).not.toContain('Not shown');
    const json = await tests.roster(['roster', 'students', '--limit', '1', '--json']);
    expect(JSON.parse(json.stdout)[0].email).toBe('zoe.akesson1@students.riverside.example');
  });
});
