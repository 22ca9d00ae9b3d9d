// A secret `roster login` stored in the keychain, in a session that cannot reach the keychain (an SSH
// shell): what to tell the user instead of "no credentials". Loaded only when that happens, which is why
// its one platform branch lives here and not in platform.ts (that module is on every command's start-up).
import { isWindows } from '../platform.js';
import type { Settings } from '../settings.js';
import { KeychainUnavailableError, type SecretStore } from './secret-store.js';

/**
 * The profile's secret is stored (login saved it to the keychain) but this session cannot reach the
 * keychain: say so, and how to reach it, rather than "no credentials" (exit 4 either way).
 */
export function unreachableSecret(
  settings: Settings,
  store: SecretStore,
  error: KeychainUnavailableError,
): KeychainUnavailableError {
  return new KeychainUnavailableError(
    `Profile "${settings.profileName}" keeps its client secret in ${store.description}, which cannot be reached in this session (${error.why}).`,
    error.why,
    `${keychainReachHint(process.platform)}; or set ROSTER_CLIENT_ID and ROSTER_CLIENT_SECRET for this shell.`,
  );
}

/**
 * How to reach a keychain that holds roster's secret but did not answer this session. On Linux that is
 * mostly SSH: no session bus, so no Secret Service; a bus of its own with the keyring unlocked reaches the
 * same keyring files (GNOME Keyring, the usual one; others have their own way).
 */
export function keychainReachHint(platform: NodeJS.Platform): string {
  if (platform === 'linux') {
    return 'Over SSH, reach it from a session bus with the keyring unlocked (`dbus-run-session -- $SHELL`, then `gnome-keyring-daemon --unlock --components=secrets`, type the keyring password and Ctrl-D)';
  }
  if (platform === 'darwin') return 'Unlock it (`security unlock-keychain`)';
  if (isWindows(platform)) return 'Run roster as the Windows user who ran `roster login`';
  return 'Unlock it, or run roster in the session that holds it';
}
