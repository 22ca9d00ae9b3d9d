// Resolves every setting once, with the contract's precedence: flags, then ROSTER_* environment
// variables, then the saved profile, then defaults. Commands read Settings, never env or config directly.

import { parseBaseUrl } from './base-url.js';
import {
  type ClientAuth,
  type ConfigFile,
  configPath,
  loadConfig,
  type OneRosterVersion,
  type Profile,
  type TokenPurpose,
} from './config-file.js';
import { AuthError, RosterError, UsageError } from './errors.js';
import { hiddenCharacter, printable } from './values.js';

export type Env = Readonly<Record<string, string | undefined>>;

/** Flags that every command accepts (declared once on the program). */
export interface GlobalFlags {
  profile?: string;
  baseUrl?: string;
  clientAuth?: string;
  oneroster?: string;
  timeout?: string;
  maxResponseSize?: string;
  maxRecords?: string;
  debug?: boolean;
}

export interface Settings {
  profileName: string;
  /** The saved profile (empty when none was saved). */
  profile: Profile;
  config: ConfigFile;
  configFile: string;
  /** Undefined until configured: commands that need it call requireBaseUrl. */
  baseUrl?: string;
  clientId?: string;
  clientAuth: ClientAuth;
  oneroster: OneRosterVersion;
  /** The scope each token use asks for (undefined: none is sent). */
  scopes: Record<TokenPurpose, string | undefined>;
  timeoutMs: number;
  /** The most bytes roster reads of one HTTP answer, as sent and decompressed. */
  maxResponseBytes: number;
  /** The most records one read (every page of one list) takes before it stops with an error. */
  maxRecords: number;
  /** Client credentials from ROSTER_CLIENT_ID + ROSTER_CLIENT_SECRET: they win, nothing is written. */
  envCredentials?: { clientId: string; clientSecret: string };
  /** A ready access token from ROSTER_TOKEN. */
  envToken?: string;
}

export const DEFAULT_PROFILE = 'default';
export const DEFAULT_TIMEOUT_MS = 30_000;
/**
 * 64 MiB: a page of 1,000 OneRoster records is 0.5–0.6 MB (the sandbox's students, enrollments, classes),
 * so a hundred times that; a gzip bomb or an endless answer stops there instead of exhausting memory.
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
const MIN_RESPONSE_BYTES = 1024;
/** 256 MiB: a body must become one JavaScript string (at most 512 Mi characters), and pages come in parallel. */
const MAX_RESPONSE_BYTES = 256 * 1024 * 1024;
/**
 * 10 million records in one read: the largest US district (New York City, about 1 million students) has
 * a few million enrollments (a record per student per class), so no district's list comes near it, while a
 * server that serves new records forever stops there (at 1,000 a page, 10,000 requests) instead of never.
 * Records, not pages: every page that does not end a read holds at least one new record (an empty page
 * ends it, a repeated one is an error), so the records bound the pages too, whatever the page size.
 */
export const DEFAULT_MAX_RECORDS = 10_000_000;
const MAX_MAX_RECORDS = 1_000_000_000;
const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Where the active profile's name came from. */
export type ProfileSource = '--profile' | 'ROSTER_PROFILE' | 'defaultProfile' | 'built-in default';

/** The active profile: --profile, then ROSTER_PROFILE, then the config's defaultProfile, then "default". */
export function activeProfile(
  flags: Pick<GlobalFlags, 'profile'>,
  env: Env,
  config: ConfigFile,
): { name: string; source: ProfileSource } {
  const [name, source]: [string, ProfileSource] =
    flags.profile !== undefined
      ? [flags.profile, '--profile']
      : nonEmpty(env.ROSTER_PROFILE) !== undefined
        ? [env.ROSTER_PROFILE as string, 'ROSTER_PROFILE']
        : config.defaultProfile
          ? [config.defaultProfile, 'defaultProfile']
          : [DEFAULT_PROFILE, 'built-in default'];
  if (!isProfileName(name)) {
    throw new UsageError(
      `Invalid profile name "${printable(name)}" from ${source}: use letters, digits, ".", "_" or "-" (at most 64).`,
    );
  }
  return { name, source };
}

export const isProfileName = (name: string) => PROFILE_NAME.test(name);

export async function resolveSettings(flags: GlobalFlags, env: Env, configDir: string): Promise<Settings> {
  const config = await loadConfig(configDir);
  const profileName = activeProfile(flags, env, config).name;
  const profile = config.profiles[profileName] ?? {};

  const baseUrlFrom = pick(
    ['--base-url', flags.baseUrl],
    ['ROSTER_BASE_URL', env.ROSTER_BASE_URL],
    [`profile "${profileName}"`, profile.baseUrl],
  );
  const envId = checkClientId(nonEmpty(env.ROSTER_CLIENT_ID));
  const envSecret = env.ROSTER_CLIENT_SECRET || undefined;
  if (Boolean(envId) !== Boolean(envSecret)) {
    throw new UsageError(
      `${envId ? 'ROSTER_CLIENT_ID' : 'ROSTER_CLIENT_SECRET'} is set but ${envId ? 'ROSTER_CLIENT_SECRET' : 'ROSTER_CLIENT_ID'} is not.`,
      'Set both to use environment credentials, or neither to use the saved profile.',
    );
  }

  return {
    profileName,
    profile,
    config,
    configFile: configPath(configDir),
    baseUrl: baseUrlFrom ? parseBaseUrl(baseUrlFrom[1], baseUrlFrom[0]) : undefined,
    clientId: envId ?? profile.clientId,
    clientAuth: oneOf(
      ['basic', 'post'] as const,
      'basic',
      ['--client-auth', flags.clientAuth],
      ['ROSTER_CLIENT_AUTH', env.ROSTER_CLIENT_AUTH],
      [`profile "${profileName}" clientAuth`, profile.clientAuth],
    ),
    oneroster: oneOf(
      ['1.1', '1.2'] as const,
      '1.1',
      ['--oneroster', flags.oneroster],
      ['ROSTER_ONEROSTER', env.ROSTER_ONEROSTER],
      [`profile "${profileName}" oneroster`, profile.oneroster],
    ),
    scopes: resolveScopes(env, profile, profileName),
    timeoutMs: parseTimeout(flags.timeout ?? nonEmpty(env.ROSTER_TIMEOUT)),
    maxResponseBytes: parseSize(flags.maxResponseSize ?? nonEmpty(env.ROSTER_MAX_RESPONSE_SIZE)),
    maxRecords: parseMaxRecords(flags.maxRecords, env.ROSTER_MAX_RECORDS),
    envCredentials: envId && envSecret ? { clientId: envId, clientSecret: envSecret } : undefined,
    envToken: checkToken(nonEmpty(env.ROSTER_TOKEN)),
  };
}

/** No base URL is "not logged in": exit 4 like missing credentials, for every command that needs them. */
export function requireBaseUrl(settings: Settings): string {
  if (settings.baseUrl) return settings.baseUrl;
  throw new AuthError(
    `No base URL for profile "${settings.profileName}".`,
    loginHint(settings, 'pass --base-url / set ROSTER_BASE_URL'),
  );
}

/**
 * "Run `roster login --profile east`, or …": the login that saves the profile this run uses, named when it
 * is not the default one (`roster --profile nosuch status` said `roster login`, which logs in "default"),
 * and, for a profile never saved, the ones that are (a typo in --profile).
 */
export function loginHint(settings: Settings, otherwise: string): string {
  const name = settings.profileName;
  const login = name === 'default' ? 'roster login' : `roster login --profile ${printable(name)}`;
  const saved = Object.keys(settings.config.profiles).sort();
  const unsaved =
    Object.hasOwn(settings.config.profiles, name) || saved.length === 0
      ? ''
      : ` No profile "${printable(name)}" is saved; saved profiles: ${saved.map((n) => printable(n)).join(', ')}.`;
  return `Run \`${login}\`, or ${otherwise}.${unsaved}`;
}

/**
 * The scope of each token use: the environment, then the profile's key for that use alone (`scopes`), then
 * its shared key (`scope` for general and invitation tokens, `onerosterScope` for OneRoster reads).
 */
function resolveScopes(env: Env, profile: Profile, profileName: string): Settings['scopes'] {
  const scopeOf = (purpose: TokenPurpose, envName: string, shared: 'scope' | 'onerosterScope') => {
    const found = pick(
      [envName, env[envName]],
      [`profile "${profileName}" scopes.${purpose}`, profile.scopes?.[purpose]],
      [`profile "${profileName}" ${shared}`, profile[shared]],
    );
    return found && checkScope(found[1], found[0]);
  };
  return {
    general: scopeOf('general', 'ROSTER_SCOPE', 'scope'),
    invitations: scopeOf('invitations', 'ROSTER_SCOPE', 'scope'),
    'oneroster-1.1': scopeOf('oneroster-1.1', 'ROSTER_ONEROSTER_SCOPE', 'onerosterScope'),
    'oneroster-1.2': scopeOf('oneroster-1.2', 'ROSTER_ONEROSTER_SCOPE', 'onerosterScope'),
  };
}

/** RFC 6749 §3.3: scope tokens of printable ASCII but `"` and `\`, separated by single spaces. */
const SCOPE = /^[\x21\x23-\x5b\x5d-\x7e]+( [\x21\x23-\x5b\x5d-\x7e]+)*$/;
const MAX_SCOPE_LENGTH = 2000;

/** A scope as a token request carries it; `source` names where it came from. */
export function checkScope(value: string, source: string): string {
  if (!SCOPE.test(value) || value.length > MAX_SCOPE_LENGTH) {
    throw new UsageError(
      `Invalid scope "${printable(value)}" from ${source}: give scope values of printable characters (no quotes or backslashes), separated by single spaces, at most ${MAX_SCOPE_LENGTH} characters.`,
      'Example: https://purl.imsglobal.org/spec/or/v1p1/scope/roster-core.readonly',
    );
  }
  return value;
}

/** Seconds, as given to --timeout or ROSTER_TIMEOUT. */
function parseTimeout(value: string | undefined): number {
  if (value === undefined) return DEFAULT_TIMEOUT_MS;
  const seconds = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || seconds < 0.1 || seconds > 3600) {
    throw new UsageError(`Invalid timeout "${printable(value)}": give seconds from 0.1 to 3600.`);
  }
  return Math.round(seconds * 1000);
}

/** A client id is matched and cached by its text: one that only looks right would be another client. */
function checkClientId(clientId: string | undefined): string | undefined {
  const hidden = clientId === undefined ? undefined : hiddenCharacter(clientId);
  if (hidden) {
    throw new UsageError(
      `Invalid client id "${printable(clientId ?? '')}" from ROSTER_CLIENT_ID: it contains ${hidden}.`,
    );
  }
  return clientId;
}

const UNITS: Record<string, number> = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 };

/** Bytes, as given to --max-response-size or ROSTER_MAX_RESPONSE_SIZE: 65536, 512K, 64M, 64MiB, 1G… */
function parseSize(value: string | undefined): number {
  if (value === undefined) return DEFAULT_MAX_RESPONSE_BYTES;
  const match = /^(\d+)\s*(?:([kmg])(?:i?b)?|b)?$/i.exec(value.trim());
  const bytes = match ? Number(match[1]) * (UNITS[(match[2] ?? '').toLowerCase()] ?? 1) : Number.NaN;
  if (!(bytes >= MIN_RESPONSE_BYTES && bytes <= MAX_RESPONSE_BYTES)) {
    throw new UsageError(
      `Invalid response size "${printable(value)}": give bytes from 1K to 256M (K, M, G: powers of 1024).`,
    );
  }
  return bytes;
}

/** Records, as given to --max-records or ROSTER_MAX_RECORDS: a whole number, digits only (10000000). */
function parseMaxRecords(flag: string | undefined, env: string | undefined): number {
  const [source, value] =
    flag !== undefined ? ['--max-records', flag] : ['ROSTER_MAX_RECORDS', nonEmpty(env)];
  if (value === undefined) return DEFAULT_MAX_RECORDS;
  const n = /^\d{1,10}$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
  if (!(n >= 1 && n <= MAX_MAX_RECORDS)) {
    throw new UsageError(
      `Invalid record ceiling "${printable(value)}" from ${source}: give a whole number from 1 to ${MAX_MAX_RECORDS}.`,
    );
  }
  return n;
}

/**
 * A read that reached the ceiling with the server still serving new records: an error (exit 1) saying
 * where it stopped and how to raise the ceiling, since a district this large is far likelier a server
 * that never ends its list.
 */
export function tooManyRecords(what: string, max: number): RosterError {
  return new RosterError(
    'failure',
    `Reading ${what}: stopped at ${max.toLocaleString('en-US')} records, the ceiling of one read, and the server still serves more; what was read is incomplete.`,
    `A server whose list never ends does this. If the district really has more, raise the ceiling with --max-records N or ROSTER_MAX_RECORDS=N (default ${DEFAULT_MAX_RECORDS.toLocaleString('en-US')}).`,
  );
}

/** ROSTER_TOKEN goes into an Authorization header: a line break or space in it is a paste mistake (or an injection). */
function checkToken(token: string | undefined): string | undefined {
  if (token !== undefined && /[\u0000-\u0020\u007f-\u00a0]/.test(token)) {
    throw new UsageError(
      'ROSTER_TOKEN contains a space, line break or control character: it cannot be sent as a bearer token.',
      'Set it to the access token alone, e.g. ROSTER_TOKEN="$(roster token)".',
    );
  }
  return token;
}

type Source = [name: string, value: string | undefined];

function pick(...sources: Source[]): [string, string] | undefined {
  for (const [name, value] of sources) if (value !== undefined && value !== '') return [name, value];
  return undefined;
}

function oneOf<T extends string>(allowed: readonly T[], fallback: T, ...sources: Source[]): T {
  const found = pick(...sources);
  if (!found) return fallback;
  const [name, value] = found;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`Invalid value "${printable(value)}" from ${name}: expected ${allowed.join(' or ')}.`);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
