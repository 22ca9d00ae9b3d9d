// Tables and times as an admin sees them on a real terminal (a pseudo-terminal 80 columns wide, colour on,
// TZ=America/Chicago): gh-style tables with roster's own bold rendered, identifiers and a base URL's
// scheme://host:port never cut, instants in local time with the zone; --json keeps ISO 8601 UTC.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { localTime } from '../../src/output/time.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { startPty } from '../helpers/pty.js';
import { demoEnv } from '../helpers/sandbox.js';

const ESC = '\u001b';
const ZONE = 'America/Chicago';
const TERMINAL = { NO_COLOR: undefined, TERM: 'xterm-256color', TZ: ZONE };
/** The lines a terminal shows, without colour: what the eye reads. */
const seen = (screen: string) =>
  screen
    .replace(/\u001b\[[\d;]*m/g, '')
    .split(/\r?\n/)
    .filter((line) => line !== '');

let home: string;
beforeEach(() => {
  home = tempDir();
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

describe('roster profiles on a terminal', () => {
  const LONG = 'https://sis.example.org:8443/ims/oneroster/rostering/v1p1';
  beforeEach(() => {
    mkdirSync(join(home, '.config', 'roster'), { recursive: true });
    writeFileSync(
      join(home, '.config', 'roster', 'config.json'),
      JSON.stringify({
        profiles: {
          default: { baseUrl: 'https://main.example/v1', clientId: 'main-1' },
          west: { baseUrl: LONG, clientId: 'west-42', oneroster: '1.2', clientAuth: 'post' },
        },
      }),
    );
  });

  it('the active name in real bold, no borders, and at 80 columns a long base URL keeps its port', async () => {
    const pty = startPty(['profiles'], home, TERMINAL, { columns: 80 });
    const result = await pty.done;
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`${ESC}[1mdefault${ESC}[22m`);
    expect(result.stdout).not.toContain('\\u001b');
    expect(result.stdout).not.toMatch(/[│┌─]/);
    const lines = seen(result.stdout);
    expect(lines[0]).toMatch(/^ +NAME +BASE URL +CLIENT ID +ONEROSTER +CLIENT AUTH$/);
    expect(lines[1]).toMatch(/^\* +default +https:\/\/main\.example\/v1 +main-1 +1\.1 +basic$/);
    expect(lines[2]).toMatch(/^ +west +https:\/\/sis\.example\.org:8443… +west-42 +1\.2 +post$/);
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(80);
  });

  it('wide enough, the URL is whole; a pipe still gets tab-separated rows without escapes', async () => {
    const wide = await startPty(['profiles'], home, TERMINAL, { columns: 200 }).done;
    expect(seen(wide.stdout)[2]).toContain(LONG);
    const piped = await runCli(['profiles'], home, { env: { TZ: ZONE } });
    expect(piped.stdout).toContain(`\twest\t${LONG}\twest-42\t1.2\tpost\n`);
    expect(piped.stdout).not.toContain(ESC);
  });
});

describe('times against the sandbox', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ seed: 11 });
  });
  afterAll(() => sandbox.close());
  const env = () => ({ ...demoEnv(sandbox), TZ: ZONE });

  it('roster status: the token expiry in local time with the zone on a terminal, ISO 8601 UTC in --json', async () => {
    expect((await runCli(['token'], home, { env: env() })).code).toBe(0);
    const json = await runCli(['status', '--json'], home, { env: env() });
    expect(json.code).toBe(0);
    const { expiresAt } = JSON.parse(json.stdout).token;
    expect(expiresAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const pty = await startPty(['status'], home, { ...env(), ...TERMINAL }, { columns: 80 }).done;
    expect(pty.code).toBe(0);
    const local = localTime(expiresAt, ZONE);
    expect(local).toMatch(/ C[SD]T$/);
    expect(seen(pty.stdout)).toContainEqual(
      expect.stringMatching(new RegExp(`^Token: +valid until ${local} \\(\\d+ min left`)),
    );
    expect(pty.stdout).not.toContain(expiresAt);
    // A pipe keeps what it printed before: ISO 8601 UTC.
    const piped = await runCli(['status'], home, { env: env() });
    expect(piped.stdout).toContain(`valid until ${expiresAt}`);
  });

  it('roster users at 80 columns: headers whole while a name can give way, ids never cut, e-mails left out whole', async () => {
    const json = await runCli(['roster', 'users', '--limit', '20', '--json'], home, { env: env() });
    expect(json.code).toBe(0);
    const records = JSON.parse(json.stdout) as { sourcedId: string; email?: string }[];
    const pty = await startPty(
      ['roster', 'users', '--limit', '20'],
      home,
      { ...env(), ...TERMINAL },
      { columns: 80 },
    ).done;
    expect(pty.code).toBe(0);
    const lines = seen(pty.stdout);
    // The e-mails, which are never cut, do not fit beside the rest: left out, and said to be (stderr).
    expect(lines[0]).toMatch(/^sourcedId +givenName +familyName +role +status$/);
    expect(lines[records.length + 1]).toBe(
      'Not shown, to fit 80 columns: email (a wider window, a pipe or --json shows it).',
    );
    expect(lines[records.length + 2]).toMatch(/^Showing 20 of \d+ users\./);
    for (const [i, record] of records.entries()) {
      expect(lines[i + 1]).toMatch(new RegExp(`^${record.sourcedId} `));
      expect([...(lines[i + 1] as string)].length).toBeLessThanOrEqual(80);
    }
  });

  it('roster invite list: createdAt in local time on an 80-column terminal, as the API gave it in --json', async () => {
    const send = await runCli(
      [
        'invite',
        'send',
        '--email',
        'times@example.org',
        '--school-id',
        'org-sch-1',
        '--sent-by-user-id',
        'usr-1',
      ],
      home,
      { env: env() },
    );
    expect(send.code).toBe(0);
    const json = await runCli(['invite', 'list', '--email', 'times@example.org', '--json'], home, {
      env: env(),
    });
    const [record] = JSON.parse(json.stdout).data;
    expect(record.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const pty = await startPty(
      ['invite', 'list', '--email', 'times@example.org'],
      home,
      { ...env(), ...TERMINAL },
      {
        columns: 80,
      },
    ).done;
    expect(pty.code).toBe(0);
    const lines = seen(pty.stdout);
    const [header, row] = lines;
    // As gh: the columns an admin reads first, whole; every field is in --json.
    expect(header).toMatch(/^email +school +students +status +created$/);
    expect(row).toMatch(
      // The school by its name on a terminal (cut to fit), its sourcedId in --json.
      new RegExp(
        `^times@example\\.org +Alder Elementary S\\S* +1 +sent +${localTime(record.createdAt, ZONE)}$`,
      ),
    );
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(80);
    // Only the school's name gives way (with …): the e-mail, status and time are whole.
    expect(pty.stdout.match(/…/g)).toHaveLength(1);
    expect(pty.stdout).toContain(`${ESC}[1memail `); // the header in bold
    expect(pty.stdout).not.toContain(record.createdAt);
    // A pipe and --ndjson keep the API's value.
    const piped = await runCli(['invite', 'list', '--email', 'times@example.org'], home, { env: env() });
    expect(piped.stdout).toContain(`\t${record.createdAt}`);
  });
});
