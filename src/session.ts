// Everything a command needs to talk to the API, built from Settings: the token provider (with the
// right token endpoint per purpose), the transport and the resource client. Built on first use, so
// commands that fail validation never touch the keychain or the network.
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import type { CachedToken } from './api/access-token.js';
import { ApiClient, type Authenticator } from './api/client.js';
import { requestToken, TOKEN_ENDPOINTS } from './api/oauth.js';
import { createHttpTransport, type Transport } from './api/transport.js';
import { type CredentialsContext, loadCredentials } from './auth/credentials.js';
import { TokenCache } from './auth/token-cache.js';
import { TokenProvider, type TokenSource } from './auth/token-provider.js';
import type { TokenPurpose } from './config-file.js';
import { AuthError, UsageError } from './errors.js';
import type { Logger } from './output/log.js';
import type { Paths } from './paths.js';
import { type Env, requireBaseUrl, type Settings } from './settings.js';
import { printable } from './values.js';
import { VERSION } from './version.js';

export const DEFAULT_ENDPOINT: Record<TokenPurpose, keyof typeof TOKEN_ENDPOINTS> = {
  general: 'oauth',
  invitations: 'v1p1', // spec §4.5: API token authentication uses the OneRoster 1.1 token endpoint
  'oneroster-1.1': 'v1p1', // spec §5 rule 6
  'oneroster-1.2': 'v1p2',
};

export interface TokenChoice {
  /** A token endpoint name (oauth, v1p1, v1p2) or a path below the base URL. */
  endpoint?: string;
  scope?: string;
}

/** What a Session needs of the run's Context (context.ts's Context, which hands out the Session, has it all). */
export interface SessionContext extends CredentialsContext {
  env: Env;
  paths: Paths;
  now(): number;
  sleep(ms: number): Promise<void>;
  log: Logger;
  /** The wire a test scripts (test/helpers/http-mock.ts); absent, roster's own HTTP transport. */
  transport?: Transport;
}

export class Session implements Authenticator {
  readonly baseUrl: string;
  readonly tokens: TokenProvider;
  private transportInstance?: Transport;
  private apiInstance?: ApiClient;
  /** The token cache's client id (cacheClientId), made once: a bulk run asks for a token per request. */
  private cacheClientIdValue?: string;

  constructor(
    readonly ctx: SessionContext,
    readonly settings: Settings,
  ) {
    this.baseUrl = requireBaseUrl(settings);
    this.tokens = new TokenProvider(new TokenCache(`${ctx.paths.cacheDir}/tokens`), ctx.now);
    if (settings.envToken) ctx.secrets.add(settings.envToken);
  }

  get transport(): Transport {
    this.transportInstance ??=
      this.ctx.transport ??
      createHttpTransport({
        timeoutMs: this.settings.timeoutMs,
        maxResponseBytes: this.settings.maxResponseBytes,
        env: this.ctx.env,
        userAgent: `roster/${VERSION}`,
        log: this.ctx.log,
        secrets: this.ctx.secrets,
      });
    return this.transportInstance;
  }

  get api(): ApiClient {
    this.apiInstance ??= new ApiClient({
      baseUrl: this.baseUrl,
      transport: this.transport,
      auth: this,
      log: this.ctx.log,
      now: this.ctx.now,
      sleep: this.ctx.sleep,
    });
    return this.apiInstance;
  }

  /** The token source of a purpose, honouring the profile's endpoint and scope overrides. */
  tokenSource(purpose: TokenPurpose, choice: TokenChoice = {}): TokenSource {
    const { profile } = this.settings;
    const endpoint = endpointPath(
      choice.endpoint ?? profile.tokenEndpoints?.[purpose] ?? DEFAULT_ENDPOINT[purpose],
    );
    const scope = choice.scope ?? this.settings.scopes[purpose];
    return {
      key: {
        profile: this.settings.profileName,
        baseUrl: this.baseUrl,
        clientId: this.cacheClientId(),
        endpoint,
        scope,
      },
      fetch: async () => {
        const credentials = await loadCredentials(this.ctx, this.settings);
        const token = await requestToken(this.transport, {
          url: `${this.baseUrl}${endpoint}`,
          credentials,
          clientAuth: this.settings.clientAuth,
          scope,
          now: this.ctx.now(),
          scopeHint: scopeHint(purpose, scope, this.settings.profileName),
          notFoundHint: notFoundHint(
            this.baseUrl,
            purpose,
            endpoint,
            choice.endpoint === undefined ? profile.tokenEndpoints?.[purpose] : undefined,
          ),
        });
        this.ctx.secrets.add(token.accessToken);
        return token;
      },
    };
  }

  /**
   * The client id tokens are cached under. Environment credentials can change between runs: a token cached
   * for another secret must not answer for a wrong one. A short one-way fingerprint tells them apart without
   * storing the secret.
   */
  private cacheClientId(): string {
    if (this.cacheClientIdValue === undefined) {
      const env = this.settings.envCredentials;
      this.cacheClientIdValue = env
        ? `${env.clientId}#${fingerprint(env.clientId, env.clientSecret)}`
        : (this.settings.clientId ?? '');
    }
    return this.cacheClientIdValue;
  }

  async accessToken(purpose: TokenPurpose, choice: TokenChoice = {}, refresh = false): Promise<CachedToken> {
    if (this.settings.envToken) {
      return {
        accessToken: this.settings.envToken,
        tokenType: 'bearer',
        expiresAt: Number.NaN,
        expiresIn: Number.NaN,
      };
    }
    const token = await this.tokens.get(this.tokenSource(purpose, choice), { refresh });
    this.ctx.secrets.add(token.accessToken);
    return token;
  }

  /**
   * That a token of this use can be had without asking anyone: ROSTER_TOKEN, a fresh cached token, or client
   * credentials at hand (environment, keychain or file). No request: checked before a command's first
   * question, so a run that cannot send fails before the admin answers anything.
   */
  async checkCredentials(purpose: TokenPurpose): Promise<void> {
    if (this.settings.envToken) return;
    const cached = await this.tokens.peek(this.tokenSource(purpose));
    if (cached && this.tokens.isFresh(cached)) return;
    await loadCredentials(this.ctx, this.settings);
  }

  async token(purpose: TokenPurpose): Promise<string> {
    return (await this.accessToken(purpose)).accessToken;
  }

  async rejected(purpose: TokenPurpose, token: string): Promise<boolean> {
    if (this.settings.envToken) {
      // A fresh token from the wrong endpoint is refused as an expired one is: the hint names both.
      throw new AuthError(
        `The API rejected the access token from ROSTER_TOKEN (HTTP 401) for ${purpose === 'invitations' ? 'an' : 'a'} ${USE[purpose]} request.`,
        `ROSTER_TOKEN goes as it is to every request: it must be current and issued for ${USE[purpose]} requests${TOKEN_COMMAND[purpose] ? ` (\`env -u ROSTER_TOKEN ${TOKEN_COMMAND[purpose]}\` prints one)` : ''}. Unset, roster gets the right token itself.`,
      );
    }
    await this.tokens.invalidate(this.tokenSource(purpose), token);
    return true;
  }
}

const USE: Record<TokenPurpose, string> = {
  general: 'general',
  invitations: 'invitation',
  'oneroster-1.1': 'OneRoster 1.1',
  'oneroster-1.2': 'OneRoster 1.2',
};

/**
 * The next step when nothing answers at a token endpoint (404): the profile's own endpoint for this use when
 * it names one; else a base URL without the service's path (/v1); else a server that serves its tokens at
 * another of the endpoints.
 */
export function notFoundHint(
  baseUrl: string,
  purpose: TokenPurpose,
  endpoint: string,
  configured: string | undefined,
): string {
  const key = `tokenEndpoints.${purpose}`;
  if (configured !== undefined)
    return `This profile sends ${USE[purpose]} tokens' requests to ${printable(endpoint, 200)}: check it (\`roster config get ${key}\`).`;
  if (!/\/v1\/?$/.test(new URL(baseUrl).pathname))
    return `Check the base URL, which includes the service's path (as in https://api.example.org/v1): nothing answers at ${printable(baseUrl + endpoint, 200)}.`;
  return `If this server gives ${USE[purpose]} tokens at another address, name it: \`roster config set ${key} oauth\` (or v1p1, v1p2, a /path).`;
}

/**
 * The `roster token` that prints a token for each use, with the profile's default endpoints and scopes
 * (invitations share OneRoster 1.1's endpoint, spec §4.5, but not its scope: no command prints theirs).
 */
const TOKEN_COMMAND: Record<TokenPurpose, string | undefined> = {
  general: 'roster token',
  invitations: undefined,
  'oneroster-1.1': 'roster token --endpoint v1p1',
  'oneroster-1.2': 'roster token --endpoint v1p2',
};

/**
 * What to do when a token endpoint says the scope is missing or wrong: the settings that give this token
 * use its scope (a flag of `roster login`, the environment, the profile's keys), highest first.
 */
export function scopeHint(
  purpose: TokenPurpose,
  sent: string | undefined,
  profileName: string,
  options: { login?: boolean } = {},
): string {
  const oneroster = purpose.startsWith('oneroster');
  const [flag, variable, shared] = oneroster
    ? ['--oneroster-scope', 'ROSTER_ONEROSTER_SCOPE', 'onerosterScope']
    : ['--scope', 'ROSTER_SCOPE', 'scope'];
  const what = sent === undefined ? 'No scope was sent' : `The scope sent was "${printable(sent)}"`;
  const ask = `${what} for ${USE[purpose]} tokens: ask the district which scope this client may use, then`;
  // `roster login` saves the profile only once a token proves it: the flag is the way there.
  if (options.login) return `${ask} pass it with ${flag} SCOPE (or set ${variable}).`;
  const own = purpose === 'general' ? '' : ` (or scopes.${purpose} for ${USE[purpose]} tokens alone)`;
  const profile = profileName === 'default' ? '' : ` --profile ${profileName}`;
  return (
    `${ask} set it with \`roster config set${profile} ${shared} SCOPE\`${own}, ` +
    `\`roster login${profile} ${flag} SCOPE\`, or ${variable}=SCOPE for one run.`
  );
}

/**
 * @noble/hashes (audited, no dependencies), not node:crypto: loading node:crypto costs a run with a cached
 * token about 3 ms of CPU (OpenSSL and 15 internal modules), a tenth of Node's own start-up; this costs
 * nothing measurable (test/bench/startup.js).
 */
function fingerprint(clientId: string, secret: string): string {
  return bytesToHex(sha256(utf8ToBytes(`roster-token-cache\0${clientId}\0${secret}`))).slice(0, 12);
}

export function endpointPath(endpoint: string): string {
  // Own keys only: `in` would also accept "toString" or "constructor" and return a function.
  if (Object.hasOwn(TOKEN_ENDPOINTS, endpoint))
    return TOKEN_ENDPOINTS[endpoint as keyof typeof TOKEN_ENDPOINTS];
  // A path below the base URL: not "//host/…" (another host to a URL parser), no "." or ".." segments
  // (they would climb out of the base path, taking the client credentials with them).
  if (
    /^\/[A-Za-z0-9._~!$&'()*+,;=:@%/-]*$/.test(endpoint) &&
    !endpoint.startsWith('//') &&
    !endpoint.split('/').some((segment) => /^(?:\.|%2e){1,2}$/i.test(segment))
  ) {
    return endpoint;
  }
  throw new UsageError(
    `Invalid token endpoint "${endpoint.slice(0, 80)}": use oauth, v1p1, v1p2 or a path starting with /.`,
  );
}
