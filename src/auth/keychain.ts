// The OS keychain through @napi-rs/keyring (prebuilt, no compile step). On Linux the store is pinned to
// the Secret Service: the library's other Linux store is a kernel keyring that forgets on reboot.
// Every call has a timeout, because a locked keyring can wait forever for an unlock dialog.
import { RosterError } from '../errors.js';
import { keychainName } from '../platform.js';
import { KEYCHAIN_SERVICE, type SecretStore } from './secret-store.js';

export const KEYCHAIN_TIMEOUT_MS = 5_000;

export const keychainUnavailableHint =
  'Set ROSTER_CLIENT_ID and ROSTER_CLIENT_SECRET in the environment instead (nothing is stored), ' +
  'or run `roster login --insecure-storage` to keep the secret in a file readable only by you.';

export function createKeychainStore(timeoutMs = KEYCHAIN_TIMEOUT_MS): SecretStore {
  const description = keychainName();

  async function call<T>(what: string, run: (entry: KeyringEntry, signal: AbortSignal) => Promise<T>) {
    let keyring: typeof import('@napi-rs/keyring');
    try {
      keyring = await import('@napi-rs/keyring');
    } catch (error) {
      throw unavailable(`its binding could not be loaded (${(error as Error).message})`);
    }
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(unavailable(`it did not answer within ${timeoutMs / 1000} s (is it locked?)`));
      }, timeoutMs);
    });
    try {
      const entry = (account: string) =>
        new keyring.AsyncEntry(KEYCHAIN_SERVICE, account, { linux: { store: 'secret-service' } });
      return await Promise.race([run(entry, controller.signal), timeout]);
    } catch (error) {
      if (error instanceof RosterError) throw error;
      throw unavailable(`${what} failed: ${firstLine((error as Error).message)}`);
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    description,
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

type KeyringEntry = (account: string) => import('@napi-rs/keyring').AsyncEntry;

function unavailable(why: string): RosterError {
  return new RosterError('failure', `The system keychain is not available: ${why}.`, keychainUnavailableHint);
}

const firstLine = (text: string) => text.split('\n')[0] ?? text;
