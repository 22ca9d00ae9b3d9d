// Absurd token lifetimes from a hostile token endpoint, and hand-planted cache entries: `token`, `token
// --json` and `status` work on the run that meets them and on the next one (a run of its own, on the same
// HOME: the cache on disk is all they share). The token endpoint is an HttpMock.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run as statusRun } from '../../../src/commands/status.js';
import { run as tokenRun } from '../../../src/commands/token.js';
import { fakeContext, tempDir } from '../../helpers/context.js';
import { json, useHttpMock } from '../../helpers/http-mock.js';
import { rosterInProcess } from '../../helpers/main.js';

const DAY_S = 86_400;
const RAW_HUGE = Symbol('1e400');
const mock = useHttpMock();
let issued = 0;

/** The token endpoint for every run of the test, each answer with this expires_in. */
function tokenEndpoint(expiresIn: unknown): void {
  mock.http.register(
    { method: 'POST', path: '/v1/oauth/token' },
    () => {
      issued++;
      const body: Record<string, unknown> = { access_token: `tok-${issued}-abcdefgh`, token_type: 'bearer' };
      // A JSON number beyond a double: JSON.parse makes it Infinity.
      if (expiresIn === RAW_HUGE)
        return { ...json({}), body: JSON.stringify(body).replace(/}$/, ',"expires_in":1e400}') };
      if (expiresIn !== undefined) body.expires_in = expiresIn;
      return json(body);
    },
    { times: Infinity },
  );
}

const env = {
  ROSTER_BASE_URL: 'https://lifetimes.test/v1',
  ROSTER_CLIENT_ID: 'lifetimes',
  ROSTER_CLIENT_SECRET: 'lifetimes-secret',
};
/** A run of its own on this HOME. */
const runOn = (home: string) => fakeContext({ home, env, transport: mock.http });
const tokenFiles = (home: string) => {
  const dir = join(home, 'cache', 'tokens');
  return readdirSync(dir).map((name) => join(dir, name));
};

/** token, token --json and status, each a run of its own on one HOME; the JSON and status figures. */
async function threeCommands(home: string) {
  const plain = await rosterInProcess(['token'], { home, env, transport: mock.http });
  expect(plain.stderr).toBe('');
  expect(plain.code).toBe(0);
  expect(plain.stdout).toMatch(/^tok-\d+-abcdefgh\n$/);
  const output = await tokenRun({ json: true }, runOn(home).ctx);
  const status = runOn(home);
  const { report, problem } = await statusRun({}, status.ctx);
  expect(problem).toBeUndefined();
  expect(status.stderr()).toBe('');
  return { plain: plain.stdout.trim(), output, report };
}

describe('expires_in from the token endpoint', () => {
  it.each([
    ['huge', 99_999_999_999_999, DAY_S],
    ['huge, as a string', '99999999999999', DAY_S],
    ['a float', 1800.75, 1800],
    ['negative', -5, 3600],
    ['zero', 0, 1],
    ['NaN as a string', 'NaN', 3600],
    ['Infinity as a string', 'Infinity', 3600],
    ['not a number', 'soon', 3600],
    ['1e400 (a JSON number beyond a double)', RAW_HUGE, 3600],
    ['missing', undefined, 3600],
  ])('%s: token, token --json and status work now and on the next run', async (_, value, lifetime) => {
    tokenEndpoint(value);
    const home = tempDir();
    const before = issued;
    const first = await threeCommands(home);
    // The lifetime is clamped: the expiry is a real date at most a day away.
    expect(Date.parse(first.output.expires_at)).toBeGreaterThan(Date.now() - 5_000);
    expect(first.output.expires_in).toBeLessThanOrEqual(lifetime);
    expect(first.output.expires_in).toBeGreaterThanOrEqual(Math.max(0, lifetime - 30));
    expect(Date.parse(first.report.token.expiresAt ?? '')).toBeLessThanOrEqual(Date.now() + lifetime * 1000);
    const second = await threeCommands(home);
    // A usable lifetime (more than a minute) is served from the cache on the next run.
    if (lifetime > 60) {
      expect(first.output.access_token).toBe(first.plain);
      expect(second.output.access_token).toBe(first.output.access_token);
      expect(issued - before).toBe(1);
    }
  });
});

describe('a cache entry that cannot be used', () => {
  it.each([
    ['an expiry past what a Date can hold', { expiresAt: 1e20, expiresIn: 99_999_999_999_999 }],
    ['an expiry ten years away', { expiresAt: Date.now() + 10 * 365 * DAY_S * 1000, expiresIn: 3600 }],
    ['a lifetime that is not a number', { expiresAt: Date.now() + 3_000_000, expiresIn: 'x' }],
  ])('%s is ignored and replaced', async (_, planted) => {
    tokenEndpoint(3600);
    const home = tempDir();
    await threeCommands(home);
    const [file] = tokenFiles(home);
    const entry = JSON.parse(readFileSync(file as string, 'utf8'));
    entry.token = { ...entry.token, accessToken: 'planted-token-value', ...planted };
    writeFileSync(file as string, JSON.stringify(entry));

    const before = issued;
    const { output, report } = await threeCommands(home);
    expect(output.access_token).not.toBe('planted-token-value');
    expect(issued - before).toBe(1);
    expect(output.expires_in).toBeLessThanOrEqual(3600);
    expect(report.token.valid).toBe(true);
    // The replacement is on disk: the next run uses it without a request.
    expect(JSON.parse(readFileSync(file as string, 'utf8')).token.accessToken).toBe(output.access_token);
  });
});
