// `roster logout`: forget the stored secret and cached tokens of a profile. Issued tokens cannot be
// recalled: they stay valid until they expire, and the user is told so.
import type { Command } from 'commander';
import { profileAccount, storeFor } from '../auth/credentials.js';
import { TokenCache } from '../auth/token-cache.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import type { Settings } from '../settings.js';
import { examples, loadSettings } from './common.js';

export interface LogoutResult {
  profile: string;
  secretRemovedFrom?: string;
  tokensRemoved: number;
}

export async function run(settings: Settings, ctx: Context): Promise<LogoutResult> {
  const { clientId, baseUrl } = settings.profile;
  const account = profileAccount(settings);
  if (!account || !clientId || !baseUrl) {
    throw new UsageError(`Profile "${settings.profileName}" is not logged in: nothing to remove.`);
  }
  const store = await storeFor(ctx, settings);
  const removed = await store.delete(account);
  const tokensRemoved = await new TokenCache(`${ctx.paths.cacheDir}/tokens`).removeAll(baseUrl, clientId);
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
    .action(async (_options: unknown, cmd: Command) => {
      const result = await run(await loadSettings(ctx, cmd), ctx);
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
