// Finds the client credentials of the active profile: the environment first (nothing written), then
// the store the profile was saved to (keychain by default, or the opt-in file).

import { basicCredential, type ClientCredentials } from '../api/oauth.js';
import { AuthError } from '../errors.js';
import type { Paths } from '../paths.js';
import type { Redactor } from '../redact.js';
import { loginHint, requireBaseUrl, type Settings } from '../settings.js';
import { createSecretFileStore } from './secret-file.js';
import {
  type KeychainStore,
  KeychainUnavailableError,
  type SecretStore,
  secretAccount,
} from './secret-store.js';

/** What finding credentials needs of a command's context (a Context is one). */
export interface CredentialsContext {
  paths: Paths;
  keychain(): Promise<KeychainStore>;
  secrets: Redactor;
}

export type SecretSource = 'environment' | 'keychain' | 'file';

export interface ResolvedCredentials extends ClientCredentials {
  source: SecretSource;
}

export async function storeFor(ctx: CredentialsContext, settings: Settings): Promise<SecretStore> {
  return settings.profile.secretStorage === 'file'
    ? createSecretFileStore(ctx.paths.configDir)
    : ctx.keychain();
}

/** The keychain account of the saved profile: keyed by the base URL it was saved with. */
export function profileAccount(settings: Settings): string | undefined {
  const { clientId, baseUrl } = settings.profile;
  return clientId && baseUrl ? secretAccount(clientId, baseUrl) : undefined;
}

/**
 * The other profiles whose secret is the one `account` names in the same store (the same client id and base
 * URL, saved in the keychain or both in the file): removing it would log them out too.
 */
export function profilesSharingSecret(settings: Settings, account: string, inFile: boolean): string[] {
  return Object.entries(settings.config.profiles)
    .filter(
      ([name, p]) =>
        name !== settings.profileName &&
        p.clientId &&
        p.baseUrl &&
        secretAccount(p.clientId, p.baseUrl) === account &&
        (p.secretStorage === 'file') === inFile,
    )
    .map(([name]) => name);
}

export async function loadCredentials(
  ctx: CredentialsContext,
  settings: Settings,
): Promise<ResolvedCredentials> {
  if (settings.envCredentials) {
    registerSecrets(ctx, settings.envCredentials);
    return { ...settings.envCredentials, source: 'environment' };
  }
  requireBaseUrl(settings);
  const account = profileAccount(settings);
  const noCredentials = (why: string) =>
    new AuthError(
      `No client credentials for profile "${settings.profileName}": ${why}.`,
      loginHint(settings, 'set ROSTER_CLIENT_ID and ROSTER_CLIENT_SECRET'),
    );
  if (!account || !settings.profile.clientId) throw noCredentials('it has no saved client id');
  const store = await storeFor(ctx, settings);
  const secret = await store.get(account).catch(async (error: unknown) => {
    if (!(error instanceof KeychainUnavailableError)) throw error;
    // Loaded only here: its words stay off the start-up path of every command.
    throw (await import('./unreachable-secret.js')).unreachableSecret(settings, store, error);
  });
  if (!secret) throw noCredentials(`no secret in ${store.description}`);
  const credentials = { clientId: settings.profile.clientId, clientSecret: secret };
  registerSecrets(ctx, credentials);
  return { ...credentials, source: settings.profile.secretStorage === 'file' ? 'file' : 'keychain' };
}

/** The secret and the Basic credential made from it, as a server might echo either back. */
export function registerSecrets(ctx: CredentialsContext, credentials: ClientCredentials): void {
  ctx.secrets.add(credentials.clientSecret);
  ctx.secrets.add(basicCredential(credentials));
}
