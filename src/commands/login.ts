// `roster login`: ask for (or read) a district's base URL, client id and secret, prove them by getting
// a token, and only then save: the secret to the keychain (or an opt-in file), the rest to the profile.
import { type Command, Option } from 'commander';
import type { CachedToken } from '../api/access-token.js';
import { requestToken } from '../api/oauth.js';
import { profileAccount, profilesSharingSecret, registerSecrets, storeFor } from '../auth/credentials.js';
import { createSecretFileStore, secretFilePath } from '../auth/secret-file.js';
import { KeychainUnavailableError, type SecretStore, secretAccount } from '../auth/secret-store.js';
import { TokenCache } from '../auth/token-cache.js';
import { parseBaseUrl } from '../base-url.js';
import { type Profile, type TokenPurpose, updateConfig } from '../config-file.js';
import type { Context } from '../context.js';
import { ApiError, AuthError, RosterError, UsageError } from '../errors.js';
import { readAll } from '../io.js';
import { consent, type Prompter } from '../prompter.js';
import { notFoundHint, Session, scopeHint } from '../session.js';
import { checkScope, type Settings } from '../settings.js';
import { hiddenCharacter, printable } from '../values.js';
import { examples } from './common.js';
import { checkUserId } from './config-keys.js';

export interface LoginOptions {
  baseUrl?: string;
  clientId?: string;
  clientSecretStdin?: boolean;
  scope?: string;
  onerosterScope?: string;
  sentByUserId?: string;
  insecureStorage?: boolean;
}

export interface LoginResult {
  profile: string;
  baseUrl: string;
  clientId: string;
  storedIn: string;
  configFile: string;
  /** The base URL and client id the profile had, when this login changed either. */
  replaced?: { baseUrl: string; clientId: string };
  /** The OneRoster token endpoint that proved the credentials, when the general one is not served. */
  verifiedAt?: NonNullable<Verified['fallback']>;
}

export async function run(options: LoginOptions, ctx: Context): Promise<LoginResult> {
  const settings = await ctx.settings();
  if (settings.envCredentials) {
    throw new UsageError(
      'ROSTER_CLIENT_ID and ROSTER_CLIENT_SECRET are set: commands already use them, and nothing needs saving.',
      'To save credentials in the keychain instead, unset them and run `roster login` again.',
    );
  }
  const scopes = checkedScopes(options);
  const prompter = ctx.interactive ? await ctx.prompter('nothing was saved') : undefined;
  const given = await givenCredentials(options, ctx, settings, prompter);
  // Where the secret will go is settled before any question or request: a session with no keychain
  // (Linux over SSH) learns it first, not after typing everything.
  const storage = await chooseStorage(options, ctx, prompter);
  const saved = settings.profile;
  const previous =
    saved.baseUrl && saved.clientId ? { baseUrl: saved.baseUrl, clientId: saved.clientId } : undefined;
  const typed = prompter
    ? await askCredentials(ctx, prompter, given, previous, { ...options, profileName: settings.profileName })
    : { ...given, urlAsked: false };
  const credentials = completeCredentials(ctx, typed);
  // The scope general tokens will be asked with (--scope, else ROSTER_SCOPE or the profile's): the token is
  // cached under it.
  const generalScope = options.scope === undefined ? settings.scopes.general : scopes.scope || undefined;
  const verified = await proveCredentials(
    ctx,
    settings,
    { ...credentials, generalScope, onerosterScope: scopes.onerosterScope },
    typed.urlAsked ? prompter : undefined,
  );
  // The base URL the credentials were proven at: asked again if the typed one answered 404.
  const login = { ...credentials, baseUrl: verified.key.baseUrl };
  const account = secretAccount(login.clientId, login.baseUrl);
  await saveLogin(ctx, settings, { ...login, account, verified, storage, options, scopes });

  const replaced =
    previous && (previous.baseUrl !== login.baseUrl || previous.clientId !== login.clientId)
      ? previous
      : undefined;
  if (previous) await forgetReplacedSecret(ctx, settings, { account, inFile: storage.inFile });
  return {
    profile: settings.profileName,
    baseUrl: login.baseUrl,
    clientId: login.clientId,
    storedIn: storage.store.description,
    configFile: settings.configFile,
    ...(replaced && { replaced }),
    ...(verified.fallback && { verifiedAt: verified.fallback }),
  };
}

interface Credentials {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
}
type Draft = { [Key in keyof Credentials]: Credentials[Key] | undefined };
/** --scope and --oneroster-scope as given: undefined when absent, '' to clear the saved one. */
type Scopes = { scope: string | undefined; onerosterScope: string | undefined };

/**
 * --scope, --oneroster-scope and --sent-by-user-id, checked before any prompt or request by the validators
 * `roster config set` uses for the same keys. An empty --scope or --oneroster-scope clears the saved one.
 */
function checkedScopes(options: LoginOptions): Scopes {
  const scope =
    options.scope === undefined ? undefined : options.scope && checkScope(options.scope, '--scope');
  const onerosterScope =
    options.onerosterScope === undefined
      ? undefined
      : options.onerosterScope && checkScope(options.onerosterScope, '--oneroster-scope');
  if (options.sentByUserId !== undefined) checkUserId(options.sentByUserId, '--sent-by-user-id');
  return { scope, onerosterScope };
}

/**
 * The base URL, client id and secret from the flags, stdin, the environment and the profile. Without a
 * terminal to ask on, all three must be there. Flags are checked before the keychain is asked: bad input is
 * a usage error first.
 */
async function givenCredentials(
  options: LoginOptions,
  ctx: Context,
  settings: Settings,
  prompter: Prompter | undefined,
): Promise<Draft> {
  let baseUrl = options.baseUrl ?? settings.baseUrl;
  const clientId = options.clientId ?? settings.profile.clientId;
  const clientSecret = options.clientSecretStdin ? await secretFromStdin(ctx) : undefined;
  if (!prompter) {
    const missing = [
      !baseUrl && '--base-url',
      !clientId && '--client-id',
      !clientSecret && '--client-secret-stdin (pipe the secret on stdin)',
    ].filter(Boolean);
    if (missing.length > 0) {
      throw new UsageError(
        `Missing ${missing.join(', ')}: there is no terminal to ask on.`,
        'Example: printf %s "$SECRET" | roster login --base-url https://api.district.example/v1 --client-id ID --client-secret-stdin',
      );
    }
  }
  if (clientId) checkClientId(clientId);
  if (baseUrl) baseUrl = parseBaseUrl(baseUrl);
  return { baseUrl, clientId, clientSecret };
}

/**
 * On a terminal: what is missing, asked. A profile logged in already is replaced only with consent, and
 * then asked again with its values as defaults (Enter keeps them); a flag or variable still wins.
 */
async function askCredentials(
  ctx: Context,
  prompter: Prompter,
  given: Draft,
  previous: { baseUrl: string; clientId: string } | undefined,
  options: { clientId?: string; profileName: string },
): Promise<Draft & { urlAsked: boolean }> {
  let { baseUrl, clientId, clientSecret } = given;
  if (previous) {
    // As gh asks before re-authenticating a host: say what will be replaced, default no.
    ctx.log.info(
      `Profile "${options.profileName}" is logged in to ${previous.baseUrl} as ${previous.clientId}.`,
    );
    await consent(ctx, 'Log in again and replace its base URL, client id and secret?', 'nothing was saved');
    if (baseUrl === previous.baseUrl) baseUrl = undefined;
    clientId = options.clientId;
  }
  const urlAsked = baseUrl === undefined;
  baseUrl ??= await askBaseUrl(prompter, previous?.baseUrl);
  clientId ??= (await prompter.input('Client ID:', { default: previous?.clientId })).trim();
  clientSecret ??= await prompter.password('Client secret:');
  return { baseUrl, clientId, clientSecret, urlAsked };
}

async function askBaseUrl(prompter: Prompter, suggested: string | undefined): Promise<string> {
  const answer = await prompter.input('Base URL of the service (including /v1):', {
    validate: validUrl,
    default: suggested,
  });
  // Trimmed as validUrl trims it: a pasted trailing space passed validation, then failed here.
  return parseBaseUrl(answer.trim(), 'the prompt');
}

/** All three credentials, checked, and the secrets registered so that no line of output shows them. */
function completeCredentials(ctx: Context, draft: Draft): Credentials {
  const { baseUrl, clientId, clientSecret } = draft;
  if (!baseUrl || !clientId || !clientSecret)
    throw new UsageError('Base URL, client id and secret are all required.');
  checkClientId(clientId);
  const credentials = { baseUrl: parseBaseUrl(baseUrl), clientId, clientSecret };
  registerSecrets(ctx, { clientId, clientSecret });
  return credentials;
}

type LoginToProve = Credentials & { generalScope: string | undefined; onerosterScope: string | undefined };

/**
 * The credentials proven before anything is saved. A base URL typed at the prompt (`reask`) that nothing
 * answers at (a 404, most often without /v1) is asked again, the client id and secret kept: it ended the login.
 */
async function proveCredentials(
  ctx: Context,
  settings: Settings,
  login: LoginToProve,
  reask: Prompter | undefined,
): Promise<Verified> {
  let attempt = login;
  for (;;) {
    try {
      return await verify(ctx, settings, attempt);
    } catch (error) {
      if (!reask || !(error instanceof RosterError) || !/\(HTTP 404\)/.test(error.message))
        throw refusedInLogin(error);
      ctx.log.info(`Error: ${error.message}${error.hint ? ` ${error.hint}` : ''}`);
      attempt = { ...attempt, baseUrl: await askBaseUrl(reask, attempt.baseUrl) };
    }
  }
}

/**
 * The secret to its store, the rest to the profile, over the profile as it is now (another roster may have
 * changed it, or another profile, meanwhile), and the fresh token to the cache: it is good for an hour, the
 * next command need not ask for another.
 */
async function saveLogin(
  ctx: Context,
  settings: Settings,
  login: Credentials & {
    account: string;
    verified: Verified;
    storage: { store: SecretStore; inFile: boolean };
    options: LoginOptions;
    scopes: Scopes;
  },
): Promise<void> {
  const { storage, options, scopes } = login;
  if (storage.inFile && options.insecureStorage) {
    ctx.log.warn(
      `storing the client secret in a plain file readable only by you (${secretFilePath(ctx.paths.configDir)}), not in the system keychain.`,
    );
  }
  await storage.store.set(login.account, login.clientSecret);
  const profile: Profile = {
    baseUrl: login.baseUrl,
    clientId: login.clientId,
    clientAuth: settings.clientAuth,
    oneroster: settings.oneroster,
    secretStorage: storage.inFile ? 'file' : 'keychain',
    ...(scopes.scope !== undefined && { scope: scopes.scope || undefined }),
    ...(scopes.onerosterScope !== undefined && { onerosterScope: scopes.onerosterScope || undefined }),
    ...(options.sentByUserId !== undefined && { sentByUserId: options.sentByUserId }),
  };
  const { profileName } = settings;
  await updateConfig(ctx.paths.configDir, (latest) => ({
    ...latest,
    defaultProfile: latest.defaultProfile ?? profileName,
    profiles: { ...latest.profiles, [profileName]: { ...latest.profiles[profileName], ...profile } },
  }));
  await new TokenCache(`${ctx.paths.cacheDir}/tokens`)
    .write({ ...login.verified.key, clientId: login.clientId, profile: profileName }, login.verified.token)
    .catch(() => {});
}

const USE_OF: Partial<Record<TokenPurpose, string>> = {
  'oneroster-1.1': 'OneRoster 1.1',
  'oneroster-1.2': 'OneRoster 1.2',
};

/** Token uses login may prove the credentials with: general first, then the OneRoster ones. */
const ONEROSTER_PURPOSES: readonly TokenPurpose[] = ['oneroster-1.1', 'oneroster-1.2'];
/** Answers that say an endpoint is not there at all (not a refusal of these credentials). */
const NOT_SERVED = new Set([404, 405, 501]);

interface Verified {
  token: CachedToken;
  /** What the token is cached under. */
  key: { baseUrl: string; endpoint: string; scope: string | undefined };
  /** When the general endpoint is not served: the OneRoster endpoint that answered, and what general said. */
  fallback?: { endpoint: string; purpose: TokenPurpose; general: string; generalStatus: number };
}

/**
 * A token from the endpoint general tokens will use (the profile's, else /oauth/token). A server that serves
 * only the OneRoster token endpoints (404, 405 or 501 there, the profile naming no endpoint of its own) is
 * asked at those, the profile's version first: the credentials are proven where they will work.
 */
async function verify(
  ctx: Context,
  settings: Settings,
  login: {
    baseUrl: string;
    clientId: string;
    clientSecret: string;
    generalScope: string | undefined;
    onerosterScope: string | undefined;
  },
): Promise<Verified> {
  const session = new Session(ctx, { ...settings, baseUrl: login.baseUrl });
  const ask = async (purpose: TokenPurpose, scope: string | undefined): Promise<Verified> => {
    const { endpoint } = session.tokenSource(purpose).key;
    const configured = settings.profile.tokenEndpoints?.[purpose];
    const token = await requestToken(session.transport, {
      url: `${login.baseUrl}${endpoint}`,
      credentials: { clientId: login.clientId, clientSecret: login.clientSecret },
      clientAuth: settings.clientAuth,
      scope,
      now: ctx.now(),
      scopeHint: scopeHint(purpose, scope, settings.profileName, { login: true }),
      notFoundHint: notFoundHint(login.baseUrl, purpose, endpoint, configured),
    });
    ctx.secrets.add(token.accessToken);
    return { token, key: { baseUrl: login.baseUrl, endpoint, scope } };
  };
  try {
    return await ask('general', login.generalScope);
  } catch (error) {
    const notServed = error instanceof ApiError && NOT_SERVED.has(error.status);
    if (!notServed || settings.profile.tokenEndpoints?.general !== undefined) throw error;
    const own = `oneroster-${settings.oneroster}` as const;
    const order = [own, ...ONEROSTER_PURPOSES.filter((p) => p !== own)];
    for (const purpose of order) {
      const scope =
        login.onerosterScope === undefined ? settings.scopes[purpose] : login.onerosterScope || undefined;
      try {
        const verified = await ask(purpose, scope);
        const general = session.tokenSource('general').key.endpoint;
        return {
          ...verified,
          fallback: { endpoint: verified.key.endpoint, purpose, general, generalStatus: error.status },
        };
      } catch (other) {
        // These credentials refused there: that is the answer. Not served there either: the next one.
        if (!(other instanceof ApiError && NOT_SERVED.has(other.status))) throw other;
      }
    }
    throw error;
  }
}

/**
 * The secret of the login this one replaced, when it was kept elsewhere (another client id or base URL,
 * or the other store) and no other profile uses it: left behind, it would sit in the keychain forever.
 * Best effort: the new login is saved already, and an old keychain may be out of reach (SSH).
 */
async function forgetReplacedSecret(
  ctx: Context,
  settings: Settings,
  now: { account: string; inFile: boolean },
): Promise<void> {
  const old = profileAccount(settings);
  const oldInFile = settings.profile.secretStorage === 'file';
  if (!old || (old === now.account && oldInFile === now.inFile)) return;
  if (profilesSharingSecret(settings, old, oldInFile).length > 0) return;
  const store = await storeFor(ctx, settings);
  await store.delete(old).catch((error: unknown) => {
    ctx.log.debug(`the replaced login's secret was not removed: ${(error as Error).message}`);
  });
}

/**
 * The store for the secret: the keychain; the 0600 file with --insecure-storage; or, when the keychain
 * cannot be reached and there is a terminal, the file if the user accepts it (one sentence says why
 * first; the keychain's own D-Bus words only under --debug). In a script the unreachable keychain is
 * the error, naming --insecure-storage and the environment variables (exit 4: not logged in).
 */
async function chooseStorage(
  options: LoginOptions,
  ctx: Context,
  prompter: Prompter | undefined,
): Promise<{ store: SecretStore; inFile: boolean }> {
  const file = { store: createSecretFileStore(ctx.paths.configDir), inFile: true };
  if (options.insecureStorage) return file;
  const keychain = await ctx.keychain();
  try {
    await keychain.probe();
    return { store: keychain, inFile: false };
  } catch (error) {
    if (!(error instanceof KeychainUnavailableError) || !prompter) throw error;
    ctx.log.info(error.message);
  }
  // Short enough for one line of a terminal: the final message names the file.
  if (await prompter.confirm('Keep the client secret in a file only you can read instead?')) return file;
  throw new AuthError(
    'Nothing was saved: there is no keychain here to keep the secret in.',
    'Set ROSTER_CLIENT_ID and ROSTER_CLIENT_SECRET in the environment for this shell instead (nothing is stored), or run `roster login --insecure-storage`.',
  );
}

async function secretFromStdin(ctx: Context): Promise<string> {
  if (ctx.io.stdinIsTTY) {
    throw new UsageError(
      '--client-secret-stdin reads the secret from a pipe, but stdin is a terminal.',
      'Leave the flag out to be asked for it.',
    );
  }
  const secret = (await readAll(ctx.io.stdin)).replace(/\r?\n$/, '');
  if (!secret) throw new UsageError('--client-secret-stdin: stdin was empty.');
  if (/[\r\n]/.test(secret)) throw new UsageError('--client-secret-stdin: the secret must be a single line.');
  return secret;
}

function refuseSecretFlag(): never {
  throw new UsageError(
    'The client secret is never accepted as a flag: it would stay in the shell history and show in the process list.',
    'Pipe it with --client-secret-stdin (printf %s "$SECRET" | roster login --client-secret-stdin …), or leave it out to be asked on a terminal. Nothing was saved.',
  );
}

/** A client id is matched and cached by its text: one that only looks right would be another client. */
function checkClientId(clientId: string): void {
  const hidden = hiddenCharacter(clientId);
  if (hidden) throw new UsageError(`Invalid client id "${printable(clientId)}": it contains ${hidden}.`);
}

function validUrl(value: string): string | true {
  try {
    parseBaseUrl(value.trim(), 'the prompt');
    return true;
  } catch (error) {
    return (error as Error).message;
  }
}

export function register(program: Command, ctx: Context): void {
  const command = program
    .command('login')
    .summary('save a district profile: base URL, client id, and the secret in the OS keychain')
    .description(
      'Save a district profile. The credentials are checked by getting a token before anything is saved. The client secret goes to the OS keychain (never to a file unless --insecure-storage), the rest to the config file.',
    )
    .option('--client-id <id>', 'OAuth client id issued for the district')
    .option('--client-secret-stdin', 'read the client secret from stdin (it is never accepted as a flag)')
    .addOption(
      // Not an option: the way an admin would first try, answered with the ones that are (with or without a
      // value, and before anything is asked or read).
      new Option('--client-secret [secret]').hideHelp().preset('').argParser(refuseSecretFlag),
    )
    .option('--scope <scope>', 'scope of general and invitation tokens (env ROSTER_SCOPE; default: none)')
    .option(
      '--oneroster-scope <scope>',
      'scope of OneRoster tokens (env ROSTER_ONEROSTER_SCOPE; default: none)',
    )
    .option('--sent-by-user-id <id>', 'default sentByUserId for invitations')
    .option('--insecure-storage', 'store the secret in a 0600 file instead of the keychain')
    .action(async (options: LoginOptions) => {
      const result = await run(options, ctx);
      ctx.log.info(
        `Logged in to ${result.baseUrl} as ${result.clientId} (profile "${result.profile}").\n` +
          (result.replaced
            ? `It replaces the login to ${result.replaced.baseUrl} as ${result.replaced.clientId}.\n`
            : '') +
          `Saved the profile to ${result.configFile} and the client secret to ${result.storedIn}.`,
      );
      const at = result.verifiedAt;
      if (at)
        ctx.log.warn(
          `${at.general} answered HTTP ${at.generalStatus}: the credentials were verified at ${at.endpoint} (${USE_OF[at.purpose]} tokens) instead. OneRoster reads and invitations use it; attendance check needs general tokens: if this server gives them elsewhere, \`roster config set tokenEndpoints.general v1p1\` (or v1p2, a /path).`,
        );
    });
  examples(command, [
    '# On a terminal (asks for what is missing)',
    'roster login',
    'roster login --profile east --oneroster 1.2 --client-auth post',
    '# A token endpoint that wants scopes',
    'roster login --scope attendance --oneroster-scope https://purl.imsglobal.org/spec/or/v1p1/scope/roster-core.readonly',
    '# In a script (the secret from stdin, never a flag)',
    'printf %s "$SECRET" | roster login --no-input --base-url https://api.district.example/v1 --client-id district-42 --client-secret-stdin',
  ]);
}

/**
 * Credentials the token endpoint refused while logging in: the hint must not send the user to
 * `roster login`, the command they are running. Nothing was saved.
 */
function refusedInLogin(error: unknown): unknown {
  if (!(error instanceof AuthError) || !error.hint?.includes('roster login')) return error;
  return new AuthError(
    error.message,
    'Check the client id and secret with the district (and --client-auth basic|post); nothing was saved.',
    error.status,
    error.serverMessage,
  );
}
