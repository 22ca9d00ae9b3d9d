// `roster logout`: forget the stored secret and cached tokens of a profile. Issued tokens cannot be
// recalled: they stay valid until they expire, and the user is told so.
import type { Command } from 'commander';
import { profileAccount, profilesSharingSecret, storeFor } from '../auth/credentials.js';
import { KeychainUnavailableError } from '../auth/secret-store.js';
import { TokenCache } from '../auth/token-cache.js';
import { updateConfig } from '../config-file.js';
import type { Context } from '../context.js';
import { RosterError, UsageError } from '../errors.js';
import type { Settings } from '../settings.js';
import { examples } from './common.js';

export interface LogoutResult {
  profile: string;
  secretRemovedFrom?: string;
  /** Other profiles with the same client id and base URL: the secret is theirs too, and is kept. */
  secretKeptFor?: string[];
  tokensRemoved: number;
}

/** No options: the profile is the run's (--profile, ROSTER_PROFILE, the default). */
export type LogoutOptions = Record<string, never>;

export async function run(_options: LogoutOptions, ctx: Context): Promise<LogoutResult> {
  const settings = await ctx.settings();
  const { clientId, baseUrl } = settings.profile;
  const account = profileAccount(settings);
  if (!account || !clientId || !baseUrl) {
    throw new UsageError(`Profile "${settings.profileName}" is not logged in: nothing to remove.`);
  }
  // The cached tokens go first: a keychain this session cannot reach must not leave them usable.
  const tokensRemoved = await new TokenCache(`${ctx.paths.cacheDir}/tokens`).removeProfile(
    settings.profileName,
    { baseUrl, clientId },
  );
  // Another profile with the same client id and base URL has the same secret: removing it would log that
  // one out too. This profile lets go of it instead: without a client id it is logged out (config.ts).
  const sharing = profilesSharingSecret(settings, account, settings.profile.secretStorage === 'file');
  if (sharing.length > 0) {
    const { profileName } = settings;
    await updateConfig(ctx.paths.configDir, (latest) => {
      const { clientId: _forgotten, ...kept } = latest.profiles[profileName] ?? {};
      return { ...latest, profiles: { ...latest.profiles, [profileName]: kept } };
    });
    return { profile: profileName, secretKeptFor: sharing, tokensRemoved };
  }
  const secretRemovedFrom = await deleteSecret(ctx, settings, account, {
    done: `Removed ${tokensRemoved} cached token(s) of profile "${settings.profileName}"`,
    retry: 'roster logout',
  });
  return { profile: settings.profileName, secretRemovedFrom, tokensRemoved };
}

/**
 * Deletes a profile's secret from its store (the keychain or the file); returns where it was, or undefined
 * when none was found. A keychain out of reach fails with what was `done` already and the command to `retry`.
 */
export async function deleteSecret(
  ctx: Context,
  settings: Settings,
  account: string,
  says: { done: string; retry: string },
): Promise<string | undefined> {
  const store = await storeFor(ctx, settings);
  try {
    return (await store.delete(account)) ? store.description : undefined;
  } catch (error) {
    if (!(error instanceof KeychainUnavailableError)) throw error;
    const { keychainReachHint } = await import('../auth/unreachable-secret.js');
    throw new RosterError(
      'failure',
      `${says.done}, but not its client secret: ${store.description} cannot be reached in this session (${error.why}).`,
      `${keychainReachHint(process.platform)}, then run \`${says.retry}\` again.`,
    );
  }
}

export function register(program: Command, ctx: Context): void {
  const command = program
    .command('logout')
    .summary('remove the stored client secret and cached tokens of a profile')
    .action(async () => {
      const result = await run({}, ctx);
      const kept = result.secretKeptFor;
      const removed = kept
        ? `Removed the client id and ${result.tokensRemoved} cached token(s) of profile "${result.profile}". The client secret is kept for profile ${kept.map((name) => `"${name}"`).join(', ')}, which uses the same client id and base URL.`
        : `${result.secretRemovedFrom ? `Removed the client secret from ${result.secretRemovedFrom}` : 'No stored client secret was found'} and ${result.tokensRemoved} cached token(s) of profile "${result.profile}".`;
      ctx.log.info(`${removed}\nTokens already issued stay valid until they expire (at most one hour).`);
    });
  examples(command, [
    '# On a terminal',
    'roster logout',
    '# In a script',
    'roster logout --profile "$DISTRICT" --no-input',
  ]);
}
