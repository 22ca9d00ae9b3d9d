// The local, spec-faithful stand-in for the Rostering and Enrollment API, on loopback only. This module
// wires sockets to the route modules and applies faults; the behaviour of each endpoint lives in its module.
import { randomInt } from 'node:crypto';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { createAttendanceRoute } from './attendance.js';
import { type DemoClient, demoClients } from './clients.js';
import { enrollmentPage } from './enroll.js';
import { Faults, type ScriptedFault } from './faults.js';
import { createGateway } from './gateway.js';
import { BodyTooLarge, isLoopbackHost, readBody, sendResponse, sendTruncated, splitTarget } from './http.js';
import { createInvitationsRoute, type InvitationRecord, InvitationStore } from './invitations.js';
import type { ChurnChange } from './oneroster/churn.js';
import { isoDay } from './oneroster/district.js';
import { createOneRosterService, type OneRosterSandboxOptions } from './oneroster/index.js';
import { Outbox, type SentEmail } from './outbox.js';
import type { Quirks } from './quirks.js';
import { authenticateBearer, handleTokenRequest, TOKEN_ENDPOINTS, TokenStore } from './tokens.js';
import type { Caller, ResourceRoute, SandboxRequest, SandboxResponse } from './types.js';

export type { DemoClient } from './clients.js';
export type { ScriptedFault } from './faults.js';
export type { InvitationRecord, PublicInvitation } from './invitations.js';
export type { ChurnChange } from './oneroster/churn.js';
export type { SentEmail } from './outbox.js';
export type { Quirks } from './quirks.js';

export interface SandboxOptions {
  /** Default '127.0.0.1'. Any host that is not loopback is refused (the demo secrets are public). */
  host?: string;
  /** Default 0: an ephemeral port. */
  port?: number;
  /** Lifetime of issued access tokens, whole seconds (default 3600, spec §8). */
  tokenTtlSeconds?: number;
  /** Delay every response by latencyMs plus up to jitterMs. */
  latencyMs?: number;
  jitterMs?: number;
  /** Resource endpoints answer failStatus (default 503, with Retry-After: 1) with this probability, unprocessed. */
  failRate?: number;
  failStatus?: number;
  /** Resource endpoints process the request, then cut the connection mid-response with this probability. */
  dropRate?: number;
  /** Requests per second per client over all resource endpoints; excess gets 429 with Retry-After. */
  rateLimit?: number;
  /** Seed of the PRNG behind every random fault (default: random; read it back from `sandbox.seed`). */
  seed?: number;
  /** When set, every invitation e-mail is also written here as an .eml file. */
  outboxDir?: string;
  /** Keep `sandbox.requests` (default true). */
  record?: boolean;
  /** One line per request: method, path (no query), status, milliseconds, client id. Never a secret or token. */
  log?: (line: string) => void;
  oneroster?: OneRosterSandboxOptions;
  /** OneRoster records changed per minute (name and grade edits, new students and enrollments, tobedeleted). */
  churnPerMinute?: number;
  /** Clock in epoch milliseconds, for tests of token expiry and rate limits (default Date.now). */
  now?: () => number;
  /** Behaviours of real deployments the spec does not describe (`--quirks`): see quirks.ts. */
  quirks?: Quirks;
  /** Serve HTTPS with this key and certificate (PEM) instead of plain HTTP. */
  tls?: { key: string | Buffer; cert: string | Buffer };
}

export interface RecordedRequest {
  method: string;
  /** Full path as sent, including /v1, never decoded. */
  path: string;
  rawQuery: string;
  /** Raw headers, Authorization included: this list is for tests and stays in memory. */
  headers: IncomingHttpHeaders;
  body: string;
  /** Status answered (0 while still in progress). */
  status: number;
  /** Set when the connection was cut mid-response on purpose. */
  dropped?: boolean;
  /** The client the request was attributed to, when known. */
  clientId?: string;
  /** Which TCP connection carried it (1, 2, … in order of first use): tests count keep-alive reuse. */
  connection: number;
}

export interface InjectFaultOptions extends ScriptedFault {}

export interface Sandbox {
  /** e.g. http://127.0.0.1:43123/v1 — the spec's {base_url}. */
  baseUrl: string;
  /** e.g. http://127.0.0.1:43123 */
  origin: string;
  seed: number;
  clients: DemoClient[];
  /** Every request to /v1 (and stray paths) in arrival order; the /__sandbox admin calls are left out. */
  requests: RecordedRequest[];
  outbox: SentEmail[];
  invitations(): InvitationRecord[];
  revokeAllTokens(): void;
  /** Makes n OneRoster changes at once (as POST /__sandbox/churn?n=N does) and returns them. */
  churn(n: number): ChurnChange[];
  /** A scripted fault: the next `times` (default 1) matching /v1 requests get it, before anything else. */
  injectFault(fault: InjectFaultOptions): void;
  /** Drops every scripted fault still waiting for a match (they stay registered until used up). */
  clearFaults(): void;
  setOptions(
    patch: Partial<
      Pick<
        SandboxOptions,
        'latencyMs' | 'jitterMs' | 'failRate' | 'failStatus' | 'dropRate' | 'rateLimit' | 'tokenTtlSeconds'
      >
    >,
  ): void;
  close(): Promise<void>;
}

interface Outcome {
  response: SandboxResponse;
  clientId?: string;
  drop?: boolean;
}

const json = (status: number, message: string, headers?: Record<string, string>): SandboxResponse =>
  headers ? { status, headers, body: { message } } : { status, body: { message } };

/** A scripted fault's answer: its status (default 503), headers and body (default the API's `{message}`). */
function faultResponse(fault: ScriptedFault): SandboxResponse {
  const response: SandboxResponse = {
    status: fault.status ?? 503,
    body: fault.body ?? { message: 'Injected fault' },
  };
  if (fault.headers) response.headers = fault.headers;
  return response;
}

function checkTtl(ttl: number): number {
  if (!Number.isInteger(ttl) || ttl < 1)
    throw new RangeError(`tokenTtlSeconds must be a positive integer (got ${ttl})`);
  return ttl;
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const host = options.host ?? '127.0.0.1';
  if (!isLoopbackHost(host)) {
    throw new Error(
      `The sandbox only listens on loopback (127.0.0.1, ::1, localhost); refusing host ${host}`,
    );
  }
  const sandbox = new SandboxServer(options);
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    sandbox.handle(req, res).catch(() => res.destroy());
  };
  // TLS for rehearsing a district's HTTPS set-up (custom CA, proxies); plain HTTP otherwise.
  const server = options.tls ? createHttpsServer(options.tls, listener) : createServer(listener);
  // Long keep-alive so clients (bulk sends, paged exports) reuse their sockets.
  server.keepAliveTimeout = 30_000;
  server.headersTimeout = 35_000;
  const address = await listen(server, options.port ?? 0, host);
  const hostPart = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  sandbox.origin = `${options.tls ? 'https' : 'http'}://${hostPart}:${address.port}`;
  return sandbox.handleFor(server);
}

function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}

/**
 * One sandbox's state and its request handling: the demo clients, tokens, invitations, the OneRoster
 * district and the faults, and the path every request takes (admin, enrolment page, token endpoints,
 * resource routes).
 */
class SandboxServer {
  /** e.g. http://127.0.0.1:43123, known once the server listens. */
  origin = '';
  readonly seed: number;
  readonly clients = demoClients();
  readonly tokens: TokenStore;
  readonly invitations = new InvitationStore();
  readonly outbox: Outbox;
  readonly requests: RecordedRequest[] = [];
  readonly faults: Faults;
  ttlSeconds: number;
  private readonly now: () => number;
  /**
   * The server's own clock (quirk clock): its Date header and the dateLastModified churn stamps. Tokens,
   * rate limits and invitations keep `now`: a token's lifetime is relative, whatever the clock says.
   */
  private readonly serverClock: () => number;
  private readonly record: boolean;
  /** --quirks gateway-503: a load balancer that loses some of the API's answers to invitations it sent. */
  private readonly gateway?: (response: SandboxResponse) => SandboxResponse;
  private readonly oneroster: ReturnType<typeof createOneRosterService>;
  /** Tried in order; each answers the paths it owns. */
  private readonly routes: ResourceRoute[];
  private readonly churnTimer?: NodeJS.Timeout;
  private readonly delays = new Delays();
  private readonly connections = new ConnectionIds();
  private closed = false;

  constructor(private readonly options: SandboxOptions) {
    this.now = options.now ?? Date.now;
    const clockOffsetMs = options.quirks?.clockOffsetMs ?? 0;
    this.serverClock = () => this.now() + clockOffsetMs;
    this.seed = options.seed ?? randomInt(2 ** 31);
    this.ttlSeconds = checkTtl(options.tokenTtlSeconds ?? 3600);
    this.faults = new Faults(
      {
        latencyMs: options.latencyMs,
        jitterMs: options.jitterMs,
        failRate: options.failRate,
        failStatus: options.failStatus,
        dropRate: options.dropRate,
        rateLimit: options.rateLimit,
      },
      this.seed,
    );
    if (options.quirks?.gateway503) this.gateway = createGateway(options.quirks.gateway503, this.seed);
    this.tokens = new TokenStore(this.now);
    this.outbox = new Outbox(options.outboxDir);
    this.record = options.record ?? true;
    // The district's school year is the one containing today by the server's own clock.
    this.oneroster = createOneRosterService(
      { today: isoDay(this.serverClock()), ...options.oneroster },
      options.quirks,
    );
    this.routes = [
      createAttendanceRoute(this.clients),
      createInvitationsRoute({
        store: this.invitations,
        outbox: this.outbox,
        now: this.now,
        origin: () => this.origin,
        endlessPages: options.quirks?.endlessPages,
      }),
      this.oneroster.route,
    ];
    this.churnTimer = this.startChurn(options.churnPerMinute);
  }

  /** Makes n OneRoster changes at once, stamped by the server's clock. */
  churn(n: number): ChurnChange[] {
    const changes = this.oneroster.churn.apply(n, this.serverClock());
    for (const c of changes) this.options.log?.(`churn: ${c.change} ${c.collection} ${c.sourcedId}`);
    return changes;
  }

  /** --churn N: about N changes a minute, made once a second (fractions carried over). */
  private startChurn(perMinute: number | undefined): NodeJS.Timeout | undefined {
    if (!perMinute || perMinute <= 0) return undefined;
    let carried = 0;
    const timer = setInterval(() => {
      carried += perMinute / 60;
      const n = Math.floor(carried);
      carried -= n;
      if (n > 0) this.churn(n);
    }, 1000);
    timer.unref();
    return timer;
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    const method = req.method ?? 'GET';
    const { path, rawQuery } = splitTarget(req.url);
    const isAdmin = path.startsWith('/__sandbox/');
    const entry: RecordedRequest = {
      method,
      path,
      rawQuery,
      headers: req.headers,
      body: '',
      status: 0,
      connection: this.connections.of(req.socket),
    };
    if (this.record && !isAdmin) this.requests.push(entry);
    const outcome = await this.answer(req, entry, isAdmin);
    if (!isAdmin) await this.delays.sleep(this.faults.delayMs());
    if (this.closed) return;
    entry.status = outcome.response.status;
    // The server's clock, which also stamps churned records' dateLastModified.
    outcome.response.headers = {
      Date: new Date(this.serverClock()).toUTCString(),
      ...outcome.response.headers,
    };
    if (outcome.clientId !== undefined) entry.clientId = outcome.clientId;
    if (outcome.drop) {
      entry.dropped = true;
      sendTruncated(res, outcome.response);
    } else {
      sendResponse(res, outcome.response);
    }
    const ms = Math.round(performance.now() - started);
    this.options.log?.(
      `${method} ${path} ${entry.status} ${ms}ms ${outcome.clientId ?? '-'}${outcome.drop ? ' (connection dropped)' : ''}`,
    );
  }

  /** The answer to a request, by its path: admin, the enrolment page, or the API under /v1. */
  private async answer(req: IncomingMessage, entry: RecordedRequest, isAdmin: boolean): Promise<Outcome> {
    const { method, path, rawQuery } = entry;
    try {
      const body = await readBody(req);
      entry.body = body.toString('utf8');
      if (isAdmin) return { response: this.admin(method, path, rawQuery) };
      if (path === '/enroll') {
        const query = new URLSearchParams(rawQuery);
        return { response: enrollmentPage(this.invitations, method, query, this.now()) };
      }
      if (path === '/v1' || path.startsWith('/v1/')) {
        const sreq: SandboxRequest = {
          method,
          path: path.slice(3) || '/',
          rawQuery,
          query: new URLSearchParams(rawQuery),
          headers: req.headers,
          body,
        };
        return await this.dispatch(sreq, req.socket.remoteAddress ?? 'unknown');
      }
      return { response: json(404, `No such endpoint: ${path} (the API is served under /v1)`) };
    } catch (err) {
      if (err instanceof BodyTooLarge)
        return { response: json(413, 'The request body is too large', { Connection: 'close' }) };
      this.options.log?.(`sandbox error: ${(err as Error).message}`);
      return { response: json(500, 'Internal sandbox error') };
    }
  }

  private admin(method: string, path: string, rawQuery: string): SandboxResponse {
    const only = (allowed: string, body: () => unknown): SandboxResponse =>
      method === allowed
        ? { status: 200, body: body() }
        : json(405, `Use ${allowed} for ${path}`, { Allow: allowed });
    if (path === '/__sandbox/outbox') return only('GET', () => this.outbox.sent);
    if (path === '/__sandbox/invitations') return only('GET', () => this.invitations.records);
    if (path === '/__sandbox/revoke-tokens')
      return only('POST', () => ({ revoked: this.tokens.revokeAll() }));
    if (path === '/__sandbox/churn') {
      const n = new URLSearchParams(rawQuery).get('n') ?? '1';
      if (!/^\d{1,5}$/.test(n) || Number(n) < 1 || Number(n) > 10_000) {
        return json(400, `n must be a whole number from 1 to 10000 (got "${n.slice(0, 20)}")`);
      }
      return only('POST', () => ({ changes: this.churn(Number(n)) }));
    }
    return json(404, `No sandbox admin endpoint ${path}`);
  }

  /** A scripted fault first; then the token endpoints, else the resources. */
  private async dispatch(sreq: SandboxRequest, remote: string): Promise<Outcome> {
    const scripted = this.faults.takeScripted(sreq);
    if (scripted && !scripted.drop && !scripted.afterProcessing) return { response: faultResponse(scripted) };
    const drop = scripted?.drop === true;
    const outcome = await this.process(sreq, remote, drop);
    // The work is done (an invitation created and e-mailed); the client hears the fault instead.
    return scripted?.afterProcessing && !drop ? { ...outcome, response: faultResponse(scripted) } : outcome;
  }

  private async process(sreq: SandboxRequest, remote: string, drop: boolean): Promise<Outcome> {
    if (TOKEN_ENDPOINTS.includes(sreq.path)) {
      const result = handleTokenRequest(sreq, sreq.path, {
        clients: this.clients,
        store: this.tokens,
        ttlSeconds: this.ttlSeconds,
        requiredScope: this.options.quirks?.requiredScope,
      });
      return { ...result, drop };
    }
    return this.resource(sreq, remote, drop);
  }

  private async resource(sreq: SandboxRequest, remote: string, drop: boolean): Promise<Outcome> {
    const auth = authenticateBearer(sreq, this.tokens);
    const caller: Caller | undefined = 'caller' in auth ? auth.caller : undefined;
    // Throttling and random failures happen "in front of" the service, before any processing.
    const retryAfter = this.faults.rateLimited(
      caller ? `client:${caller.clientId}` : `addr:${remote}`,
      this.now(),
    );
    if (retryAfter !== undefined) {
      const limit = this.faults.settings.rateLimit;
      return {
        response: json(429, `Rate limit exceeded: at most ${limit} requests per second`, {
          'Retry-After': String(retryAfter),
        }),
        ...(caller ? { clientId: caller.clientId } : {}),
      };
    }
    const roll = this.faults.rollResource();
    if (roll.fail) {
      const status = this.faults.settings.failStatus;
      const headers: Record<string, string> = status === 503 || status === 429 ? { 'Retry-After': '1' } : {};
      return {
        response: json(status, 'The service is temporarily unavailable (injected failure)', headers),
        ...(caller ? { clientId: caller.clientId } : {}),
      };
    }
    if ('response' in auth) return { response: auth.response };
    return this.routeRequest(sreq, auth.caller, drop || roll.drop);
  }

  /** Tries each resource route in order; the first that owns the path answers. */
  private async routeRequest(sreq: SandboxRequest, caller: Caller, drop: boolean): Promise<Outcome> {
    for (const handler of this.routes) {
      const response = await handler(sreq, caller);
      if (!response) continue;
      const invitation = sreq.method === 'POST' && sreq.path === '/enrollment/invitations';
      return {
        response: this.gateway && invitation ? this.gateway(response) : response,
        clientId: caller.clientId,
        drop,
      };
    }
    return {
      response: json(404, `No such endpoint: ${sreq.method} /v1${sreq.path}`),
      clientId: caller.clientId,
    };
  }

  /** What tests and `roster sandbox` hold: the addresses, the records kept, and the controls. */
  handleFor(server: Server): Sandbox {
    const { origin, faults, invitations, tokens } = this;
    return {
      baseUrl: `${origin}/v1`,
      origin,
      seed: this.seed,
      clients: this.clients.map((c) => ({ ...c })),
      requests: this.requests,
      outbox: this.outbox.sent,
      invitations: () => invitations.records.map((r) => ({ ...r, scopes: [...r.scopes] })),
      revokeAllTokens: () => {
        tokens.revokeAll();
      },
      churn: (n) => this.churn(n),
      injectFault: (fault) => faults.inject(fault),
      clearFaults: () => faults.clearScripted(),
      setOptions: (patch) => {
        const { tokenTtlSeconds, ...faultPatch } = patch;
        if (tokenTtlSeconds !== undefined) this.ttlSeconds = checkTtl(tokenTtlSeconds);
        faults.update(faultPatch);
      },
      close: () =>
        new Promise<void>((resolve) => {
          this.closed = true;
          if (this.churnTimer) clearInterval(this.churnTimer);
          this.delays.endAll();
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    };
  }
}

/** Response delays (--latency, --jitter) that closing the sandbox ends at once. */
class Delays {
  private readonly pending = new Set<() => void>();

  sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      if (ms <= 0) return resolve();
      const done = () => {
        clearTimeout(timer);
        this.pending.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.pending.add(done);
    });
  }

  endAll(): void {
    for (const done of [...this.pending]) done();
  }
}

/** Which TCP connection carried a request (1, 2, … in order of first use): tests count keep-alive reuse. */
class ConnectionIds {
  private readonly ids = new WeakMap<object, number>();
  private count = 0;

  of(socket: object): number {
    let id = this.ids.get(socket);
    if (id === undefined) {
      id = ++this.count;
      this.ids.set(socket, id);
    }
    return id;
  }
}
