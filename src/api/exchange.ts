// One request and its whole answer over an undici dispatcher, and how far it got when it failed: this is
// what decides whether a failed POST is in doubt (the server may have acted on it) or safely retried.
//
// undici calls onRequestStart on a connection that is established (connected, and over TLS past the
// handshake; through a proxy, once the tunnel is up) right before it writes the request into it, in the
// same turn of the event loop, and never before: a failure after it may have reached the server, a failure
// before it (refused, unresolved, a certificate refused, a proxy that never answered CONNECT, a pooled
// connection found closed while idle) certainly did not. Wrongly "may have", a failure is in doubt where
// it need not be; wrongly "did not", an invitation could go twice.
import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
import { AnswerBody, BodyTooLargeError } from './answer-body.js';
import { headersOf } from './response-headers.js';

export { BodyTooLargeError };

export interface BodyRequest {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  /** The whole exchange, from the request to the answer's last byte. */
  timeoutMs: number;
  /** The most bytes read of the answer, as sent and as decompressed. */
  limit: number;
}

export interface BodyResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  url: string;
}

/** A failure of one exchange, and how far it got. */
export interface ExchangeError extends Error {
  code?: string;
  /** The answer had begun: the server certainly received the request. */
  answered?: boolean;
  /** The request was written into an established connection: the server may have received it. */
  mayHaveArrived?: boolean;
  /** Set when the exchange's timer ran out. */
  timedOut?: boolean;
}

const ACCEPT_ENCODING = 'gzip, deflate, br';

/**
 * One request with its whole answer as text, reading at most `limit` bytes as sent and as decompressed:
 * past either, or when Content-Length announces more, the connection is destroyed and the promise
 * rejects with a BodyTooLargeError. Every rejection says whether the request was written and answered.
 */
export function exchange(dispatcher: Dispatcher, url: URL, init: BodyRequest): Promise<BodyResponse> {
  return new Promise((resolve, reject) => {
    const handler = new Exchange(url, init, resolve, reject);
    dispatcher.dispatch(
      {
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: init.method,
        headers: { 'accept-encoding': ACCEPT_ENCODING, ...init.headers },
        body: init.body === undefined ? null : Buffer.from(init.body),
      },
      handler,
    );
  });
}

type Controller = Dispatcher.DispatchController;

class Exchange implements Dispatcher.DispatchHandler {
  private controller: Controller | undefined;
  private written = false;
  private answer: { status: number; headers: IncomingHttpHeaders; body: AnswerBody } | undefined;
  private settled = false;
  private readonly timer: NodeJS.Timeout;
  private readonly limit: number;

  constructor(
    private readonly url: URL,
    init: BodyRequest,
    private readonly resolve: (response: BodyResponse) => void,
    private readonly reject: (error: ExchangeError) => void,
  ) {
    this.timer = setTimeout(() => {
      const error: ExchangeError = new Error(`no complete answer within ${init.timeoutMs} ms`);
      error.code = 'ETIMEDOUT';
      error.timedOut = true;
      this.fail(error);
    }, init.timeoutMs);
    this.limit = init.limit;
  }

  onRequestStart(controller: Controller): void {
    // Given up on while it waited for a connection: it must not leave now.
    if (this.settled) {
      controller.abort(new Error('the exchange was given up'));
      return;
    }
    this.controller = controller;
    this.written = true;
  }

  onResponseStart(_: Controller, status: number): void {
    if (this.settled || status < 200) return; // 1xx: informational, the answer is still to come
    const raw = this.controller?.rawHeaders;
    const headers = headersOf(Array.isArray(raw) ? raw : []);
    const ends = { done: (body: string) => this.done(status, headers, body), failed: this.failed };
    this.answer = {
      status,
      headers,
      body: new AnswerBody(status, headers['content-encoding'], this.limit, ends),
    };
    if (Number(headers['content-length']) > this.limit) this.fail(new BodyTooLargeError(this.limit));
  }

  onResponseData(_: Controller, chunk: Buffer): void {
    if (!this.settled) this.answer?.body.push(chunk);
  }

  onResponseEnd(): void {
    if (!this.settled) this.answer?.body.end();
  }

  onResponseError(_: Controller, error: Error): void {
    this.fail(failureOf(error, this.answer !== undefined));
  }

  private readonly failed = (error: Error) => this.fail(error);

  private done(status: number, headers: IncomingHttpHeaders, body: string): void {
    if (!this.settle()) return;
    // Two turns of the loop later: undici tells its pool that the connection is free in a setImmediate it
    // queues after this call; a next request made before would find it busy and open another connection (a
    // sequential read alternated between two).
    const response = { status, headers, body, url: this.url.href };
    setImmediate(() => setImmediate(() => this.resolve(response)));
  }

  private fail(error: ExchangeError): void {
    if (!this.settle()) return;
    error.mayHaveArrived = this.written;
    error.answered = error.answered === true || this.answer !== undefined;
    this.controller?.abort(error);
    this.answer?.body.destroy();
    this.reject(error);
  }

  /** Whether this call settled the exchange (false once it was). */
  private settle(): boolean {
    if (this.settled) return false;
    this.settled = true;
    clearTimeout(this.timer);
    return true;
  }
}

/**
 * An undici failure in the words roster has always used: a connection closed without an answer is a
 * "socket hang up", one closed in the middle of the answer a cut answer, an answer of HTTP 101 to a
 * request that asked for no upgrade (undici's "bad upgrade") a switch of protocols, and undici's own
 * connect timeout (as long as the exchange's) the exchange's timeout.
 */
function failureOf(error: Error & { code?: string }, answered: boolean): ExchangeError {
  if (error.code === 'UND_ERR_SOCKET' && error.message === 'bad upgrade') {
    const upgraded: ExchangeError = new Error(
      'the server switched protocols (HTTP 101) instead of answering',
    );
    upgraded.code = 'ERR_UNASKED_UPGRADE';
    upgraded.answered = true;
    return upgraded;
  }
  // (roster's own failures, a timeout or a body too large, come back here too, once settled: ignored.)
  if (answered) return closed('the connection closed before the answer was complete');
  if (error.code === 'UND_ERR_SOCKET') return closed('socket hang up');
  if (error.code === 'UND_ERR_CONNECT_TIMEOUT') {
    const timeout: ExchangeError = new Error(error.message);
    timeout.code = 'ETIMEDOUT';
    timeout.timedOut = true;
    return timeout;
  }
  return error;
}

function closed(message: string): ExchangeError {
  const error: ExchangeError = new Error(message);
  error.code = 'ECONNRESET';
  return error;
}
