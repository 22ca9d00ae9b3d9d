// `roster logout`: forget the stored secret and cached tokens of a profile. Issued tokens cannot be
// recalled: they stay valid until they expire, and the user is told so.
import type { Command } from 'commander';
import { profileAccount, storeFor } from '../auth/credentials.js';
import { KeychainUnavailableError } from '../auth/secret-store.js';
import { TokenCache } from '../auth/token-cache.js';
import type { Context } from '../context.js';
import { RosterError, UsageError } from '../errors.js';
import { examples } from './common.js';

export interface LogoutResult {
  profile: string;
  secretRemovedFrom?: string;
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
  const tokensRemoved = await new TokenCache(`${ctx.paths.cacheDir}/tokens`).removeAll(baseUrl, clientId);
  const store = await storeFor(ctx, settings);
  let removed: boolean;
  try {
    removed = await store.delete(account);
  } catch (error) {
    if (!(error instanceof KeychainUnavailableError)) throw error;
    const { keychainReachHint } = await import('../auth/unreachable-secret.js');
    throw new RosterError(
      'failure',
      `Removed ${tokensRemoved} cached token(s) of profile "${settings.profileName}", but not its client secret: ${store.description} cannot be reached in this session (${error.why}).`,
      `${keychainReachHint(process.platform)}, then run \`roster logout\` again.`,
    );
  }
  return {
    profile: settings.profileName,
    secretRemovedFrom: removed ? store.description : undefined,
    tokensRemoved,
  };
}

export function register(program: Command, ctx: Context): void {
  const command = program
    .command('logout')
    .summary('remove the stored client secret and cached tokens of a profile')
    .action(async () => {
      const result = await run({}, ctx);
      ctx.log.info(
        `${result.secretRemovedFrom ? `Removed the client secret from ${result.secretRemovedFrom}` : 'No stored client secret was found'} ` +
          `and ${result.tokensRemoved} cached token(s) of profile "${result.profile}".\n` +
          'Tokens already issued stay valid until they expire (at most one hour).',
      );
    });
  examples(command, [
    '# On a terminal',
    'roster logout',
    '# In a script',
    'roster logout --profile "$DISTRICT" --no-input',
  ]);
}
