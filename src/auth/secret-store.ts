// Where a client secret can be kept. The keychain is the default; a 0600 file is an explicit opt-in.
import { RosterError } from '../errors.js';

export interface SecretStore {
  /** Human name for messages, e.g. "the system keychain (Secret Service)". */
  readonly description: string;
  get(account: string): Promise<string | undefined>;
  set(account: string, secret: string): Promise<void>;
  /** True when something was removed. */
  delete(account: string): Promise<boolean>;
}

/** The OS keychain: a store that may be missing altogether (Linux over SSH has no Secret Service). */
export interface KeychainStore extends SecretStore {
  /** Resolves when the keychain answers; throws KeychainUnavailableError when it cannot be reached. */
  probe(): Promise<void>;
}

/**
 * The keychain cannot be reached: no Secret Service in this session (SSH), no answer (locked), no binding.
 * Exit 4 as the contract says for "a stored secret that cannot be reached": roster is not logged in here.
 * The message is one sentence a user can act on; the keychain's own words go to --debug only.
 */
export class KeychainUnavailableError extends RosterError {
  constructor(
    message: string,
    /** Why, in a few words for a parenthesis: "no Secret Service, as is usual over SSH". */
    readonly why: string,
    hint?: string,
  ) {
    super('auth', message, hint);
    this.name = 'KeychainUnavailableError';
  }
}

export const KEYCHAIN_SERVICE = 'roster';

/** The keychain account of a profile's secret: readable in a keyring manager, unique per district. */
export const secretAccount = (clientId: string, baseUrl: string) => `${clientId}@${baseUrl}`;
