// The commands whose answer is a verdict (attendance check, doctor, roster audit) print a result object
// with --json when they fail too, `"success": false` with the status and the server's message, and exit
// with the failure's code: `roster attendance check --json | jq -r .success` reads `false`, never an empty
// line. Other commands keep their errors on stderr alone.
import { spawn, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { cliEnv, ROSTER_BIN } from '../helpers/cli.js';
import { demoEnv, useSandbox } from '../helpers/sandbox.js';

const tests = useSandbox();
const refused = () => demoEnv(tests.sandbox, 'demo-refused');
const json = (stdout: string) => JSON.parse(stdout) as Record<string, unknown>;
/** A shell line, run while the test's sandbox (in this process) goes on answering. */
function bash(line: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string }> {
  const child = spawn('bash', ['-c', line], { env, stdio: ['ignore', 'pipe', 'ignore'] });
  let stdout = '';
  child.stdout.on('data', (d) => (stdout += d));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout })));
}
const has = (tool: string) => spawnSync(tool, ['--version']).status === 0;

describe('attendance check --json', () => {
  it('prints success true and exits 0 when token authentication works', async () => {
    const run = await tests.roster(['attendance', 'check', '--json']);
    expect(run.code).toBe(0);
    expect(json(run.stdout)).toMatchObject({
      success: true,
      clientLabel: 'Riverside Unified School District',
    });
  });

  it('a 403 prints success false, the status and the server message, exit 3, and the error on stderr', async () => {
    const run = await tests.roster(['attendance', 'check', '--json'], { env: refused() });
    expect(run.code).toBe(3);
    expect(json(run.stdout)).toEqual({
      success: false,
      error: 'forbidden',
      status: 403,
      message: expect.stringContaining('HTTP 403'),
      serverMessage:
        'Token authentication works, but attendance-daily is not enabled for this API client. Ask the district administrator to enable it.',
    });
    expect(run.stderr).toContain('Error: Attendance check failed (HTTP 403)');
  });

  it('a wrong secret prints success false with exit 4; a server error with exit 1', async () => {
    const wrong = await tests.roster(['attendance', 'check', '--json'], {
      env: { ROSTER_CLIENT_SECRET: 'not-the-secret' },
    });
    expect(wrong.code).toBe(4);
    expect(json(wrong.stdout)).toMatchObject({ success: false, error: 'auth', status: 401 });
    tests.sandbox.injectFault({
      match: (req) => req.path.endsWith('/attendance/status'),
      status: 500,
      body: { message: 'database\u001b[31m down' },
      times: 10,
    });
    const failed = await tests.roster(['attendance', 'check', '--json']);
    tests.sandbox.clearFaults();
    expect(failed.code).toBe(1);
    const verdict = json(failed.stdout);
    expect(verdict).toMatchObject({ success: false, error: 'api', status: 500 });
    // The server's bytes are cleaned before they reach the JSON: no escape sequence.
    expect(String(verdict.serverMessage)).toMatch(/^database.*down$/);
    expect(failed.stdout).not.toContain('\u001b');
    expect(failed.stdout).not.toContain('\\u001b');
  });

  it('no answer at all prints success false with a null status', async () => {
    const run = await tests.roster(['attendance', 'check', '--json'], {
      env: { ROSTER_BASE_URL: 'http://127.0.0.1:9/v1' },
    });
    expect(run.code).toBe(1);
    expect(json(run.stdout)).toMatchObject({ success: false, error: 'network', status: null });
  });

  it('without --json a failure prints nothing on stdout', async () => {
    const run = await tests.roster(['attendance', 'check'], { env: refused() });
    expect(run.code).toBe(3);
    expect(run.stdout).toBe('');
  });

  it.runIf(has('jq'))('| jq -r .success reads false, and pipefail keeps the exit code', async () => {
    const env = cliEnv(tests.home, refused());
    const line = `"${process.execPath}" "${ROSTER_BIN}" attendance check --json | jq -r .success`;
    expect(await bash(line, env)).toEqual({ code: 0, stdout: 'false\n' });
    expect(await bash(`set -o pipefail; ${line}`, env)).toEqual({ code: 3, stdout: 'false\n' });
  });
});

describe('doctor --json and roster audit --json', () => {
  it('doctor prints success with its report, false and the exit code when a check fails', async () => {
    const ok = await tests.roster(['doctor', '--json', '--skip', 'audit']);
    expect(ok.code).toBe(0);
    expect(json(ok.stdout)).toMatchObject({ success: true, ok: true });
    const failed = await tests.roster(['doctor', '--json', '--skip', 'audit'], { env: refused() });
    expect(failed.code).toBe(3);
    expect(json(failed.stdout)).toMatchObject({ success: false, ok: false, exitCode: 3 });
  });

  it('the audit prints success true, false when --fail-on fails it (exit 1)', async () => {
    const ok = await tests.roster(['roster', 'audit', '--json', '--fail-on', 'never']);
    expect(ok.code).toBe(0);
    expect(json(ok.stdout)).toMatchObject({ success: true, findings: expect.any(Array) });
    // No school year covers 2099: a warning, which --fail-on warning fails.
    const strict = await tests.roster([
      'roster',
      'audit',
      '--json',
      '--fail-on',
      'warning',
      '--date',
      '2099-01-01',
    ]);
    expect(strict.code).toBe(1);
    expect(json(strict.stdout)).toMatchObject({ success: false, findings: expect.any(Array) });
  });

  it('an audit that cannot read prints success false, the status and the server message', async () => {
    const run = await tests.roster(['roster', 'audit', '--json'], {
      env: { ROSTER_CLIENT_SECRET: 'not-the-secret' },
    });
    expect(run.code).toBe(4);
    expect(json(run.stdout)).toMatchObject({ success: false, error: 'auth', status: 401 });
    expect(run.stderr).toContain('Error:');
  });

  it('a usage error is no verdict: nothing on stdout, exit 2, nothing sent', async () => {
    const run = await tests.roster(['roster', 'audit', '--json', '--date', 'yesterday']);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(tests.sandbox.requests).toEqual([]);
  });
});

describe('other commands', () => {
  it('keep their errors on stderr: invite list --json that fails prints nothing on stdout', async () => {
    const run = await tests.roster(['invite', 'list', '--json'], {
      env: { ROSTER_CLIENT_SECRET: 'not-the-secret' },
    });
    expect(run.code).toBe(4);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('Error:');
  });
});
