// `roster doctor` as a go-live script runs it: the built CLI against the sandbox.
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/server.js';
import { type CliOptions, runCli } from '../helpers/cli.js';
import { demoEnv, useSandbox } from '../helpers/sandbox.js';

const fixture = useSandbox();
const envFor = (id: string, extra: Record<string, string> = {}) => demoEnv(fixture.sandbox, id, extra);
const roster = (args: string[], options: CliOptions = {}) => runCli(args, fixture.home, options);

describe('roster doctor', () => {
  it('passes for the allowed client: a table on stdout, a summary on stderr, exit 0', async () => {
    const result = await roster(['doctor'], { env: envFor('demo-allowed') });
    expect(result.code).toBe(0);
    const rows = result.stdout
      .trim()
      .split('\n')
      .map((line) => line.split('\t'));
    expect(rows[0]).toEqual(['STATUS', 'CHECK', 'REQUIRED', 'MS', 'MESSAGE']);
    expect(rows.slice(1).map((r) => `${r[0]} ${r[1]}`)).toEqual([
      'pass config',
      'pass reachable',
      'pass token-oauth',
      'pass token-v1p1',
      'pass token-v1p2',
      'pass other-auth',
      'pass clock',
      'pass attendance',
      'pass invitations',
      'pass oneroster-1.1',
      'pass oneroster-1.2',
      'pass audit',
    ]);
    expect(result.stderr).toBe('All 11 required checks passed.\n');
    expect(fixture.sandbox.requests.some((r) => r.method === 'POST' && r.path.includes('invitations'))).toBe(
      false,
    );
  });

  it('--json gives a machine-readable report', async () => {
    const result = await roster(['doctor', '--json'], { env: envFor('demo-allowed') });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({
      ok: true,
      exitCode: 0,
      profile: 'default',
      baseUrl: fixture.sandbox.baseUrl,
    });
    expect(Object.keys(report.checks[0]).sort()).toEqual([
      'details',
      'id',
      'message',
      'ms',
      'required',
      'status',
      'title',
    ]);
  });

  it("fails for the refused client with the server's message in the attendance row, exit 3", async () => {
    const result = await roster(['doctor', '--json'], { env: envFor('demo-refused') });
    expect(result.code).toBe(3);
    const attendance = JSON.parse(result.stdout).checks.find((c: { id: string }) => c.id === 'attendance');
    expect(attendance).toMatchObject({ status: 'fail', required: true, error: 'forbidden' });
    expect(attendance.message).toContain('attendance-daily is not enabled for this API client');
    expect(result.stderr).toBe('Error: 1 of 11 required checks did not pass: attendance (10 passed).\n');

    const table = await roster(['doctor'], { env: envFor('demo-refused') });
    expect(table.code).toBe(3);
    expect(table.stdout).toMatch(
      /^fail\tattendance\tyes\t\d+\tAttendance check failed \(HTTP 403\): Token authentication works/m,
    );
  });

  it('with the sandbox stopped, the reachability check fails fast with a clear message', async () => {
    const stopped = await startSandbox();
    await stopped.close();
    // Fast: the refusal ends it, not the timeout (a minute; the helper kills a run after 20 s: exit code null),
    // and no retry waits (--debug would log each).
    const result = await roster(['--debug', 'doctor', '--timeout', '60'], {
      env: envFor('demo-allowed', { ROSTER_BASE_URL: stopped.baseUrl }),
      timeoutMs: 20_000,
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /^fail\treachable\tyes\t\d+\tCould not connect to 127\.0\.0\.1:\d+: connection refused \(is the server running\?\)$/m,
    );
    expect(result.stdout).toMatch(/^skip\ttoken-oauth\tyes\t\tskipped: the base URL is not reachable$/m);
    expect(result.stderr).toMatch(/^Error: 10 of 11 required checks did not pass: reachable, /);
    expect(result.stderr).not.toMatch(/retrying|retry \d/);
  });

  it('--skip makes the refused client pass; a bad check id is a usage error', async () => {
    expect((await roster(['doctor', '--skip', 'attendance'], { env: envFor('demo-refused') })).code).toBe(0);
    fixture.sandbox.requests.length = 0;
    const bad = await roster(['doctor', '--only', 'attendence'], { env: envFor('demo-refused') });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/Invalid value "attendence" for --only.*Checks: config, reachable/);
    expect(fixture.sandbox.requests).toHaveLength(0);
  });
});
