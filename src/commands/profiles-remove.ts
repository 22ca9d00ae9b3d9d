// `roster profiles remove NAME`: the profile leaves the config file with its cached tokens, its cached
// lists of schools (which shell completion offers) and its client secret, unless another profile still uses that secret (the same client id and base URL in the same store,
// as `roster logout` decides), which keeps it.
import { profileAccount, profilesSharingSecret } from '../auth/credentials.js';
import { TokenCache } from '../auth/token-cache.js';
import { loadConfig, updateConfig } from '../config-file.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { removeSchoolsCaches } from '../schools/cache.js';
import { resolveSettings } from '../settings.js';
import { printable } from '../values.js';
import { deleteSecret } from './logout.js';

export interface RemoveProfileResult {
  profile: string;
  tokensRemoved: number;
  /** The lists of schools cached for it (one per base URL, client and OneRoster version it used). */
  schoolListsRemoved: number;
  /** Where its secret was deleted from; undefined when it had none stored (or shares it). */
  secretRemovedFrom?: string;
  /** The profiles that use the same secret: it is kept for them. */
  secretKeptFor?: string[];
  /** It was the default profile: there is none now (`roster profiles use NAME` makes one). */
  wasDefault: boolean;
}

export async function removeProfile(name: string, ctx: Context): Promise<RemoveProfileResult> {
  const config = await loadConfig(ctx.paths.configDir);
  if (!Object.hasOwn(config.profiles, name)) {
    const known = Object.keys(config.profiles).sort();
    throw new UsageError(
      `No profile named "${printable(name)}": nothing to remove.`,
      known.length > 0 ? `Saved profiles: ${known.join(', ')}.` : 'No profile is saved.',
    );
  }
  // The profile's own settings (its secret's store and account), whatever profile this run would use.
  const settings = await resolveSettings({ profile: name }, ctx.env, ctx.paths.configDir);
  const { clientId, baseUrl } = settings.profile;
  const client = clientId && baseUrl ? { clientId, baseUrl } : undefined;
  const tokensRemoved = await new TokenCache(`${ctx.paths.cacheDir}/tokens`).removeProfile(name, client);
  const schoolListsRemoved = await removeSchoolsCaches(ctx.paths.cacheDir, name);
  const account = profileAccount(settings);
  const sharing = account
    ? profilesSharingSecret(settings, account, settings.profile.secretStorage === 'file')
    : [];
  const secretRemovedFrom =
    account && sharing.length === 0
      ? await deleteSecret(ctx, settings, account, {
          done: `Removed ${tokensRemoved} cached token(s) of profile "${name}"`,
          retry: `roster profiles remove ${name}`,
        })
      : undefined;
  let wasDefault = false;
  await updateConfig(ctx.paths.configDir, (latest) => {
    const { [name]: _removed, ...profiles } = latest.profiles;
    wasDefault = latest.defaultProfile === name;
    const { defaultProfile: _default, ...rest } = latest;
    return wasDefault ? { ...rest, profiles } : { ...latest, profiles };
  });
  return {
    profile: name,
    tokensRemoved,
    schoolListsRemoved,
    ...(secretRemovedFrom && { secretRemovedFrom }),
    ...(sharing.length > 0 && { secretKeptFor: sharing }),
    wasDefault,
  };
}

/** What `roster profiles remove` says on stderr. */
export function removedLine(result: RemoveProfileResult): string {
  const secret = result.secretKeptFor
    ? `its client secret is kept for profile ${result.secretKeptFor.map((n) => `"${n}"`).join(', ')}, which uses the same client id and base URL`
    : result.secretRemovedFrom
      ? `its client secret was removed from ${result.secretRemovedFrom}`
      : 'it had no stored client secret';
  const lines = [
    `Removed profile "${result.profile}", ${result.tokensRemoved} cached token(s) and ${result.schoolListsRemoved} cached list(s) of schools; ${secret}.`,
    'Tokens already issued stay valid until they expire (at most one hour).',
  ];
  if (result.wasDefault)
    lines.push('It was the default profile: `roster profiles use NAME` chooses another.');
  return lines.join('\n');
}
