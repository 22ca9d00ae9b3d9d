// Resource requests (everything but the token endpoints): a bearer token on each, one replay after a
// 401 with a fresh token, retries per api/retry.ts, and every error answer turned into a RosterError. A POST
// is replayed or retried only when the answer proves the API did not act on it (api/post-outcome.ts).
import type { TokenPurpose } from '../config-file.js';
import { ApiError, ForeignAnswerError, InDoubtError, type RosterError } from '../errors.js';
import type { Logger } from '../output/log.js';
import { errorFromResponse } from './errors.js';
import {
  backoffDelay,
  isRetryableStatus,
  MAX_RETRIES,
  MAX_RETRY_AFTER_MS,
  parseRetryAfter,
} from './retry.js';
import { type HttpResponse, NetworkError, stripQuery, type Transport } from './transport.js';

/** Hands out bearer tokens and hears when the server rejected one. */
export interface Authenticator {
  token(purpose: TokenPurpose): Promise<string>;
  /** Called after a 401; true when a different token may now be tried. */
  rejected(purpose: TokenPurpose, token: string): Promise<boolean>;
}

export interface ResourceRequest {
  method: 'GET' | 'POST';
  /** Path below the base URL, e.g. `/attendance/status`. */
  path: string;
  /** An already-encoded query string, without `?`. */
  query?: string;
  json?: unknown;
  purpose: TokenPurpose;
  /** Names the operation in messages, e.g. "Attendance check". */
  what: string;
  /** For a POST whose outcome is unknown: how the user can find out. */
  unknownOutcomeHint?: string;
  /**
   * Asked before a POST is tried again after an answer that proves nothing was done (a 429, the API's 503
   * with Retry-After) but that came from past the network: it may throw to stop, when the server's own
   * records show the request was done after all (a gateway that answers so after the API acted).
   */
  beforeRetry?: () => Promise<void>;
}

export interface ApiClientOptions {
  baseUrl: string;
  transport: Transport;
  auth: Authenticator;
  log: Logger;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  maxRetries?: number;
  random?: () => number;
}

export class ApiClient {
  constructor(private readonly options: ApiClientOptions) {}

  get baseUrl(): string {
    return this.options.baseUrl;
  }

  url(path: string, query?: string): string {
    return `${this.options.baseUrl}${path}${query ? `?${query}` : ''}`;
  }

  /** Sends the request; resolves with a 2xx response or throws. */
  async send(request: ResourceRequest): Promise<HttpResponse> {
    const url = this.url(request.path, request.query);
    const body = request.json === undefined ? undefined : JSON.stringify(request.json);
    const tries: Tries = { attempt: 0, askedAfter401: false, replayedAfter401: false };
    for (;;) {
      const token = await this.options.auth.token(request.purpose);
      const response = await this.sendOnce(request, url, body, token, tries);
      if (response === undefined) continue;
      // A POST in doubt is neither replayed nor retried.
      const doubt = await doubtOfPost(request, response);
      if (doubt !== undefined) throw answerInDoubt(response.status, request, doubt);
      if (await this.replayAfter401(request, response, token, tries)) continue;
      if (await this.retryAfterAnswer(request, response, tries)) continue;
      if (response.status >= 200 && response.status < 300) return response;
      throw finalError(response, request, tries.replayedAfter401, tries.attempt);
    }
  }

  /**
   * One try on the wire. A network error either throws (a POST that may have been sent, an error not worth
   * a retry, the retries spent) or is waited out, and then the answer is undefined: try again.
   */
  private async sendOnce(
    request: ResourceRequest,
    url: string,
    body: string | undefined,
    token: string,
    tries: Tries,
  ): Promise<HttpResponse | undefined> {
    try {
      return await this.options.transport.send({
        method: request.method,
        url,
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body,
      });
    } catch (error) {
      if (!(error instanceof NetworkError)) throw error;
      if (request.method !== 'GET' && error.sent) throw outcomeUnknown(request, url, error.message);
      if (!error.retryable) throw error;
      if (tries.attempt >= this.maxRetries) throw gaveUp(error, tries.attempt + 1);
      const delay = backoffDelay(tries.attempt++, this.options.random);
      this.options.log.debug(
        `retrying ${request.method} ${stripQuery(url)} in ${delay} ms after: ${error.message}`,
      );
      await this.options.sleep(delay);
      return undefined;
    }
  }

  /** After the first 401 of a request: true when the authenticator has another token to replay it with. */
  private async replayAfter401(
    request: ResourceRequest,
    response: HttpResponse,
    token: string,
    tries: Tries,
  ): Promise<boolean> {
    if (response.status !== 401 || tries.askedAfter401) return false;
    tries.askedAfter401 = true;
    if (!(await this.options.auth.rejected(request.purpose, token))) return false;
    tries.replayedAfter401 = true;
    this.options.log.debug('the API rejected the access token; fetching a new one and replaying once');
    return true;
  }

  /**
   * An answer worth another try (api/retry.ts) while tries are left: waits what the server asked, or the
   * backoff, and says true. A Retry-After longer than roster waits is not waited out: the answer stands.
   */
  private async retryAfterAnswer(
    request: ResourceRequest,
    response: HttpResponse,
    tries: Tries,
  ): Promise<boolean> {
    const retryAfter = header(response, 'retry-after');
    if (!isRetryableStatus(request.method, response.status, retryAfter) || tries.attempt >= this.maxRetries) {
      return false;
    }
    const asked = parseRetryAfter(retryAfter, this.options.now());
    if (asked !== undefined && asked > MAX_RETRY_AFTER_MS) return false;
    const delay = asked ?? backoffDelay(tries.attempt, this.options.random);
    tries.attempt++;
    this.options.log.debug(
      `HTTP ${response.status}; retry ${tries.attempt}/${this.maxRetries} in ${delay} ms`,
    );
    await this.options.sleep(delay);
    if (request.method === 'POST') await request.beforeRetry?.();
    return true;
  }

  private get maxRetries(): number {
    return this.options.maxRetries ?? MAX_RETRIES;
  }
}

/** What one request has spent so far: its retries, and its one replay after a 401. */
interface Tries {
  attempt: number;
  askedAfter401: boolean;
  replayedAfter401: boolean;
}

/**
 * Why a POST's error answer leaves it in doubt, if it does. Loaded only for a POST's error answer, off the
 * start-up path of every command that never posts.
 */
async function doubtOfPost(request: ResourceRequest, response: HttpResponse): Promise<string | undefined> {
  if (request.method !== 'POST' || (response.status >= 200 && response.status < 300)) return undefined;
  return (await import('./post-outcome.js')).doubtOf(response);
}

function finalError(response: HttpResponse, request: ResourceRequest, replayed: boolean, attempts: number) {
  const error = errorFromResponse(response, request.what);
  if (response.status === 401 && replayed) {
    return new ApiError(
      'auth',
      401,
      `${error.message} (a fresh token was rejected too)`,
      'Check that this client may use this API, or run `roster login` again.',
      error instanceof ApiError ? error.serverMessage : undefined,
    );
  }
  if (attempts > 0 && error instanceof ApiError) {
    return new ApiError(
      error.code as 'api',
      response.status,
      `${error.message} (after ${attempts + 1} tries)`,
      error.hint,
      error.serverMessage,
    );
  }
  return error;
}

function outcomeUnknown(request: ResourceRequest, url: string, reason: string): RosterError {
  return new InDoubtError(
    `${request.what}: the outcome is unknown. The request to ${stripQuery(url)} may have reached the server (${reason.replace(/\.$/, '')}); it was not sent again.`,
    request.unknownOutcomeHint,
  );
}

/**
 * A POST answered in a way that does not prove the API left it alone. A 5xx concerns this request (a
 * gateway losing the API now and then); any other such answer (a sign-in page's 401, a firewall's 403, a
 * 404 page) every later request would meet too.
 */
function answerInDoubt(status: number, request: ResourceRequest, why: string): RosterError {
  const message = `${request.what}: the outcome is unknown (in doubt). ${why[0]!.toUpperCase()}${why.slice(1)}; it was not sent again.`;
  return status >= 500
    ? new InDoubtError(message, request.unknownOutcomeHint, status)
    : new ForeignAnswerError('outcome-unknown', message, request.unknownOutcomeHint, status);
}

function gaveUp(error: NetworkError, tries: number): RosterError {
  return tries > 1
    ? new NetworkError(
        `${error.message.replace(/\.$/, '')} (gave up after ${tries} tries)`,
        error.sent,
        error.causeCode,
        error.hint,
      )
    : error;
}

function header(response: HttpResponse, name: string): string | undefined {
  const value = response.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
