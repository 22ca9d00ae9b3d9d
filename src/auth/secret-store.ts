// Where a client secret can be kept. The keychain is the default; a 0600 file is an explicit opt-in.
export interface SecretStore {
  /** Human name for messages, e.g. "the system keychain (Secret Service)". */
  readonly description: string;
  get(account: string): Promise<string | undefined>;
  set(account: string, secret: string): Promise<void>;
  /** True when something was removed. */
  delete(account: string): Promise<boolean>;
}

export const KEYCHAIN_SERVICE = 'roster';

/** The keychain account of a profile's secret: readable in a keyring manager, unique per district. */
export const secretAccount = (clientId: string, baseUrl: string) => `${clientId}@${baseUrl}`;
