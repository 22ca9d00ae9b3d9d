// The profile settings `roster config` reads and writes, each with the one validator `roster login` uses
// for the same value, so a value is accepted or refused alike whichever way it arrives. A secret is never
// one of them: the client secret lives in the keychain (or the opt-in file), set by `roster login`.

import { parseBaseUrl } from '../base-url.js';
import type { OneRosterVersion, Profile, TokenPurpose } from '../config-file.js';
import { UsageError } from '../errors.js';
import { MAX_ID_LENGTH } from '../invite/invitation.js';
import { checkPrefix, DEFAULT_PREFIX } from '../oneroster/service.js';
import { DEFAULT_ENDPOINT, endpointPath } from '../session.js';
import { checkScope } from '../settings.js';
import { hiddenCharacter, printable } from '../values.js';

export interface ProfileKey {
  /** As `roster config` names it: the config file's own name (`tokenEndpoints.general` for a nested one). */
  name: string;
  what: string;
  /** The value used when the profile has none (undefined: nothing, e.g. no scope is sent). */
  fallback?: string;
  /** The environment variable that wins over the profile's value, if any. */
  env?: string;
  /** The value as saved, or a UsageError naming `source` (a flag or `roster config set <key>`). */
  check(value: string, source: string): string;
  get(profile: Profile): string | undefined;
  /** The profile with the value set (undefined: removed). */
  with(profile: Profile, value: string | undefined): Profile;
}

const PURPOSES: readonly TokenPurpose[] = ['general', 'invitations', 'oneroster-1.1', 'oneroster-1.2'];
const VERSIONS: readonly OneRosterVersion[] = ['1.1', '1.2'];

function checkChoice(allowed: readonly string[]) {
  return (value: string, source: string): string => {
    if (allowed.includes(value)) return value;
    throw new UsageError(
      `Invalid value "${printable(value)}" from ${source}: expected ${allowed.join(' or ')}.`,
    );
  };
}

/** A default sentByUserId: an id as `invite send` accepts one (no hidden characters, not a pasted blob). */
export function checkUserId(value: string, source: string): string {
  const hidden = hiddenCharacter(value);
  const why =
    value.trim() === ''
      ? 'it is empty'
      : hidden
        ? `it contains ${hidden}`
        : value.length > MAX_ID_LENGTH
          ? `it is longer than ${MAX_ID_LENGTH} characters`
          : value !== value.trim()
            ? 'it has spaces around it'
            : undefined;
  if (why) throw new UsageError(`Invalid user id "${printable(value)}" from ${source}: ${why}.`);
  return value;
}

function checkEndpoint(value: string, source: string): string {
  try {
    endpointPath(value);
  } catch (error) {
    throw new UsageError(`From ${source}: ${(error as Error).message}`);
  }
  return value;
}

function checkPath(version: OneRosterVersion) {
  return (value: string, source: string): string => {
    try {
      return checkPrefix(value, version);
    } catch (error) {
      throw new UsageError(`From ${source}: ${(error as Error).message}`);
    }
  };
}

/** A key saved at the top of the profile. */
function top(
  name: 'baseUrl' | 'clientAuth' | 'oneroster' | 'scope' | 'onerosterScope' | 'sentByUserId',
  fields: Omit<ProfileKey, 'name' | 'get' | 'with'>,
): ProfileKey {
  return {
    name,
    ...fields,
    get: (profile) => profile[name],
    with: (profile, value) => {
      const { [name]: _old, ...rest } = profile;
      return value === undefined ? rest : { ...rest, [name]: value };
    },
  };
}

/** A key inside one of the profile's maps (`tokenEndpoints.general`, `onerosterPaths.1.2`). */
function nested<M extends 'tokenEndpoints' | 'onerosterPaths' | 'scopes'>(
  map: M,
  entry: keyof NonNullable<Profile[M]> & string,
  fields: Omit<ProfileKey, 'name' | 'get' | 'with'>,
): ProfileKey {
  return {
    name: `${map}.${entry}`,
    ...fields,
    get: (profile) => (profile[map] as Record<string, string> | undefined)?.[entry],
    with: (profile, value) => {
      const { [entry]: _old, ...others } = (profile[map] ?? {}) as Record<string, string>;
      const entries = value === undefined ? others : { ...others, [entry]: value };
      const { [map]: _map, ...rest } = profile;
      return Object.keys(entries).length === 0 ? rest : { ...rest, [map]: entries };
    },
  };
}

export const PROFILE_KEYS: readonly ProfileKey[] = [
  top('baseUrl', {
    what: 'base URL of the service, including /v1',
    env: 'ROSTER_BASE_URL',
    check: parseBaseUrl,
  }),
  top('clientAuth', {
    what: 'how credentials reach the token endpoint: basic or post',
    fallback: 'basic',
    env: 'ROSTER_CLIENT_AUTH',
    check: checkChoice(['basic', 'post']),
  }),
  top('oneroster', {
    what: 'OneRoster version: 1.1 or 1.2',
    fallback: '1.1',
    env: 'ROSTER_ONEROSTER',
    check: checkChoice(VERSIONS),
  }),
  top('scope', {
    what: 'scope of general and invitation tokens',
    env: 'ROSTER_SCOPE',
    check: checkScope,
  }),
  top('onerosterScope', {
    what: 'scope of OneRoster tokens',
    env: 'ROSTER_ONEROSTER_SCOPE',
    check: checkScope,
  }),
  nested('scopes', 'invitations', {
    what: 'scope of invitation tokens (over scope)',
    env: 'ROSTER_SCOPE',
    check: checkScope,
  }),
  ...VERSIONS.map((version) =>
    nested('scopes', `oneroster-${version}`, {
      what: `scope of OneRoster ${version} tokens (over onerosterScope)`,
      env: 'ROSTER_ONEROSTER_SCOPE',
      check: checkScope,
    }),
  ),
  top('sentByUserId', { what: 'default sentByUserId of invitations', check: checkUserId }),
  ...PURPOSES.map((purpose) =>
    nested('tokenEndpoints', purpose, {
      what: `token endpoint of ${purpose} tokens: oauth, v1p1, v1p2 or a /path`,
      fallback: DEFAULT_ENDPOINT[purpose],
      check: checkEndpoint,
    }),
  ),
  ...VERSIONS.map((version) =>
    nested('onerosterPaths', version, {
      what: `path prefix of OneRoster ${version} reads`,
      fallback: DEFAULT_PREFIX[version],
      check: checkPath(version),
    }),
  ),
];

/** Lower case without `-` and `_`: `oneroster-scope`, `onerosterScope` and `ONEROSTER_SCOPE` are one key. */
const loose = (name: string) => name.toLowerCase().replace(/[-_]/g, '');

/** The key named (in any of its spellings), or a UsageError: a secret, a login-only key, or an unknown one. */
export function profileKey(name: string): ProfileKey {
  const wanted = loose(name);
  const key = PROFILE_KEYS.find((k) => loose(k.name) === wanted);
  if (key) return key;
  if (wanted === 'clientid' || wanted === 'secretstorage') {
    throw new UsageError(
      `"${printable(name)}" is set by \`roster login\`: it goes with the stored client secret.`,
      'Run `roster login --client-id ID` (with --insecure-storage for a file instead of the keychain).',
    );
  }
  if (/secret|password|token$|credential/.test(wanted)) {
    throw new UsageError(
      `"${printable(name)}" is not a config value: roster never keeps a secret or a token in the config file.`,
      'Save the client secret with `roster login` (on a terminal, or with --client-secret-stdin in a script), or give it for one run with ROSTER_CLIENT_SECRET.',
    );
  }
  throw new UsageError(
    `Unknown config key "${printable(name)}".`,
    `Known keys: ${PROFILE_KEYS.map((k) => k.name).join(', ')}.`,
  );
}
