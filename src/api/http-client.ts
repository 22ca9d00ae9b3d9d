// roster's plain transport on undici: keep-alive connections shared by every request of a run, a proxy
// agent per proxy when HTTPS_PROXY / HTTP_PROXY apply (api/proxy.ts decides which), and one timer over
// the whole exchange (api/exchange.ts). No retries (api/client.ts owns them) and no redirects
// (transport.ts owns those). This module, and undici with it, loads only when a command first reaches
// the network (transport.ts).

import { monotonicMs } from '../clock.js';
import { type BodyRequest, type BodyResponse, exchange } from './exchange.js';
import { proxyFor } from './proxy.js';
import { Agent, type Dispatcher } from './undici-parts.js';

export type { BodyRequest, BodyResponse, ExchangeError } from './exchange.js';
export { BodyTooLargeError } from './exchange.js';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * How long a pooled connection may sit idle. roster, not the server, ends an idle connection: after
 * `keepAliveMs`, or `keepAliveThresholdMs` before the server's `Keep-Alive: timeout=N`, and never later than
 * `keepAliveMs` whatever the server announces. A connection idle `idleCheckMs` may have been closed by the
 * server meanwhile (see `whenChecked`). The defaults are roster's; tests shorten them, to wait milliseconds, not
 * seconds, for what happens at their end.
 */
export interface IdleTimes {
  keepAliveMs: number;
  keepAliveThresholdMs: number;
  idleCheckMs: number;
}

export const IDLE_TIMES: IdleTimes = { keepAliveMs: 4_000, keepAliveThresholdMs: 1_000, idleCheckMs: 1_000 };

/** No timeout of undici's own for headers or body: the exchange's timer covers both. */
const poolOptions = (idle: IdleTimes) => ({
  connections: 16,
  keepAliveTimeout: idle.keepAliveMs,
  keepAliveMaxTimeout: idle.keepAliveMs,
  keepAliveTimeoutThreshold: idle.keepAliveThresholdMs,
  headersTimeout: 0,
  bodyTimeout: 0,
});
type PoolOptions = ReturnType<typeof poolOptions>;

export interface HttpClient {
  /** The proxy a request to this URL goes through, from the environment, or undefined for none. */
  proxyFor(url: URL): string | undefined;
  /** One request and its whole answer (api/exchange.ts). */
  fetchBody(url: URL, init: BodyRequest): Promise<BodyResponse>;
}

/** `timeoutMs`: a request's whole exchange (a connection, and a proxy's CONNECT, wait as long). */
export function createHttpClient(env: Env, timeoutMs: number, idle: IdleTimes = IDLE_TIMES): HttpClient {
  const options = { ...poolOptions(idle), connect: { timeout: timeoutMs } };
  let direct: Agent | undefined;
  const viaProxy = new Map<string, Promise<Dispatcher>>();
  const dispatcherFor = async (proxy: string | undefined): Promise<Dispatcher> => {
    if (!proxy) {
      direct ??= new Agent(options);
      return direct;
    }
    let agent = viaProxy.get(proxy);
    if (!agent) {
      agent = proxyAgent(proxy, options, timeoutMs);
      viaProxy.set(proxy, agent);
    }
    return agent;
  };
  const idleOrigins = idleTracker(idle.idleCheckMs);
  return {
    proxyFor: (url) => proxyFor(url, env),
    async fetchBody(url, init) {
      const dispatcher = await dispatcherFor(proxyFor(url, env));
      await idleOrigins.whenChecked(url.origin);
      idleOrigins.start(url.origin);
      try {
        return await exchange(dispatcher, url, init);
      } finally {
        idleOrigins.end(url.origin);
      }
    },
  };
}

/**
 * A proxy's agent: the CONNECT tunnel (for http:// targets too, so that the proxy never sees a request's
 * credentials) gets the request's own timeout, at least the time an idle connection lives: a proxy that
 * never answers one would otherwise keep the process alive, and a slow one deserves the request's time.
 */
async function proxyAgent(proxy: string, options: PoolOptions, timeoutMs: number): Promise<Dispatcher> {
  const { Pool, ProxyAgent } = await import('./undici-proxy.js');
  const connectTimeout = Math.max(options.keepAliveTimeout, timeoutMs);
  return new ProxyAgent({
    ...options,
    uri: proxy,
    proxyTunnel: true,
    // The connection to the proxy (its `proxyTls` options serve a plain http:// proxy too), and the
    // target's TLS handshake through the tunnel.
    proxyTls: { timeout: connectTimeout },
    requestTls: { timeout: timeoutMs },
    clientFactory: (origin: URL, made: object) =>
      new Pool(origin, { ...made, headersTimeout: connectTimeout }),
  });
}

/**
 * A connection that sat in the pool may have been closed by the server (its idle timeout) or been written
 * into (a gateway's 408) while the event loop was busy, unread. undici looks at a reused connection before
 * writing into it, one turn of the loop later (a setImmediate); when the busy step ran in the callback of
 * another connection's answer, as a send's do, that turn ends before the loop polls this connection, and
 * the request was written into a dead one: in doubt though the server never saw it
 * (test/unit/api/transport.test.ts proves it). So a request to an origin idle for `idleCheckMs` first waits a
 * turn of its own: undici's look then comes after a poll, finds the connection closed and opens another.
 * Origins in steady use skip the wait.
 */
function idleTracker(idleCheckMs: number) {
  const state = new Map<string, { running: number; since: number }>();
  const of = (origin: string) => {
    const entry = state.get(origin) ?? { running: 0, since: monotonicMs() };
    state.set(origin, entry);
    return entry;
  };
  return {
    whenChecked(origin: string): Promise<void> | undefined {
      const entry = state.get(origin);
      if (!entry || entry.running > 0 || monotonicMs() - entry.since < idleCheckMs) return undefined;
      return new Promise((resolve) => setImmediate(resolve));
    },
    start: (origin: string) => void of(origin).running++,
    end(origin: string) {
      const entry = of(origin);
      entry.running--;
      entry.since = monotonicMs();
    },
  };
}
