// ROSTER_TOKEN, a ready token a script got elsewhere: sent as it is. A current token from another endpoint
// than the request's use needs is refused like an expired one, and the message says which to get.
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { demoEnv, useSandbox } from '../helpers/sandbox.js';

const fixture = useSandbox();

async function tokenFrom(endpointArgs: string[]): Promise<string> {
  const result = await runCli(['token', ...endpointArgs], fixture.home, { env: demoEnv(fixture.sandbox) });
  expect(result.code, result.stderr).toBe(0);
  return result.stdout.trim();
}

describe('ROSTER_TOKEN from the wrong endpoint', () => {
  it('a general token for a OneRoster read: exit 4, naming the command that prints the right one, which works', async () => {
    const env = { ROSTER_BASE_URL: fixture.sandbox.baseUrl };
    const general = await tokenFrom([]);
    const refused = await runCli(['roster', 'students', '--limit', '1'], fixture.home, {
      env: { ...env, ROSTER_TOKEN: general },
    });
    expect(refused.code).toBe(4);
    expect(refused.stderr).toContain(
      'The API rejected the access token from ROSTER_TOKEN (HTTP 401) for a OneRoster 1.1 request.',
    );
    expect(refused.stderr).toContain(
      '(`env -u ROSTER_TOKEN roster token --endpoint v1p1` prints one). Unset, roster gets the right token itself.',
    );
    expect(refused.stderr).not.toContain(general);
    // The command as the hint gives it, in the same environment: ROSTER_TOKEN left out.
    const right = await tokenFrom(['--endpoint', 'v1p1']);
    const echoed = await runCli(['token', '--endpoint', 'v1p1'], fixture.home, {
      env: { ...demoEnv(fixture.sandbox), ROSTER_TOKEN: general },
    });
    expect(echoed.stdout.trim()).toBe(general); // why the hint says env -u ROSTER_TOKEN
    const read = await runCli(['roster', 'students', '--limit', '1'], fixture.home, {
      env: { ...env, ROSTER_TOKEN: right },
    });
    expect(read.code, read.stderr).toBe(0);
  });
});
