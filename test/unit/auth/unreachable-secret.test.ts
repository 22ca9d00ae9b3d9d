// What a session that cannot reach the keychain holding a profile's secret is told, on each platform.
import { describe, expect, it } from 'vitest';
import { KeychainUnavailableError } from '../../../src/auth/secret-store.js';
import { keychainReachHint, unreachableSecret } from '../../../src/auth/unreachable-secret.js';
import { resolveSettings } from '../../../src/settings.js';
import { MemoryKeychain, tempDir } from '../../helpers/context.js';

describe('a stored secret out of reach', () => {
  it('names the profile, the store and why, and keeps exit 4 (auth)', async () => {
    const settings = await resolveSettings({ profile: 'east' }, {}, tempDir());
    const error = unreachableSecret(
      settings,
      new MemoryKeychain(),
      new KeychainUnavailableError('No system keychain can be reached.', 'no Secret Service'),
    );
    expect(error.code).toBe('auth');
    expect(error.message).toBe(
      'Profile "east" keeps its client secret in the test keychain, which cannot be reached in this session (no Secret Service).',
    );
    expect(error.hint).toMatch(/; or set ROSTER_CLIENT_ID and ROSTER_CLIENT_SECRET for this shell\.$/);
  });

  it.each([
    ['linux', /dbus-run-session -- \$SHELL.*gnome-keyring-daemon --unlock --components=secrets/],
    ['darwin', /security unlock-keychain/],
    ['win32', /Windows user who ran `roster login`/],
    ['freebsd', /Unlock it/],
  ] as const)('says how to reach it on %s', (platform, hint) => {
    expect(keychainReachHint(platform)).toMatch(hint);
  });
});
