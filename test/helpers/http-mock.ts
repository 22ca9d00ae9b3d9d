// A scripted wire for behaviour tests, after gh's httpmock: a test registers what each request gets, hands
// the registry to the run as its Transport (fakeContext's `transport`), and `verify()` fails the test if a
// stub was never used or a request matched none. No socket, no server, no wait: what a command does with
// an answer, not how the answer travelled (test/unit/api/transport.test.ts tests the wire itself).
import { afterEach } from 'vitest';
import {
  type HttpRequest,
  type HttpResponse,
  NetworkError,
  type Transport,
} from '../../src/api/transport.js';

export interface Matcher {
  method: HttpRequest['method'];
  /** The URL's path, exactly (no query), or a pattern tested against the whole URL. */
  path: string | RegExp;
  /** A further condition: the body, a header, the query. */
  where?: (request: HttpRequest) => boolean;
}

/** An answer: `body` an object is sent as JSON (content-type application/json unless headers name one). */
export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  body?: string | object;
}

/** Answers a matched request, or throws (a NetworkError: no usable answer). */
export type Responder = (request: HttpRequest) => Reply | Promise<Reply>;

interface Stub {
  matcher: Matcher;
  responder: Responder;
  /** How many requests it answers (then it is used up and the next matching stub answers). */
  times: number;
  used: number;
}

export class HttpMock implements Transport {
  private readonly stubs: Stub[] = [];
  /** Every request sent, in order, matched or not. */
  readonly requests: HttpRequest[] = [];
  /** The requests no stub matched (each also failed its send). */
  readonly unmatched: HttpRequest[] = [];

  /** `times`: how many requests the stub answers (default 1; Infinity for all). */
  register(matcher: Matcher, responder: Responder | Reply, options: { times?: number } = {}): this {
    const respond = typeof responder === 'function' ? responder : () => responder;
    this.stubs.push({ matcher, responder: respond, times: options.times ?? 1, used: 0 });
    return this;
  }

  async send(request: HttpRequest): Promise<HttpResponse> {
    this.requests.push(request);
    const stub = this.stubs.find((s) => s.used < s.times && matches(s.matcher, request));
    if (!stub) {
      this.unmatched.push(request);
      // Not a NetworkError: a command that retries or reports network failures must not absorb it.
      throw new Error(`http-mock: no stub matches ${shown(request)}`);
    }
    stub.used++;
    return toResponse(await stub.responder(request), request.url);
  }

  /** Throws if a request matched no stub, or a stub was never used. */
  verify(): void {
    const problems = [
      ...this.unmatched.map((r) => `no stub matched ${shown(r)}`),
      ...this.stubs.filter((s) => s.used === 0).map((s) => `stub never used: ${shownMatcher(s.matcher)}`),
    ];
    if (problems.length > 0) throw new Error(`http-mock:\n  ${problems.join('\n  ')}`);
  }
}

/** A registry for each test of the file, verified after it. */
export function useHttpMock(): { readonly http: HttpMock } {
  let current: HttpMock | undefined;
  afterEach(() => {
    const mock = current;
    current = undefined;
    mock?.verify();
  });
  return {
    get http() {
      current ??= new HttpMock();
      return current;
    },
  };
}

export const json = (body: unknown, status = 200, headers: Record<string, string> = {}): Reply => ({
  status,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

/** A failure with no usable answer; `sent`: whether the server may have received the request. */
export const networkFailure =
  (sent = false, code = 'ECONNRESET'): Responder =>
  (request) => {
    throw new NetworkError(`Request to ${request.url} failed: ${code}.`, sent, code);
  };

/** A token endpoint's answer (RFC 6749 §5.1). */
export const tokenReply = (accessToken: string, expiresIn = 3600, scope?: string): Reply =>
  json({ access_token: accessToken, token_type: 'bearer', expires_in: expiresIn, ...(scope && { scope }) });

/** The request carries this bearer token. */
export const bearer =
  (token: string) =>
  (request: HttpRequest): boolean =>
    request.headers?.authorization === `Bearer ${token}`;

function matches(matcher: Matcher, request: HttpRequest): boolean {
  if (matcher.method !== request.method) return false;
  const pathOk =
    typeof matcher.path === 'string'
      ? new URL(request.url).pathname === matcher.path
      : matcher.path.test(request.url);
  return pathOk && (matcher.where?.(request) ?? true);
}

function toResponse(reply: Reply, url: string): HttpResponse {
  const { status = 200, headers = {}, body = '' } = reply;
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const type = typeof body === 'string' ? {} : { 'content-type': 'application/json' };
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  return { status, headers: { ...type, ...lower }, body: text, url };
}

const shown = (r: HttpRequest) => `${r.method} ${r.url}`;
const shownMatcher = (m: Matcher) => `${m.method} ${String(m.path)}${m.where ? ' (with a condition)' : ''}`;
