// Node's own HTTP client as roster's plain transport: keep-alive sockets shared by every request of a run,
// a proxy agent per proxy when HTTPS_PROXY / HTTP_PROXY apply, and one timer over the whole exchange. No
// retries (api/client.ts owns them) and no redirects (transport.ts owns those). Bodies are read here, as a
// stream, so that no answer costs more than a set number of bytes, as sent or as decompressed (a gzip
// bomb, an endless body). Not got: with all of its features off, as roster used it, got cost 0.8 ms of CPU
// a POST against node:http's 0.43 (docs/performance.md), and a district's send is 80,000 POSTs.
// node:https (with node:tls and node:crypto) loads only for an https:// URL, hpagent (which loads it) only
// for a proxy, and node:zlib only for a compressed body: the build turns imports of these into stand-ins
// that load the module on first use (esbuild.config.mjs).
import {
  type ClientRequest,
  Agent as HttpAgent,
  type Agent as HttpAgentType,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import type { Transform } from 'node:stream';
import zlib from 'node:zlib';
import { monotonicMs } from '../clock.js';
import { proxyFor } from './proxy.js';

type Env = Readonly<Record<string, string | undefined>>;

// `timeout`: roster, not the server, ends an idle connection: after 4 s, or 1 s before the server's
// `Keep-Alive: timeout=N` (Node reads that hint only when the agent has a timeout of its own).
const AGENT_OPTIONS = { keepAlive: true, maxSockets: 16, keepAliveMsecs: 10_000, timeout: 4_000 };
const ACCEPT_ENCODING = 'gzip, deflate, br';
/** A pooled socket idle this long may have been closed by the server meanwhile (see fetchBody). */
const IDLE_CHECK_MS = 1_000;

/** When each pooled socket was last given back to its agent. */
const idleSince = new WeakMap<Socket, number>();
/** An agent whose idle sockets are noted, and closed after the pool's idle timeout whatever its own. */
function pooled<A extends HttpAgentType>(agent: A): A {
  agent.on('free', (socket: Socket) => {
    idleSince.set(socket, monotonicMs());
    // After the agent's own handler (registered first), which may have set a shorter one from a hint.
    const idle = socket.timeout;
    if (!(idle && idle <= AGENT_OPTIONS.timeout)) socket.setTimeout(AGENT_OPTIONS.timeout);
  });
  return agent;
}

export interface HttpClient {
  /** The agent for a target URL: direct, or through the proxy the environment names for it. */
  agentFor(url: URL): Promise<{ agent: HttpAgentType; proxy?: string }>;
}

/** `timeoutMs`: a request's whole exchange (a proxy's CONNECT waits as long, see below). */
export function createHttpClient(env: Env, timeoutMs: number): HttpClient {
  const plain = pooled(new HttpAgent(AGENT_OPTIONS));
  let secure: HttpsAgent | undefined;
  const viaProxy = new Map<string, { http: HttpAgentType; https: HttpAgentType }>();
  return {
    async agentFor(url) {
      const https = url.protocol === 'https:';
      const proxy = proxyFor(url, env);
      if (!proxy) {
        if (!https) return { agent: plain };
        secure ??= pooled(new HttpsAgent(AGENT_OPTIONS));
        return { agent: secure };
      }
      let agents = viaProxy.get(proxy);
      if (!agents) {
        const { proxyAgents } = await import('./proxy-agents.js');
        // hpagent also takes `timeout` as its CONNECT's: a proxy that never answers one would otherwise keep
        // the process alive, and a slow one deserves the request's own timeout, not the pool's 4 s (idle
        // sockets still close at 4 s: pooled).
        const options = { ...AGENT_OPTIONS, timeout: Math.max(AGENT_OPTIONS.timeout, timeoutMs), proxy };
        // Another request may have made them while this one waited for the module.
        agents = viaProxy.get(proxy);
        if (!agents) {
          const made = proxyAgents(options);
          agents = { http: pooled(made.http), https: pooled(made.https) };
          viaProxy.set(proxy, agents);
        }
      }
      return { agent: https ? agents.https : agents.http, proxy };
    },
  };
}

export interface BodyRequest {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  agent: HttpAgentType;
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

/** An answer larger than the limit; reading stopped there. */
export class BodyTooLargeError extends Error {
  readonly code = 'ERR_BODY_TOO_LARGE';
  constructor(readonly limit: number) {
    super(`the answer is larger than ${limit} bytes`);
  }
}

/** A failure of one exchange, and how far it got. */
export interface ExchangeError extends Error {
  code?: string;
  /** The answer had begun: the server certainly received the request. */
  answered?: boolean;
  /**
   * The request was written into an established connection: the server may have received it, whatever
   * happened next. (Not the request's 'finish': over TLS that can come a turn of the loop after the bytes
   * left, or never, if the server's close is read first.)
   */
  mayHaveArrived?: boolean;
  /** Set when the exchange's timer ran out. */
  timedOut?: boolean;
}

const NO_BODY = new Set([204, 205, 304]);

/**
 * One request with its whole answer as text, reading at most `limit` bytes as sent and as decompressed:
 * past either, or when Content-Length announces more, the connection is destroyed and the promise
 * rejects with a BodyTooLargeError. Every rejection says whether the request was uploaded and answered.
 */
export function fetchBody(url: URL, init: BodyRequest): Promise<BodyResponse> {
  return new Promise((resolve, reject) => {
    const payload = init.body === undefined ? undefined : Buffer.from(init.body);
    const headers: Record<string, string> = { 'accept-encoding': ACCEPT_ENCODING, ...init.headers };
    if (payload) headers['content-length'] = String(payload.length);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const request: ClientRequest = send(url, { method: init.method, headers, agent: init.agent });
    let response: IncomingMessage | undefined;
    let decoder: Transform | undefined;
    let written = false;
    let established = false;
    let settled = false;
    const settle = () => {
      settled = true;
      clearTimeout(timer);
    };
    const fail = (error: ExchangeError) => {
      if (settled) return;
      settle();
      error.mayHaveArrived = written && established;
      error.answered = error.answered === true || response !== undefined;
      request.destroy();
      response?.destroy();
      decoder?.destroy();
      reject(error);
    };
    const timer = setTimeout(() => {
      const error: ExchangeError = new Error(`no complete answer within ${init.timeoutMs} ms`);
      error.code = 'ETIMEDOUT';
      error.timedOut = true;
      fail(error);
    }, init.timeoutMs);
    request.on('error', fail);
    // A 101 (Switching Protocols) to a request that asked for no upgrade: Node hands the socket to an
    // 'upgrade' listener and, with none, closes it without an error, so the exchange would wait out its
    // timeout. The server had the request (it answered), so a POST's outcome is in doubt.
    request.once('upgrade', (_answer: IncomingMessage, socket: Socket) => {
      socket.destroy();
      // Before the request was written (a pooled socket the server wrote into): it never left.
      if (!written) return fail(exchangeError('the server answered before the request was written'));
      const error: ExchangeError = new Error('the server switched protocols (HTTP 101) instead of answering');
      error.code = 'ERR_UNASKED_UPGRADE';
      error.answered = true;
      fail(error);
    });
    request.once('response', (answer: IncomingMessage) => {
      if (!written) return fail(exchangeError('the server answered before the request was written'));
      response = answer;
      const status = answer.statusCode ?? 0;
      const answerHeaders = answer.headers;
      if (Number(answerHeaders['content-length']) > init.limit)
        return fail(new BodyTooLargeError(init.limit));
      const chunks: Buffer[] = [];
      let size = 0;
      let raw = 0;
      const take = (chunk: Buffer) => {
        if (settled) return;
        size += chunk.length;
        if (size > init.limit) return fail(new BodyTooLargeError(init.limit));
        chunks.push(chunk);
      };
      const finish = () => {
        if (settled) return;
        settle();
        const body = Buffer.concat(chunks, size).toString('utf8');
        resolve({ status, headers: answerHeaders, url: url.href, body });
      };
      const encoding = NO_BODY.has(status)
        ? ''
        : String(answerHeaders['content-encoding'] ?? '')
            .trim()
            .toLowerCase();
      answer.on('data', (chunk: Buffer) => {
        if (settled) return;
        raw += chunk.length;
        if (raw > init.limit) return fail(new BodyTooLargeError(init.limit));
        if (!decoder) {
          decoder = decoderFor(encoding, chunk);
          if (!decoder) return take(chunk);
          decoder.on('data', take);
          decoder.once('end', finish);
          decoder.on('error', fail);
        }
        decoder.write(chunk);
      });
      answer.once('end', () => (decoder ? decoder.end() : finish()));
      // A connection closed before the answer's last byte (fewer bytes than its Content-Length, say): Node
      // says "aborted", or nothing at all but the close.
      const cut = () => exchangeError('the connection closed before the answer was complete');
      answer.on('error', (error: ExchangeError) => fail(answer.complete ? error : cut()));
      answer.once('close', () => answer.complete || fail(cut()));
    });
    const write = () => {
      written = true;
      request.end(payload);
    };
    // A socket that sat in the pool may have been closed by the server (its idle timeout) or been written
    // into (a gateway's 408) while the event loop was busy, unread: a request written into it would fail
    // after leaving, in doubt. Two turns of the loop (one poll) let Node read that first; the request then
    // fails unsent, and is retried. Sockets in steady use skip the wait.
    request.once('socket', (socket: Socket) => {
      // Established unless still connecting: then once connected (over TLS, once the handshake is done;
      // no byte of the request leaves before). Anything else counts as established, whatever its state:
      // wrongly so, a failure is in doubt where it need not be; wrongly not, a request could go twice.
      const tls = (socket as { encrypted?: boolean }).encrypted === true;
      if (!socket.connecting) established = true;
      else socket.once(tls ? 'secureConnect' : 'connect', () => (established = true));
      if (!request.reusedSocket || monotonicMs() - (idleSince.get(socket) ?? 0) < IDLE_CHECK_MS)
        return write();
      setImmediate(() =>
        setImmediate(() => {
          if (settled) return;
          if (socket.destroyed || socket.readableEnded || socket.readableLength > 0) {
            return fail(exchangeError('the server had closed the idle connection'));
          }
          write();
        }),
      );
    });
  });
}

function exchangeError(message: string): ExchangeError {
  const error: ExchangeError = new Error(message);
  error.code = 'ECONNRESET';
  return error;
}

/** A decompressor for a Content-Encoding, or undefined for identity and the unasked-for. */
function decoderFor(encoding: string, first: Buffer): Transform | undefined {
  if (encoding === 'br') return zlib.createBrotliDecompress();
  // "deflate" should be zlib-wrapped (RFC 1950: CM 8, header a multiple of 31), but some servers send it raw.
  const [cmf = 0, flg = 0] = first;
  if (encoding === 'deflate' && !((cmf & 0x0f) === 8 && ((cmf << 8) | flg) % 31 === 0)) {
    return zlib.createInflateRaw();
  }
  if (encoding === 'gzip' || encoding === 'x-gzip' || encoding === 'deflate') return zlib.createUnzip();
  return undefined;
}
