// ROSTER_TOKEN, a ready token a script got elsewhere: sent as it is. A current token from another endpoint
// than the request's use needs is refused like an expired one, and the message says which to get. The
// server is an HttpMock that takes each token only where it was issued for; each run is in this process.
import { describe, expect, it } from 'vitest';
import { bearer, json, tokenReply, useHttpMock } from '../../helpers/http-mock.js';
import { rosterInProcess } from '../../helpers/main.js';

const mock = useHttpMock();
const BASE = 'https://api.test/v1';
const STUDENTS = '/v1/ims/oneroster/v1p1/students';
const credentials = {
  ROSTER_BASE_URL: BASE,
  ROSTER_CLIENT_ID: 'demo-allowed',
  ROSTER_CLIENT_SECRET: 's3cret-x',
};
const roster = (argv: string[], env: Record<string, string>) =>
  rosterInProcess(argv, { env, transport: mock.http });

describe('ROSTER_TOKEN from the wrong endpoint', () => {
  it('a general token for a OneRoster read: exit 4, naming the command that prints the right one, which works', async () => {
    mock.http
      .register({ method: 'POST', path: '/v1/oauth/token' }, tokenReply('general-token-1234'))
      .register({ method: 'POST', path: '/v1/ims/oneroster/v1p1/token' }, tokenReply('oneroster-token-5678'))
      .register(
        { method: 'GET', path: STUDENTS, where: bearer('general-token-1234') },
        json({ imsx_codeMajor: 'failure', imsx_description: 'invalid token' }, 401),
      )
      .register(
        { method: 'GET', path: STUDENTS, where: bearer('oneroster-token-5678') },
        json({ users: [{ sourcedId: 'stu-1', givenName: 'Ada', familyName: 'Lovelace', role: 'student' }] }),
      );
    const general = await roster(['token'], credentials);
    expect(general.code, general.stderr).toBe(0);
    const token = general.stdout.trim();
    const refused = await roster(['roster', 'students', '--limit', '1'], {
      ROSTER_BASE_URL: BASE,
      ROSTER_TOKEN: token,
    });
    expect(refused.code).toBe(4);
    expect(refused.stderr).toContain(
      'The API rejected the access token from ROSTER_TOKEN (HTTP 401) for a OneRoster 1.1 request.',
    );
    expect(refused.stderr).toContain(
      '(`env -u ROSTER_TOKEN roster token --endpoint v1p1` prints one). Unset, roster gets the right token itself.',
    );
    expect(refused.stderr).not.toContain(token);
    // The command as the hint gives it, in the same environment: ROSTER_TOKEN left out.
    const right = (await roster(['token', '--endpoint', 'v1p1'], credentials)).stdout.trim();
    const echoed = await roster(['token', '--endpoint', 'v1p1'], { ...credentials, ROSTER_TOKEN: token });
    expect(echoed.stdout.trim()).toBe(token); // why the hint says env -u ROSTER_TOKEN
    const read = await roster(['roster', 'students', '--limit', '1'], {
      ROSTER_BASE_URL: BASE,
      ROSTER_TOKEN: right,
    });
    expect(read.code, read.stderr).toBe(0);
    expect(read.stdout).toContain('stu-1');
  });
});
