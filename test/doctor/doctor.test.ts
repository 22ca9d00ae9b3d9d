// `roster doctor` behaviour: runDoctor against the sandbox with a fake Context.
import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/doctor/checks.js';
import { CHECK_IDS } from '../../src/doctor/ids.js';
import { type CheckResult, type DoctorReport, runDoctor, type Selection } from '../../src/doctor/run.js';
import { startSandbox } from '../../src/sandbox/server.js';
import { resolveSettings } from '../../src/settings.js';
import { fakeContext, withSettings } from '../helpers/context.js';
import { demoClient, demoEnv, useSandbox } from '../helpers/sandbox.js';

const fixture = useSandbox();

const secretOf = (id: string) => demoClient(fixture.sandbox, id).clientSecret;

async function doctor(
  env: Record<string, string>,
  selection: Selection = {},
  options: { now?: () => number; sleep?: (ms: number) => void; flags?: Record<string, string> } = {},
) {
  const fake = fakeContext({ env });
  if (options.now) fake.ctx.now = options.now;
  const { sleep } = options;
  if (sleep) {
    const wait = fake.ctx.sleep;
    fake.ctx.sleep = (ms) => {
      sleep(ms);
      return wait(ms);
    };
  }
  const settings = await resolveSettings(options.flags ?? {}, fake.ctx.env, fake.ctx.paths.configDir);
  const report = await runDoctor(withSettings(fake.ctx, settings), selection);
  return { report, ...fake };
}

const envFor = (id: string, extra: Record<string, string> = {}) => demoEnv(fixture.sandbox, id, extra);

const byId = (report: DoctorReport) =>
  Object.fromEntries(report.checks.map((c) => [c.id, c])) as Record<string, CheckResult>;
const statuses = (report: DoctorReport) => Object.fromEntries(report.checks.map((c) => [c.id, c.status]));

describe('roster doctor', () => {
  it('lists its checks in the documented order', () => {
    expect(CHECKS.map((c) => c.id)).toEqual([...CHECK_IDS]);
  });

  it('passes every check for the allowed client, reads only, and never sends an invitation', async () => {
    const { report, stdout, stderr } = await doctor(envFor('demo-allowed'));
    // Every check, the audit's error checks of the (clean) sandbox district included.
    expect(report.checks.filter((c) => c.status !== 'pass').map((c) => c.id)).toEqual([]);
    expect(byId(report).audit).toMatchObject({ status: 'pass', required: true });
    expect(report).toMatchObject({
      ok: true,
      exitCode: 0,
      profile: 'default',
      baseUrl: fixture.sandbox.baseUrl,
    });
    expect(report.checks.map((c) => c.id)).toEqual([...CHECK_IDS]);
    expect(report.checks.every((c) => typeof c.ms === 'number' && c.ms >= 0)).toBe(true);
    const checks = byId(report);
    expect(checks.attendance?.message).toContain('Riverside Unified School District');
    expect(checks['other-auth']).toMatchObject({
      required: false,
      message: 'post works too at oauth, v1p1 and v1p2',
    });
    expect(checks.reachable?.message).toMatch(/plain HTTP to a loopback address/);

    const resource = fixture.sandbox.requests.filter((r) => !r.path.endsWith('/token'));
    expect(resource.every((r) => r.method === 'GET')).toBe(true);
    expect(resource.slice(0, 4).map((r) => `${r.path}?${r.rawQuery}`)).toEqual([
      '/v1/attendance/status?',
      '/v1/enrollment/invitations?perPage=1',
      '/v1/ims/oneroster/v1p1/students?limit=1',
      '/v1/ims/oneroster/v1p2/students?limit=1',
    ]);
    // Then the audit line reads the district of the profile's OneRoster version, each collection its error
    // checks need, page by page.
    expect(new Set(resource.slice(4).map((r) => r.path))).toEqual(
      new Set(
        ['orgs', 'academicSessions', 'courses', 'classes', 'users', 'enrollments'].map(
          (c) => `/v1/ims/oneroster/v1p1/${c}`,
        ),
      ),
    );
    // One token per endpoint with the configured method, one per endpoint with the other; the resource
    // checks reuse the first three. The audit line reads as `roster roster audit` does, through the
    // session (retries, its token cache): one more token, from the version's endpoint. Basic goes to token
    // endpoints only.
    const tokenPaths = fixture.sandbox.requests.filter((r) => r.path.endsWith('/token')).map((r) => r.path);
    expect(tokenPaths.sort()).toEqual(
      [
        ...['/v1/oauth/token', '/v1/ims/oneroster/v1p1/token', '/v1/ims/oneroster/v1p2/token'].flatMap(
          (p) => [p, p],
        ),
        '/v1/ims/oneroster/v1p1/token',
      ].sort(),
    );
    expect(resource.every((r) => String(r.headers.authorization).startsWith('Bearer '))).toBe(true);
    // §4.5: the invitation list gets its token from the OneRoster 1.1 endpoint, like the 1.1 read.
    expect(resource[1]?.headers.authorization).toBe(resource[2]?.headers.authorization);
    expect(resource[0]?.headers.authorization).not.toBe(resource[1]?.headers.authorization);
    expect(fixture.sandbox.outbox).toHaveLength(0);
    expect(`${stdout()}${stderr()}`).not.toContain(secretOf('demo-allowed'));
  });

  it("fails the attendance check with the server's message for the refused client (exit 3)", async () => {
    const { report } = await doctor(envFor('demo-refused'));
    const checks = byId(report);
    expect(checks.attendance).toMatchObject({ status: 'fail', required: true, error: 'forbidden' });
    expect(checks.attendance?.message).toMatch(
      /HTTP 403.*attendance-daily is not enabled for this API client/,
    );
    expect(report.checks.filter((c) => c.status === 'fail').map((c) => c.id)).toEqual(['attendance']);
    expect(report).toMatchObject({ ok: false, exitCode: 3 });
  });

  it('with a wrong secret: the token checks fail with the server message, the rest are skipped (exit 4)', async () => {
    const { report } = await doctor(envFor('demo-allowed', { ROSTER_CLIENT_SECRET: 'wrong' }));
    const checks = byId(report);
    expect(checks['token-oauth']).toMatchObject({ status: 'fail', error: 'auth' });
    expect(checks['token-oauth']?.message).toMatch(/HTTP 401.*invalid_client/);
    expect(checks.attendance).toMatchObject({
      status: 'skip',
      message: 'skipped: no token (see token-oauth)',
    });
    expect(checks['oneroster-1.2']?.message).toBe('skipped: no token (see token-v1p2)');
    expect(checks.clock?.status).toBe('pass'); // a 401 still carries the server's Date
    expect(report.exitCode).toBe(4);
  });

  it('fails fast when the server is down and skips the rest with that reason', async () => {
    const down = await startSandbox();
    const baseUrl = down.baseUrl;
    await down.close();
    // Fast by count: one refused connection, no retry waited, nothing else tried against the down server.
    const waits: number[] = [];
    const { report } = await doctor(
      envFor('demo-allowed', { ROSTER_BASE_URL: baseUrl, ROSTER_TIMEOUT: '5' }),
      {},
      { sleep: (ms) => waits.push(ms) },
    );
    expect(waits).toEqual([]);
    const checks = byId(report);
    expect(checks.reachable).toMatchObject({ status: 'fail', error: 'network' });
    expect(checks.reachable?.message).toMatch(/connection refused/);
    for (const id of CHECK_IDS.slice(2)) {
      expect(checks[id]).toMatchObject({
        status: 'skip',
        message: 'skipped: the base URL is not reachable',
        ms: null,
      });
    }
    expect(report.exitCode).toBe(1);
  });

  it('fails the clock check when this clock is two minutes ahead', async () => {
    const { report } = await doctor(envFor('demo-allowed'), {}, { now: () => Date.now() + 120_000 });
    const clock = byId(report).clock;
    expect(clock).toMatchObject({ status: 'fail', required: true });
    expect(clock?.message).toMatch(/120 s ahead of the server's.*more than 60 s/);
    expect(report.exitCode).toBe(1);
  });

  it('reports whether the other client-auth method works, without making it required', async () => {
    const postRefused = {
      match: (req: { body: Buffer }) => req.body.toString().includes('client_secret='),
      status: 401,
      body: { error: 'invalid_client', error_description: 'Form credentials are not accepted here' },
      times: 3,
    };
    fixture.sandbox.injectFault(postRefused);
    const { report } = await doctor(envFor('demo-allowed'));
    expect(byId(report)['other-auth']).toMatchObject({ status: 'fail', required: false });
    expect(byId(report)['other-auth']?.message).toBe(
      'post: oauth, v1p1, v1p2 refused the request (HTTP 401): Form credentials are not accepted here (invalid_client)',
    );
    expect(report.exitCode).toBe(0);

    fixture.sandbox.injectFault(postRefused);
    const only = await doctor(envFor('demo-allowed'), { only: ['other-auth'] });
    expect(byId(only.report)['other-auth']).toMatchObject({ status: 'fail', required: true });
    expect(only.report.exitCode).toBe(4);
  });

  it('--skip and --only decide which checks run and count', async () => {
    const skipped = await doctor(envFor('demo-refused'), { skip: ['attendance'] });
    expect(byId(skipped.report).attendance).toMatchObject({
      status: 'skip',
      required: false,
      message: 'not selected (--skip)',
    });
    expect(skipped.report.exitCode).toBe(0);
    expect(fixture.sandbox.requests.some((r) => r.path === '/v1/attendance/status')).toBe(false);

    fixture.sandbox.requests.length = 0;
    const only = await doctor(envFor('demo-allowed'), { only: ['oneroster-1.2'] });
    expect(statuses(only.report)).toMatchObject({
      'oneroster-1.2': 'pass',
      config: 'skip',
      'token-oauth': 'skip',
    });
    expect(only.report.checks.filter((c) => c.required).map((c) => c.id)).toEqual(['oneroster-1.2']);
    expect(fixture.sandbox.requests.map((r) => r.path)).toEqual([
      '/v1/ims/oneroster/v1p2/token',
      '/v1/ims/oneroster/v1p2/students',
    ]);
    expect(only.report.exitCode).toBe(0);
  });

  it('without credentials: config fails, the token checks are skipped (exit 4)', async () => {
    const { report } = await doctor({ ROSTER_BASE_URL: fixture.sandbox.baseUrl });
    const checks = byId(report);
    expect(checks.config).toMatchObject({ status: 'fail', error: 'auth' });
    expect(checks.config?.message).toMatch(/No client credentials for profile "default"/);
    expect(checks['token-oauth']?.message).toBe('skipped: no client credentials (see config)');
    expect(checks.attendance?.message).toBe('skipped: no client credentials (see config)');
    expect(report.exitCode).toBe(4);
  });

  it('without a base URL: config fails and names the fix; nothing is sent (exit 4: not logged in)', async () => {
    const { report } = await doctor({});
    expect(byId(report).config).toMatchObject({ status: 'fail', error: 'auth' });
    expect(byId(report).config?.message).toMatch(/No base URL for profile "default".*roster login/);
    expect(byId(report).reachable?.message).toBe('skipped: no base URL is configured');
    expect(report.exitCode).toBe(4);
  });

  it('with ROSTER_TOKEN only: the resource checks use it, the token endpoints cannot be checked', async () => {
    const token = await fetch(`${fixture.sandbox.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `grant_type=client_credentials&client_id=demo-allowed&client_secret=${encodeURIComponent(secretOf('demo-allowed'))}`,
    }).then((r) => r.json() as Promise<{ access_token: string }>);
    const { report, stdout, stderr } = await doctor({
      ROSTER_BASE_URL: fixture.sandbox.baseUrl,
      ROSTER_TOKEN: token.access_token,
    });
    const checks = byId(report);
    expect(checks.config?.message).toMatch(/ROSTER_TOKEN is set/);
    expect(checks.attendance?.status).toBe('pass');
    expect(`${stdout()}${stderr()}`).not.toContain(token.access_token);
  });
});
