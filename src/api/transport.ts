// The one place that puts bytes on the wire, on undici (api/http-client.ts): keep-alive connections, a
// timeout on every request, our User-Agent, redirects under our own rules, and a redacted --debug trace.
// The HTTP client loads lazily, on the first request, so commands that never reach the network never pay
// for it.

import type { IncomingHttpHeaders } from 'node:http';
import { RosterError } from '../errors.js';
import type { Logger } from '../output/log.js';
import type { Redactor } from '../redact.js';
import { DEFAULT_MAX_RESPONSE_BYTES } from '../settings.js';
import { certificateHint } from './certificate-hint.js';
import type { ExchangeError, HttpClient, IdleTimes } from './http-client.js';
import { displayProxy } from './proxy.js';

export interface HttpRequest {
  method: 'GET' | 'POST';
  url: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface HttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  url: string;
}

export interface Transport {
  send(request: HttpRequest): Promise<HttpResponse>;
}

/** No usable answer. `sent` tells whether the server may have received (and acted on) the request. */
export class NetworkError extends RosterError {
  constructor(
    message: string,
    readonly sent: boolean,
    readonly causeCode?: string,
    hint = 'Check the base URL and your network, then try again.',
    /** False when trying again cannot help (an untrusted certificate). */
    readonly retryable = true,
  ) {
    super('network', message, hint);
  }
}

export interface TransportOptions {
  timeoutMs: number;
  /** The most bytes read of one answer, as sent and as decompressed (default 64 MiB). */
  maxResponseBytes?: number;
  /** For HTTPS_PROXY / HTTP_PROXY / NO_PROXY. */
  env: Readonly<Record<string, string | undefined>>;
  userAgent: string;
  log: Logger;
  secrets: Redactor;
  /** How long a pooled connection may sit idle (http-client.ts's IDLE_TIMES unless a test shortens them). */
  idle?: IdleTimes;
}

const MAX_REDIRECTS = 5;
/**
 * The statuses that redirect (RFC 9110 §15.4). Any other 3xx, a Location or not (300 Multiple Choices, 304
 * Not Modified, an unassigned 399), is an answer like any other: for an invitation, one that proves
 * nothing (in doubt), not a redirect answered before the API acted.
 */
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Failures that happen before the request leaves the machine: safe to retry, even for a POST. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
const TLS_TRUST_CODES = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
]);

export function createHttpTransport(options: TransportOptions): Transport {
  let client: Promise<{ http: HttpClient }> | undefined;
  const load = () => {
    client ??= import('./http-client.js').then((m) => ({
      http: m.createHttpClient(options.env, options.timeoutMs, options.idle),
    }));
    return client;
  };

  async function once(request: HttpRequest): Promise<HttpResponse> {
    const { http } = await load();
    const headers = { 'user-agent': options.userAgent, ...request.headers };
    const url = new URL(request.url);
    const proxy = http.proxyFor(url);
    // Not performance.now(): the global `performance` loads node:perf_hooks (nine modules) on first use.
    const started = process.hrtime.bigint();
    trace(options, request, headers, proxy);
    try {
      const result = await http.fetchBody(url, {
        method: request.method,
        headers,
        ...(request.body === undefined ? {} : { body: request.body }),
        timeoutMs: options.timeoutMs,
        limit: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
      });
      traceResponse(options, result, Number(process.hrtime.bigint() - started) / 1e6);
      return result;
    } catch (error) {
      throw toNetworkError(error, request, options);
    }
  }

  return {
    async send(request) {
      let current = request;
      for (let hop = 0; ; hop++) {
        const response = await once(current);
        const location = response.headers.location;
        if (!REDIRECTS.has(response.status) || !location) return response;
        const target = redirectTarget(location, request.url, current.url);
        // A credential the server echoed into the address: new URL() may have rewritten it (a \ turned /, a
        // host in lower case) into a form the redactor does not know, so the address is shown as sent,
        // redacted, and never followed.
        const echoed =
          holdsCredential(options.secrets, location) || holdsCredential(options.secrets, target.href);
        const shown = echoed ? options.secrets.redact(location) : undefined;
        // Never followed, whatever it holds: what it means for an invitation is enrollment.ts's to say.
        if (current.method !== 'GET') throw new RedirectRefused(current, response.status, target, shown);
        if (echoed) throw redirectError('a redirect to an address that holds a credential', request.url);
        if (hop >= MAX_REDIRECTS) throw redirectError(`more than ${MAX_REDIRECTS} redirects`, request.url);
        current = redirected(current, response.status, target, request.url);
      }
    },
  };
}

/**
 * A redirect roster does not follow: any redirect of a POST (following it would turn an invitation or a
 * token request into a GET somewhere else, whose 200 says nothing about the request), and a GET's redirect
 * to another origin. `status` tells what the server meant (see api/enrollment.ts for what it means for a
 * row).
 */
export class RedirectRefused extends RosterError {
  readonly location: string;
  /** `shown`: the address as messages give it, when not the target's own (a credential redacted). */
  constructor(
    request: HttpRequest,
    readonly status: number,
    target: URL,
    shown = target.href,
  ) {
    super(
      'unexpected',
      `Refused to follow a redirect (HTTP ${status}) of ${request.method} ${stripQuery(request.url)} to ${stripQuery(shown)}.`,
      'A redirect usually means a wrong base URL or a sign-in gateway in front of the API: check the base URL.',
    );
    this.location = shown;
  }
}

/**
 * Whether the text holds a whole registered credential or a token-looking value. The space appended keeps
 * the redactor's rule for text cut short (a secret's first characters at its very end) out of it: an
 * ordinary address ending in four characters that begin a secret is no echo.
 */
function holdsCredential(secrets: Redactor, text: string): boolean {
  return secrets.redact(`${text} `) !== `${text} `;
}

/**
 * The next request after a GET's redirect: same origin only. Every request roster makes carries a bearer
 * token and expects the API's own answer: another origin's would be neither (and https → http, a
 * downgrade, is another origin too).
 */
export function redirected(
  request: HttpRequest,
  status: number,
  target: URL,
  asked = request.url,
): HttpRequest {
  const from = new URL(request.url);
  if (from.protocol === 'https:' && target.protocol !== 'https:') {
    throw redirectError(`a redirect from https to ${target.protocol.replace(':', '')}`, asked);
  }
  if (target.origin !== from.origin) throw new RedirectRefused(request, status, target);
  return { ...request, url: target.href };
}

/** `asked`: the URL roster asked for, which messages name (a redirect's own may hold what the server chose). */
function redirectTarget(location: string, asked: string, from: string): URL {
  try {
    return new URL(location, from);
  } catch {
    throw new RosterError(
      'unexpected',
      `Refused a redirect to an invalid address (from ${stripQuery(asked)}).`,
    );
  }
}

function redirectError(what: string, url: string): RosterError {
  return new RosterError('unexpected', `Refused ${what} (from ${stripQuery(url)}).`);
}

function toNetworkError(error: unknown, request: HttpRequest, options: TransportOptions): RosterError {
  if (error instanceof RosterError) return error;
  const e = error as ExchangeError & { limit?: number };
  const code = e.code ?? 'UNKNOWN';
  const where = stripQuery(request.url);
  if (code === 'ERR_BODY_TOO_LARGE') {
    options.log.debug(`! ${request.method} ${where}: answer over ${e.limit} bytes, connection closed`);
    return new NetworkError(
      `The answer from ${where} is larger than ${sizeText(e.limit ?? 0)}, the most roster reads of one answer; it stopped reading there.`,
      true,
      code,
      'If the server really sends answers this large, raise the limit with --max-response-size or ROSTER_MAX_RESPONSE_SIZE (at most 256M).',
      false,
    );
  }
  if (code === 'ERR_UNASKED_UPGRADE') {
    options.log.debug(`! ${request.method} ${where}: HTTP 101, connection closed`);
    return new NetworkError(
      `The server switched protocols (HTTP 101) instead of answering ${request.method} ${where}.`,
      true,
      code,
      'Check the base URL: it may name a WebSocket or another endpoint that is not the API.',
      false,
    );
  }
  // Written into an established connection (and not refused before it left): the server may have acted on it.
  const sent = e.answered === true || (!NOT_SENT_CODES.has(code) && e.mayHaveArrived === true);
  const timedOut = e.timedOut === true || code === 'ETIMEDOUT';
  if (TLS_TRUST_CODES.has(code) || code.startsWith('ERR_TLS_CERT')) {
    return new NetworkError(
      `The certificate of ${new URL(request.url).host} is not trusted: ${e.message ?? code}.`,
      false,
      code,
      certificateHint(code),
      false,
    );
  }
  const message = timedOut
    ? `No answer from ${where} within ${options.timeoutMs / 1000} s.`
    : code === 'ECONNREFUSED'
      ? `Could not connect to ${where}: connection refused.`
      : `Request to ${where} failed: ${options.secrets.redact(e.message ?? code)}.`;
  options.log.debug(`! ${request.method} ${where}: ${code}${e.timedOut ? ' (timeout)' : ''}, sent=${sent}`);
  return new NetworkError(message, sent, code);
}

function trace(
  options: TransportOptions,
  request: HttpRequest,
  headers: Record<string, string>,
  proxy?: string,
) {
  if (!options.log.debugEnabled) return;
  options.log.debug(
    `> ${request.method} ${request.url}${proxy ? ` (via proxy ${displayProxy(proxy)})` : ''}`,
  );
  for (const [name, value] of Object.entries(headers)) options.log.debug(`> ${name}: ${value}`);
  if (request.body) options.log.debug(`> (body: ${Buffer.byteLength(request.body)} bytes)`);
}

function traceResponse(options: TransportOptions, response: HttpResponse, ms: number): void {
  if (!options.log.debugEnabled) return;
  options.log.debug(`< ${response.status} ${response.url} (${Math.round(ms)} ms)`);
  for (const name of [
    'content-type',
    'x-total-count',
    'link',
    'retry-after',
    'location',
    'www-authenticate',
  ]) {
    const value = response.headers[name];
    if (value !== undefined) options.log.debug(`< ${name}: ${String(value)}`);
  }
  // Error bodies help diagnose; success bodies may carry student records and tokens, so only their size.
  if (response.status >= 400) options.log.debug(`< ${response.body.slice(0, 500)}`);
  else options.log.debug(`< (body: ${Buffer.byteLength(response.body)} bytes)`);
}

/** 67108864 → "64 MiB". */
function sizeText(bytes: number): string {
  for (const [unit, size] of [
    ['GiB', 1024 ** 3],
    ['MiB', 1024 ** 2],
    ['KiB', 1024],
  ] as const) {
    if (bytes >= size) return `${Number((bytes / size).toFixed(1))} ${unit}`;
  }
  return `${bytes} bytes`;
}

export const stripQuery = (url: string) => url.split('?')[0] ?? url;
