// Finds the client credentials of the active profile: the environment first (nothing written), then
// the store the profile was saved to (keychain by default, or the opt-in file).

import { basicCredential, type ClientCredentials } from '../api/oauth.js';
import type { Context } from '../context.js';
import { AuthError } from '../errors.js';
import { keychainReachHint } from '../platform.js';
import { requireBaseUrl, type Settings } from '../settings.js';
import { createSecretFileStore } from './secret-file.js';
import { KeychainUnavailableError, type SecretStore, secretAccount } from './secret-store.js';

export type SecretSource = 'environment' | 'keychain' | 'file';

export interface ResolvedCredentials extends ClientCredentials {
  source: SecretSource;
}

export async function storeFor(ctx: Context, settings: Settings): Promise<SecretStore> {
  return settings.profile.secretStorage === 'file'
    ? createSecretFileStore(ctx.paths.configDir)
    : ctx.keychain();
}

/** The keychain account of the saved profile: keyed by the base URL it was saved with. */
export function profileAccount(settings: Settings): string | undefined {
  const { clientId, baseUrl } = settings.profile;
  return clientId && baseUrl ? secretAccount(clientId, baseUrl) : undefined;
}

export async function loadCredentials(ctx: Context, settings: Settings): Promise<ResolvedCredentials> {
  if (settings.envCredentials) {
    registerSecrets(ctx, settings.envCredentials);
    return { ...settings.envCredentials, source: 'environment' };
  }
  requireBaseUrl(settings);
  const account = profileAccount(settings);
  const noCredentials = (why: string) =>
    new AuthError(
      `No client credentials for profile "${settings.profileName}": ${why}.`,
      'Run `roster login`, or set ROSTER_CLIENT_ID and ROSTER_CLIENT_SECRET.',
    );
  if (!account || !settings.profile.clientId) throw noCredentials('it has no saved client id');
  const store = await storeFor(ctx, settings);
  const secret = await store.get(account).catch((error: unknown) => {
    throw error instanceof KeychainUnavailableError ? unreachableSecret(settings, store, error) : error;
  });
  if (!secret) throw noCredentials(`no secret in ${store.description}`);
  const credentials = { clientId: settings.profile.clientId, clientSecret: secret };
  registerSecrets(ctx, credentials);
  return { ...credentials, source: settings.profile.secretStorage === 'file' ? 'file' : 'keychain' };
}

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
    `${keychainReachHint()}; or set ROSTER_CLIENT_ID and ROSTER_CLIENT_SECRET for this shell.`,
  );
}

/** The secret and the Basic credential made from it, as a server might echo either back. */
export function registerSecrets(ctx: Context, credentials: ClientCredentials): void {
  ctx.secrets.add(credentials.clientSecret);
  ctx.secrets.add(basicCredential(credentials));
}
