// The OS keychain through @napi-rs/keyring (prebuilt, no compile step). On Linux the store is pinned to
// the Secret Service: the library's other Linux store is a kernel keyring that forgets on reboot.
// Every call has a timeout, because a locked keyring can wait forever for an unlock dialog.

import { RosterError } from '../errors.js';
import type { Logger } from '../output/log.js';
import { keychainName } from '../platform.js';
import { type Keyring, loadKeyring } from './keyring-binding.js';
import { KEYCHAIN_SERVICE, type KeychainStore, KeychainUnavailableError } from './secret-store.js';

export const KEYCHAIN_TIMEOUT_MS = 5_000;

export const keychainUnavailableHint =
  'Set ROSTER_CLIENT_ID and ROSTER_CLIENT_SECRET in the environment instead (nothing is stored), ' +
  'or run `roster login --insecure-storage` to keep the secret in a file readable only by you.';

/** An account no profile has (a profile's is `client@https://…`): reading it proves the keychain answers. */
const PROBE_ACCOUNT = 'roster-keychain-probe';

export interface KeychainOptions {
  timeoutMs?: number;
  /** Where the keychain's own error text goes: --debug only (it is D-Bus jargon on Linux). */
  log?: Pick<Logger, 'debug'>;
}

export function createKeychainStore(options: KeychainOptions = {}): KeychainStore {
  const { timeoutMs = KEYCHAIN_TIMEOUT_MS, log } = options;
  const description = keychainName();
  const name = description.charAt(0).toUpperCase() + description.slice(1);

  const unavailable = (message: string, why: string, detail: string) => {
    log?.debug(`keychain: ${detail}`);
    return new KeychainUnavailableError(message, why, keychainUnavailableHint);
  };

  async function call<T>(what: string, run: (entry: KeyringEntry, signal: AbortSignal) => Promise<T>) {
    let keyring: Keyring;
    try {
      keyring = await loadKeyring();
    } catch (error) {
      // The standalone executable's addon copy in a folder roster will not trust: that error says the fix.
      if (error instanceof RosterError) throw error;
      throw unavailable(
        `${name} cannot be used: its binding could not be loaded.`,
        'its binding could not be loaded',
        `loading @napi-rs/keyring failed: ${(error as Error).message}`,
      );
    }
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(
          unavailable(
            `${name} did not answer within ${timeoutMs / 1000} s (is it locked?).`,
            `it did not answer within ${timeoutMs / 1000} s; is it locked?`,
            `${what} timed out`,
          ),
        );
      }, timeoutMs);
    });
    try {
      const entry = (account: string) =>
        new keyring.AsyncEntry(KEYCHAIN_SERVICE, account, { linux: { store: 'secret-service' } });
      return await Promise.race([run(entry, controller.signal), timeout]);
    } catch (error) {
      throw error instanceof RosterError ? error : unavailable(...failureWords(error as Error, what, name));
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    description,
    probe: async () => {
      await call('reading a secret', (entry, signal) => entry(PROBE_ACCOUNT).getPassword(signal));
    },
    get: (account) =>
      call(
        'reading the secret',
        async (entry, signal) => (await entry(account).getPassword(signal)) ?? undefined,
      ),
    set: (account, secret) =>
      call('saving the secret', (entry, signal) => entry(account).setPassword(secret, signal)),
    delete: (account) =>
      call('removing the secret', (entry, signal) => entry(account).deletePassword(signal)),
  };
}

/** A keychain call that failed, in roster's words: what to say, why, and the keychain's own (--debug). */
function failureWords(
  error: Error,
  what: string,
  name: string,
): [message: string, why: string, detail: string] {
  const detail = `${what} failed: ${error.message}`;
  // No session bus, or no Secret Service on it: the SSH case. Its D-Bus wording helps no one.
  if (NO_SERVICE.test(error.message)) {
    return [`No system keychain can be reached in this session (${NO_SERVICE_WHY}).`, NO_SERVICE_WHY, detail];
  }
  const said = firstLine(error.message);
  return [`${name} failed ${what}: ${said}.`, `${what} failed: ${said}`, detail];
}

type KeyringEntry = (account: string) => InstanceType<Keyring['AsyncEntry']>;

/**
 * The library's words for "no session bus" (unset: autolaunch; set but dead: the socket) or "nobody
 * provides org.freedesktop.secrets on it". Any other D-Bus error (a sandbox's AccessDenied, a keyring
 * that lacks a method) is a keychain that is there but failed, and is said as it is.
 */
const NO_SERVICE =
  /autolaunch|DBUS_SESSION_BUS_ADDRESS|Failed to connect to socket|org\.freedesktop\.secrets|ServiceUnknown/i;
const NO_SERVICE_WHY = 'no Secret Service, as is usual over SSH';

const firstLine = (text: string) => (text.split('\n')[0] ?? text).replace(/[.\s]+$/, '');
