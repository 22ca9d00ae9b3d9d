// What the doctor's checks share during one run: the settings, the credentials (loaded once), one
// transport that notes the server's Date header, and one token per endpoint and scope, so the resource
// checks reuse the tokens the token checks obtained instead of asking again.

import type { CachedToken } from '../api/access-token.js';
import { ApiClient } from '../api/client.js';
import { requestToken, TOKEN_ENDPOINTS } from '../api/oauth.js';
import type { HttpResponse, Transport } from '../api/transport.js';
import { loadCredentials, type ResolvedCredentials } from '../auth/credentials.js';
import type { ClientAuth, TokenPurpose } from '../config-file.js';
import type { Context } from '../context.js';
import { type Session, scopeHint, type TokenChoice } from '../session.js';
import type { Settings } from '../settings.js';

/** The first answer that carried a Date header, with our clock before and after it. */
export interface DatedAnswer {
  date: string;
  sentAt: number;
  receivedAt: number;
}

/** A check that could not run, and why (not a failure of its own). */
export class Skipped extends Error {}

export class DoctorState {
  readonly session?: Session;
  dated?: DatedAnswer;
  /** Outcomes so far, for checks that depend on earlier ones. */
  readonly statuses = new Map<string, 'pass' | 'fail' | 'skip'>();
  private credentialsPromise?: Promise<ResolvedCredentials>;
  private readonly tokens = new Map<string, Promise<CachedToken>>();
  private transportInstance?: Transport;
  private apiInstance?: ApiClient;

  /** `session` is the run's (ctx.session()), absent when no base URL is configured. */
  constructor(
    readonly ctx: Context,
    readonly settings: Settings,
    session?: Session,
  ) {
    this.session = session;
  }

  requireSession(): Session {
    if (!this.session) throw new Skipped('no base URL is configured');
    return this.session;
  }

  credentials(): Promise<ResolvedCredentials> {
    this.credentialsPromise ??= loadCredentials(this.ctx, this.settings);
    return this.credentialsPromise;
  }

  /** The session's transport, noting the first Date header it sees (for the clock check). */
  get transport(): Transport {
    const inner = this.requireSession().transport;
    this.transportInstance ??= {
      send: async (request) => {
        const sentAt = this.ctx.now();
        const response = await inner.send(request);
        this.noteDate(response, sentAt);
        return response;
      },
    };
    return this.transportInstance;
  }

  /** A resource client that reports the first answer: no retries, no replay after a 401. */
  get api(): ApiClient {
    const session = this.requireSession();
    this.apiInstance ??= new ApiClient({
      baseUrl: session.baseUrl,
      transport: this.transport,
      auth: {
        token: async (purpose) => (await this.tokenFor(purpose)).accessToken,
        rejected: async () => false,
      },
      log: this.ctx.log,
      now: this.ctx.now,
      sleep: this.ctx.sleep,
      maxRetries: 0,
    });
    return this.apiInstance;
  }

  /** Endpoint path and scope the CLI would use for a purpose (profile overrides honoured). */
  tokenTarget(purpose: TokenPurpose, choice: TokenChoice = {}): TokenTarget {
    const { endpoint, scope } = this.requireSession().tokenSource(purpose, choice).key;
    return { endpoint, scope, purpose };
  }

  /** A fresh token from an endpoint with a client-auth method: one request per endpoint, scope and method. */
  requestToken(target: TokenTarget, clientAuth: ClientAuth = this.settings.clientAuth): Promise<CachedToken> {
    const key = tokenKey(target, clientAuth);
    let token = this.tokens.get(key);
    if (!token) {
      const session = this.requireSession();
      token = this.credentials().then(async (credentials) => {
        const issued = await requestToken(this.transport, {
          url: `${session.baseUrl}${target.endpoint}`,
          credentials,
          clientAuth,
          scope: target.scope,
          now: this.ctx.now(),
          // The commands' own hint: which setting, flag and variable give this use its scope.
          scopeHint: scopeHint(target.purpose, target.scope, this.settings.profileName),
        });
        this.ctx.secrets.add(issued.accessToken);
        return issued;
      });
      this.tokens.set(key, token);
    }
    return token;
  }

  /** The token a command would send for a purpose: ROSTER_TOKEN when set, else a fresh one. */
  async tokenFor(purpose: TokenPurpose): Promise<CachedToken> {
    const { envToken } = this.settings;
    if (envToken)
      return { accessToken: envToken, tokenType: 'bearer', expiresAt: Number.NaN, expiresIn: Number.NaN };
    const target = this.tokenTarget(purpose);
    // The same request (endpoint and scope) as a token check's: its failure is that check's.
    const asked = this.tokens.has(tokenKey(target, this.settings.clientAuth));
    try {
      return await this.requestToken(target);
    } catch (error) {
      // Already reported by that endpoint's own check: say so rather than fail twice.
      if (this.statuses.get('config') === 'fail') throw new Skipped('no client credentials (see config)');
      const check = tokenCheckOf(target.endpoint);
      if (asked && check && this.statuses.get(check) === 'fail') throw new Skipped(`no token (see ${check})`);
      throw error;
    }
  }

  private noteDate(response: HttpResponse, sentAt: number): void {
    const date = response.headers.date;
    if (this.dated || typeof date !== 'string') return;
    this.dated = { date, sentAt, receivedAt: this.ctx.now() };
  }
}

/** Where a token is asked and with which scope, and the use it is for (which names the scope's settings). */
export interface TokenTarget {
  endpoint: string;
  scope?: string;
  purpose: TokenPurpose;
}

const tokenKey = (target: TokenTarget, clientAuth: ClientAuth) =>
  `${clientAuth} ${target.endpoint} ${target.scope ?? ''}`;

/** The id of the check that covers a token endpoint path, if it is one of the three. */
export function tokenCheckOf(endpoint: string): string | undefined {
  const name = Object.entries(TOKEN_ENDPOINTS).find(([, path]) => path === endpoint)?.[0];
  return name ? `token-${name}` : undefined;
}
