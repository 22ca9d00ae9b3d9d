// The commands whose answer is a verdict (attendance check, doctor, roster audit) print a result object
// with --json when they fail too, `"success": false` with the status and the server's message, and exit
// with the failure's code. Other commands keep their errors on stderr alone. Each run is in this process,
// the API an HttpMock (test/e2e/foundation.test.ts pipes a verdict into jq from a real process).
import { describe, expect, it } from 'vitest';
import { json, networkFailure, useHttpMock } from '../../helpers/http-mock.js';
import { rosterInProcess } from '../../helpers/main.js';
import { CLIENT, DISTRICT, tokenEndpoints } from '../../helpers/mock-district.js';

const mock = useHttpMock();
const env = { ROSTER_BASE_URL: DISTRICT, ROSTER_CLIENT_ID: CLIENT.id, ROSTER_CLIENT_SECRET: CLIENT.secret };
const roster = (argv: string[]) => rosterInProcess(argv, { env, transport: mock.http });
const verdict = (stdout: string) => JSON.parse(stdout) as Record<string, unknown>;
const STATUS = { method: 'GET', path: '/v1/attendance/status' } as const;
const NOT_ENABLED =
  'Token authentication works, but attendance-daily is not enabled for this API client. Ask the district administrator to enable it.';
/** The token endpoint refuses the secret (RFC 6749 §5.2). */
const wrongSecret = () =>
  mock.http.register(
    { method: 'POST', path: /\/token$/ },
    json({ error: 'invalid_client', error_description: 'Client authentication failed' }, 401),
  );

describe('attendance check --json', () => {
  it('prints success true and exits 0 when token authentication works', async () => {
    tokenEndpoints(mock.http);
    mock.http.register(STATUS, json({ success: true, clientLabel: 'Riverside Unified School District' }));
    const run = await roster(['attendance', 'check', '--json']);
    expect(run.code).toBe(0);
    expect(verdict(run.stdout)).toMatchObject({
      success: true,
      clientLabel: 'Riverside Unified School District',
    });
  });

  it('a 403 prints success false, the status and the server message, exit 3, and the error on stderr', async () => {
    tokenEndpoints(mock.http);
    mock.http.register(STATUS, json({ message: NOT_ENABLED }, 403));
    const run = await roster(['attendance', 'check', '--json']);
    expect(run.code).toBe(3);
    expect(verdict(run.stdout)).toEqual({
      success: false,
      error: 'forbidden',
      status: 403,
      message: expect.stringContaining('HTTP 403'),
      serverMessage: NOT_ENABLED,
    });
    expect(run.stderr).toContain('Error: Attendance check failed (HTTP 403)');
  });

  it('a wrong secret prints success false with exit 4', async () => {
    wrongSecret();
    const wrong = await roster(['attendance', 'check', '--json']);
    expect(wrong.code).toBe(4);
    expect(verdict(wrong.stdout)).toMatchObject({ success: false, error: 'auth', status: 401 });
  });

  it('a server error prints success false with exit 1, the server bytes cleaned', async () => {
    tokenEndpoints(mock.http);
    mock.http.register(STATUS, json({ message: 'database\u001b[31m down' }, 500), { times: Infinity });
    const failed = await roster(['attendance', 'check', '--json']);
    expect(failed.code).toBe(1);
    const answer = verdict(failed.stdout);
    expect(answer).toMatchObject({ success: false, error: 'api', status: 500 });
    // The server's bytes are cleaned before they reach the JSON: no escape sequence.
    expect(String(answer.serverMessage)).toMatch(/^database.*down$/);
    expect(failed.stdout).not.toContain('\u001b');
    expect(failed.stdout).not.toContain('\\u001b');
  });

  it('no answer at all prints success false with a null status', async () => {
    mock.http.register({ method: 'POST', path: /\/token$/ }, networkFailure(false, 'ECONNREFUSED'), {
      times: Infinity,
    });
    const run = await roster(['attendance', 'check', '--json']);
    expect(run.code).toBe(1);
    expect(verdict(run.stdout)).toMatchObject({ success: false, error: 'network', status: null });
  });

  it('without --json a failure prints nothing on stdout', async () => {
    tokenEndpoints(mock.http);
    mock.http.register(STATUS, json({ message: NOT_ENABLED }, 403));
    const run = await roster(['attendance', 'check']);
    expect(run.code).toBe(3);
    expect(run.stdout).toBe('');
  });
});

/** The district's school years: one covering this year, none 2099. */
function schoolYears(): void {
  const year = new Date().getUTCFullYear();
  const session = {
    sourcedId: `as-${year}`,
    title: `${year}`,
    type: 'schoolYear',
    status: 'active',
    startDate: `${year}-01-01`,
    endDate: `${year}-12-31`,
    schoolYear: String(year),
  };
  mock.http.register(
    { method: 'GET', path: '/v1/ims/oneroster/v1p1/academicSessions' },
    (request) =>
      json({
        academicSessions: Number(new URL(request.url).searchParams.get('offset') ?? 0) === 0 ? [session] : [],
      }),
    { times: Infinity },
  );
}

describe('doctor --json and roster audit --json', () => {
  it('doctor prints success with its report, false and the exit code when a check fails', async () => {
    tokenEndpoints(mock.http);
    mock.http.register(STATUS, json({ success: true, clientLabel: 'Riverside' }));
    mock.http.register(STATUS, json({ message: NOT_ENABLED }, 403));
    const ok = await roster(['doctor', '--json', '--only', 'attendance']);
    expect(ok.code).toBe(0);
    expect(verdict(ok.stdout)).toMatchObject({ success: true, ok: true });
    const failed = await roster(['doctor', '--json', '--only', 'attendance']);
    expect(failed.code).toBe(3);
    expect(verdict(failed.stdout)).toMatchObject({ success: false, ok: false, exitCode: 3 });
  });

  it('the audit prints success true, false when --fail-on fails it (exit 1)', async () => {
    tokenEndpoints(mock.http);
    schoolYears();
    const audit = ['roster', 'audit', '--json', '--check', 'no-current-school-year'];
    const ok = await roster([...audit, '--fail-on', 'never']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(verdict(ok.stdout)).toMatchObject({
      success: true,
      findings: [expect.objectContaining({ check: 'no-current-school-year', count: 0 })],
    });
    // No school year covers 2099: a warning, which --fail-on warning fails.
    const strict = await roster([...audit, '--fail-on', 'warning', '--date', '2099-01-01']);
    expect(strict.code).toBe(1);
    expect(verdict(strict.stdout)).toMatchObject({
      success: false,
      findings: [expect.objectContaining({ check: 'no-current-school-year', count: 1 })],
    });
  });

  it('an audit that cannot read prints success false, the status and the server message', async () => {
    wrongSecret();
    const run = await roster(['roster', 'audit', '--json']);
    expect(run.code).toBe(4);
    expect(verdict(run.stdout)).toMatchObject({ success: false, error: 'auth', status: 401 });
    expect(run.stderr).toContain('Error:');
  });

  it('a usage error is no verdict: nothing on stdout, exit 2, nothing sent', async () => {
    const run = await roster(['roster', 'audit', '--json', '--date', 'yesterday']);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(mock.http.requests).toEqual([]);
  });
});

describe('other commands', () => {
  it('keep their errors on stderr: invite list --json that fails prints nothing on stdout', async () => {
    wrongSecret();
    const run = await roster(['invite', 'list', '--json']);
    expect(run.code).toBe(4);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('Error:');
  });
});
