// Settings precedence: flags > ROSTER_* environment > saved profile > defaults.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Profile, saveConfig } from '../../src/config-file.js';
import { RosterError } from '../../src/errors.js';
import { DEFAULT_TIMEOUT_MS, requireBaseUrl, resolveSettings } from '../../src/settings.js';
import { printable } from '../../src/values.js';
import { tempDir } from '../helpers/context.js';

async function configDir(profiles: Record<string, Profile> = {}): Promise<string> {
  const dir = join(tempDir(), 'config');
  await saveConfig(dir, { profiles });
  return dir;
}

const saved: Profile = {
  baseUrl: 'https://saved.example/v1',
  clientId: 'saved-id',
  clientAuth: 'post',
  oneroster: '1.2',
};

async function usageError(promise: Promise<unknown>): Promise<RosterError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RosterError);
  expect((error as RosterError).code).toBe('usage');
  return error as RosterError;
}

describe('resolveSettings', () => {
  it('falls back to the defaults with no flags, environment or profile', async () => {
    const settings = await resolveSettings({}, {}, await configDir());
    expect(settings).toMatchObject({
      profileName: 'default',
      profile: {},
      baseUrl: undefined,
      clientId: undefined,
      clientAuth: 'basic',
      oneroster: '1.1',
      timeoutMs: DEFAULT_TIMEOUT_MS,
      envCredentials: undefined,
      envToken: undefined,
    });
    expect(() => requireBaseUrl(settings)).toThrow(/No base URL for profile "default"/);
  });

  it('uses the saved profile when neither flags nor environment say otherwise', async () => {
    const settings = await resolveSettings({}, {}, await configDir({ default: saved }));
    expect(settings).toMatchObject({
      baseUrl: 'https://saved.example/v1',
      clientId: 'saved-id',
      clientAuth: 'post',
      oneroster: '1.2',
    });
  });

  it('lets the environment override the profile, and flags override the environment', async () => {
    const dir = await configDir({ default: saved });
    const env = {
      ROSTER_BASE_URL: 'https://env.example/v1/',
      ROSTER_CLIENT_AUTH: 'basic',
      ROSTER_ONEROSTER: '1.1',
      ROSTER_TIMEOUT: '5',
    };
    expect(await resolveSettings({}, env, dir)).toMatchObject({
      baseUrl: 'https://env.example/v1',
      clientAuth: 'basic',
      oneroster: '1.1',
      timeoutMs: 5000,
    });
    const flags = { baseUrl: 'http://127.0.0.1:9/v1', clientAuth: 'post', oneroster: '1.2', timeout: '0.5' };
    expect(await resolveSettings(flags, env, dir)).toMatchObject({
      baseUrl: 'http://127.0.0.1:9/v1',
      clientAuth: 'post',
      oneroster: '1.2',
      timeoutMs: 500,
    });
  });

  it('ignores empty environment variables', async () => {
    const dir = await configDir({ default: saved });
    const settings = await resolveSettings(
      {},
      { ROSTER_BASE_URL: '', ROSTER_CLIENT_AUTH: '', ROSTER_PROFILE: '', ROSTER_TOKEN: '' },
      dir,
    );
    expect(settings.baseUrl).toBe('https://saved.example/v1');
    expect(settings.clientAuth).toBe('post');
    expect(settings.envToken).toBeUndefined();
  });

  it('reads the profile named by --profile, then ROSTER_PROFILE', async () => {
    const dir = await configDir({ default: saved, east: { baseUrl: 'https://east.example/v1' } });
    expect((await resolveSettings({ profile: 'east' }, {}, dir)).baseUrl).toBe('https://east.example/v1');
    expect((await resolveSettings({}, { ROSTER_PROFILE: 'east' }, dir)).baseUrl).toBe(
      'https://east.example/v1',
    );
    expect((await resolveSettings({ profile: 'default' }, { ROSTER_PROFILE: 'east' }, dir)).baseUrl).toBe(
      'https://saved.example/v1',
    );
    await usageError(resolveSettings({ profile: '../etc' }, {}, dir));
  });

  it('takes environment credentials only as a pair, and they win over the profile client id', async () => {
    const dir = await configDir({ default: saved });
    const both = await resolveSettings(
      {},
      { ROSTER_CLIENT_ID: 'env-id', ROSTER_CLIENT_SECRET: 's3cret' },
      dir,
    );
    expect(both.envCredentials).toEqual({ clientId: 'env-id', clientSecret: 's3cret' });
    expect(both.clientId).toBe('env-id');

    const onlyId = await usageError(resolveSettings({}, { ROSTER_CLIENT_ID: 'env-id' }, dir));
    expect(onlyId.message).toBe('ROSTER_CLIENT_ID is set but ROSTER_CLIENT_SECRET is not.');
    const onlySecret = await usageError(resolveSettings({}, { ROSTER_CLIENT_SECRET: 's3cret' }, dir));
    expect(onlySecret.message).toBe('ROSTER_CLIENT_SECRET is set but ROSTER_CLIENT_ID is not.');
    // The secret value never appears in the message.
    expect(`${onlySecret.message} ${onlySecret.hint}`).not.toContain('s3cret');
    const emptySecret = await usageError(
      resolveSettings({}, { ROSTER_CLIENT_ID: 'env-id', ROSTER_CLIENT_SECRET: '' }, dir),
    );
    expect(emptySecret.message).toMatch(/ROSTER_CLIENT_SECRET is not/);
  });

  it('reads a ready access token from ROSTER_TOKEN', async () => {
    const settings = await resolveSettings({}, { ROSTER_TOKEN: 'ready-token-123' }, await configDir());
    expect(settings.envToken).toBe('ready-token-123');
  });

  it('refuses invalid values and names where they came from', async () => {
    const dir = await configDir({ default: { ...saved, clientAuth: 'digest' as 'basic' } });
    // A flag wins before the bad saved value is even looked at.
    expect((await resolveSettings({ clientAuth: 'basic' }, {}, dir)).clientAuth).toBe('basic');
    expect((await usageError(resolveSettings({}, {}, dir))).message).toBe(
      'Invalid value "digest" from profile "default" clientAuth: expected basic or post.',
    );
    expect(
      (await usageError(resolveSettings({}, { ROSTER_ONEROSTER: '2.0' }, await configDir()))).message,
    ).toBe('Invalid value "2.0" from ROSTER_ONEROSTER: expected 1.1 or 1.2.');
    for (const timeout of ['0', '0.0001', '-1', 'abc', '3601', '1e3', '']) {
      const error = await usageError(resolveSettings({ timeout }, {}, await configDir()));
      expect(error.message).toMatch(/^Invalid timeout/);
    }
    const badUrl = await usageError(resolveSettings({}, { ROSTER_BASE_URL: 'http://api.example/v1' }, dir));
    expect(badUrl.message).toMatch(/Refusing plain http:\/\/ to api\.example/);
    const badFlagUrl = await usageError(resolveSettings({ baseUrl: 'not a url' }, {}, dir));
    expect(badFlagUrl.message).toMatch(/from --base-url/);
  });
});

describe('printable', () => {
  it('shows control and invisible characters as visible escapes and bounds the length', () => {
    expect(printable('a\u001b[31mb\nc')).toBe('a\\u001b[31mb\\nc');
    expect(printable('sch-1\u200b\u202e\u009b')).toBe('sch-1\\u200b\\u202e\\u009b');
    expect(printable('x'.repeat(100), 10)).toBe(`${'x'.repeat(10)}…`);
  });
});

describe('scopes per token use', () => {
  const none = {
    general: undefined,
    invitations: undefined,
    'oneroster-1.1': undefined,
    'oneroster-1.2': undefined,
  };

  it('sends none by default', async () => {
    expect((await resolveSettings({}, {}, await configDir())).scopes).toEqual(none);
  });

  it('takes the profile: the key of one use over the shared one (scope, onerosterScope)', async () => {
    const dir = await configDir({
      default: {
        scope: 'attendance',
        onerosterScope: 'core',
        scopes: { invitations: 'invite', 'oneroster-1.2': 'v1p2/roster.readonly' },
      },
    });
    expect((await resolveSettings({}, {}, dir)).scopes).toEqual({
      general: 'attendance',
      invitations: 'invite',
      'oneroster-1.1': 'core',
      'oneroster-1.2': 'v1p2/roster.readonly',
    });
  });

  it('lets ROSTER_SCOPE and ROSTER_ONEROSTER_SCOPE win over every profile key (an empty one does not count)', async () => {
    const dir = await configDir({
      default: { scope: 'a', onerosterScope: 'b', scopes: { invitations: 'c', 'oneroster-1.1': 'd' } },
    });
    const env = { ROSTER_SCOPE: 'env-general', ROSTER_ONEROSTER_SCOPE: 'env-or' };
    expect((await resolveSettings({}, env, dir)).scopes).toEqual({
      general: 'env-general',
      invitations: 'env-general',
      'oneroster-1.1': 'env-or',
      'oneroster-1.2': 'env-or',
    });
    expect((await resolveSettings({}, { ROSTER_SCOPE: '' }, dir)).scopes.general).toBe('a');
  });

  it.each([
    [{ ROSTER_SCOPE: 'a\nb' }, {}, /Invalid scope "a\\nb" from ROSTER_SCOPE/],
    [{ ROSTER_ONEROSTER_SCOPE: 'two  spaces' }, {}, /from ROSTER_ONEROSTER_SCOPE/],
    [{}, { scopes: { 'oneroster-1.2': 'say "hi"' } }, /from profile "default" scopes.oneroster-1.2/],
  ])('refuses a scope no token request can carry (%j %j)', async (env, profile, message) => {
    const error = await usageError(
      resolveSettings({}, env, await configDir({ default: profile as Profile })),
    );
    expect(error.message).toMatch(message);
  });
});
