// Errors that say what to do: a profile that is not the default is named in the login it needs, and an
// e-mail with a letter outside ASCII names the letter, before anything is sent. Each run is in this
// process; the API an HttpMock with no stub (a request would fail the test).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/context.js';
import { useHttpMock } from '../../helpers/http-mock.js';
import { rosterInProcess } from '../../helpers/main.js';
import { CLIENT, DISTRICT } from '../../helpers/mock-district.js';

const mock = useHttpMock();

describe('a profile named by --profile', () => {
  it('status and a command name --profile nosuch in the login they need, and the profiles saved', async () => {
    const home = tempDir();
    const roster = (argv: string[], env: Record<string, string> = {}) =>
      rosterInProcess(argv, { home, env, transport: mock.http });
    const status = await roster(['--profile', 'nosuch', 'status']);
    expect(status.code).toBe(4);
    expect(status.stderr).toContain(
      'Error: Profile "nosuch" has no credentials. Run `roster login --profile nosuch`, or set ROSTER_CLIENT_ID and ROSTER_CLIENT_SECRET.',
    );
    const check = await roster(['attendance', 'check'], { ROSTER_PROFILE: 'nosuch' });
    expect(check.code).toBe(4);
    expect(check.stderr).toContain('Run `roster login --profile nosuch`, or pass --base-url');
    const plain = await roster(['status']);
    expect(plain.stderr).toContain('Run `roster login`, or set ROSTER_CLIENT_ID');
    expect(mock.http.requests).toEqual([]);
  });

  it('a profile never saved (a typo) lists the saved ones', async () => {
    const home = tempDir();
    mkdirSync(join(home, 'config'), { recursive: true });
    writeFileSync(
      join(home, 'config', 'config.json'),
      JSON.stringify({ profiles: { east: { baseUrl: 'https://e.example/v1' }, west: {} } }),
    );
    const typo = await rosterInProcess(['--profile', 'esat', 'status'], { home, transport: mock.http });
    expect(typo.code).toBe(4);
    expect(typo.stderr).toContain(
      'Run `roster login --profile esat`, or set ROSTER_CLIENT_ID and ROSTER_CLIENT_SECRET. No profile "esat" is saved; saved profiles: east, west.',
    );
  });
});

describe('an e-mail refused for a letter outside ASCII', () => {
  it('names the letter, its code point and why, exit 2, nothing sent', async () => {
    const env = {
      ROSTER_BASE_URL: DISTRICT,
      ROSTER_CLIENT_ID: CLIENT.id,
      ROSTER_CLIENT_SECRET: CLIENT.secret,
    };
    const send = ['invite', 'send', '--school-id', 'org-sch-1', '--sent-by-user-id', 'adm-001', '--yes'];
    const roster = (email: string) =>
      rosterInProcess([...send, '--email', email], { env, transport: mock.http });
    const name = await roster('zoë@example.org');
    expect(name.code).toBe(2);
    expect(name.stderr).toContain(
      'Error: Invalid invitation: --email "zoë@example.org" contains "ë" (U+00EB), which is not ASCII: mail systems do not all deliver to international addresses, so the name must be plain ASCII; ask the family for an address in plain letters (a-z, 0-9 . _ + -). Nothing was sent.',
    );
    const domain = await roster('parent@école.example');
    expect(domain.code).toBe(2);
    expect(domain.stderr).toContain('contains "é" (U+00E9), which is not ASCII');
    expect(domain.stderr).toContain(
      'the domain must be plain ASCII; write the domain in its ASCII (xn--) form',
    );
    expect(mock.http.requests).toEqual([]);
  });
});
