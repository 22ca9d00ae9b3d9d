// The HTTP transport against a real HTTP server on 127.0.0.1: redirects under our rules, timeouts and
// refused connections as NetworkErrors, and a --debug trace that never shows a credential or a 2xx body.
import { spawn } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import {
  type AddressInfo,
  createServer as createNetServer,
  type Server as NetServer,
  type Socket,
} from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { IDLE_TIMES, type IdleTimes } from '../../../src/api/http-client.js';
import {
  createHttpTransport,
  type HttpRequest,
  NetworkError,
  RedirectRefused,
  redirected,
} from '../../../src/api/transport.js';
import { createLogger } from '../../../src/output/log.js';
import { Redactor } from '../../../src/redact.js';
import { until } from '../../helpers/cli.js';
import { failure } from '../../helpers/errors.js';
import { makeTestPki, type TestPki } from '../../helpers/tls.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  host: string;
}

let server: Server;
let port: number;
let seen: Seen[] = [];
const here = (path: string) => `http://127.0.0.1:${port}${path}`;
/** The same server under another origin (a different host name). */
const elsewhere = (path: string) => `http://localhost:${port}${path}`;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      seen.push({
        method: req.method ?? '',
        url: url.pathname,
        headers: req.headers,
        body,
        host: req.headers.host ?? '',
      });
      const hops = Number(url.searchParams.get('hops') ?? 0);
      switch (url.pathname) {
        case '/ok':
          res.writeHead(200, { 'content-type': 'application/json' });
          return res.end('{"access_token":"secret-token-in-body","clientLabel":"Riverside"}');
        case '/fail':
          res.writeHead(500, { 'content-type': 'application/json' });
          return res.end('{"message":"boom"}');
        case '/same':
          res.writeHead(302, { location: '/ok' });
          return res.end();
        case '/cross':
          res.writeHead(302, { location: elsewhere('/ok') });
          return res.end();
        case '/cross307':
          res.writeHead(307, { location: elsewhere('/ok') });
          return res.end();
        case '/same307':
          res.writeHead(307, { location: '/ok' });
          return res.end();
        case '/loop':
          res.writeHead(302, { location: `/loop?hops=${hops + 1}` });
          return res.end();
        case '/chain':
          res.writeHead(302, { location: hops >= 4 ? '/ok' : `/chain?hops=${hops + 1}` });
          return res.end();
        case '/bad-location':
          res.writeHead(302, { location: 'http://[not-an-address' });
          return res.end();
        case '/slow':
          return; // never answers
        default:
          res.writeHead(404);
          return res.end();
      }
    });
  });
  port = await listening(server);
});
afterAll(() => shutDown(server));
beforeEach(() => {
  seen = [];
});

/** Listens on an ephemeral port of 127.0.0.1; resolves with the port. */
async function listening(server: Server | NetServer): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function shutDown(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

function transport(
  options: {
    timeoutMs?: number;
    debug?: boolean;
    env?: Record<string, string>;
    idle?: Partial<IdleTimes>;
  } = {},
) {
  let err = '';
  const secrets = new Redactor();
  const stderr = {
    write(chunk: string) {
      err += chunk;
      return true;
    },
  };
  const t = createHttpTransport({
    timeoutMs: options.timeoutMs ?? 5000,
    env: options.env ?? {},
    userAgent: 'roster/test',
    log: createLogger(stderr, secrets, options.debug ?? false),
    secrets,
    idle: { ...IDLE_TIMES, ...options.idle },
  });
  return { t, secrets, stderr: () => err };
}

const auth = { authorization: 'Bearer tok-abcdef123456' };

describe('createHttpTransport', () => {
  it('sends our User-Agent and returns error statuses as responses', async () => {
    const { t } = transport();
    const ok = await t.send({ method: 'GET', url: here('/ok') });
    expect(ok.status).toBe(200);
    expect(seen[0]?.headers['user-agent']).toBe('roster/test');
    const fail = await t.send({ method: 'GET', url: here('/fail') });
    expect(fail).toMatchObject({ status: 500, body: '{"message":"boom"}' });
  });

  it('follows a same-origin redirect with the Authorization header', async () => {
    const { t } = transport();
    const response = await t.send({ method: 'GET', url: here('/same'), headers: auth });
    expect(response.status).toBe(200);
    expect(seen.map((s) => s.url)).toEqual(['/same', '/ok']);
    expect(seen[1]?.headers.authorization).toBe(auth.authorization);
  });

  it('refuses a redirect to another origin: nothing reaches it, with or without the token', async () => {
    const { t } = transport();
    const error = await failure(t.send({ method: 'GET', url: here('/cross'), headers: auth }));
    expect(error).toBeInstanceOf(RedirectRefused);
    expect(error.message).toBe(
      `Refused to follow a redirect (HTTP 302) of GET ${here('/cross')} to ${elsewhere('/ok')}.`,
    );
    expect(seen.map((s) => s.host)).toEqual([`127.0.0.1:${port}`]);
  });

  it.each(['/same', '/same307'])(
    'never follows a redirect of a POST, even within the origin (%s)',
    async (path) => {
      const { t } = transport();
      const error = await failure(
        t.send({ method: 'POST', url: here(path), headers: { 'content-type': 'text/plain' }, body: 'x=1' }),
      );
      expect(error).toBeInstanceOf(RedirectRefused);
      expect((error as RedirectRefused).location).toBe(here('/ok'));
      expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual([`POST ${path}`]);
    },
  );

  it('never replays a request body to another origin', async () => {
    const { t } = transport();
    const error = await failure(
      t.send({
        method: 'POST',
        url: here('/cross307'),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials&client_id=a&client_secret=hunter22',
      }),
    );
    expect(error.code).toBe('unexpected');
    expect(seen.map((s) => s.host)).toEqual([`127.0.0.1:${port}`]);
  });

  it('follows up to 5 redirects and refuses more', async () => {
    const { t } = transport();
    expect((await t.send({ method: 'GET', url: here('/chain') })).status).toBe(200);
    expect(seen).toHaveLength(6);
    seen = [];
    const error = await failure(t.send({ method: 'GET', url: here('/loop') }));
    expect(error.code).toBe('unexpected');
    expect(error.message).toBe(`Refused more than 5 redirects (from ${here('/loop')}).`);
    expect(seen).toHaveLength(6);
  });

  it('turns a timeout into a NetworkError with a clear message', async () => {
    const { t } = transport({ timeoutMs: 100 });
    const error = await failure(t.send({ method: 'GET', url: here('/slow?x=1') }));
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.code).toBe('network');
    expect(error.message).toBe(`No answer from ${here('/slow')} within 0.1 s.`);
    expect((error as NetworkError).sent).toBe(true);
  });

  it('reports a refused connection as not sent', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const { t } = transport();
    const url = `http://127.0.0.1:${closedPort}/v1/oauth/token`;
    const error = await failure(t.send({ method: 'POST', url, body: 'x' }));
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.message).toBe(`Could not connect to ${url}: connection refused.`);
    expect((error as NetworkError).sent).toBe(false);
    expect((error as NetworkError).causeCode).toBe('ECONNREFUSED');
  });

  it('traces requests under --debug with credentials redacted and no 2xx body', async () => {
    const { t, stderr } = transport({ debug: true });
    await t.send({
      method: 'POST',
      url: here('/ok'),
      headers: {
        authorization: 'Basic ZGVtbzpzM2NyZXQ=',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials',
    });
    await t.send({ method: 'GET', url: here('/fail'), headers: auth });
    const trace = stderr();
    expect(trace).toContain(`[debug] > POST ${here('/ok')}`);
    expect(trace).toContain('[debug] > authorization: Basic [redacted]');
    expect(trace).toContain('[debug] > authorization: Bearer [redacted]');
    expect(trace).toContain('[debug] < 200');
    expect(trace).toMatch(/\[debug\] < \(body: \d+ bytes\)/);
    expect(trace).toContain('[debug] < {"message":"boom"}');
    expect(trace).not.toContain('ZGVtbzpzM2NyZXQ');
    expect(trace).not.toContain('tok-abcdef123456');
    expect(trace).not.toContain('secret-token-in-body');
    expect(trace).not.toContain('Riverside');
  });

  it('traces nothing without --debug', async () => {
    const { t, stderr } = transport();
    await t.send({ method: 'GET', url: here('/ok'), headers: auth });
    expect(stderr()).toBe('');
  });
});

describe('a malformed redirect', () => {
  it('is a clear error, not a crash', async () => {
    const error = await failure(
      transport().t.send({ method: 'GET', url: `http://127.0.0.1:${port}/bad-location` }),
    );
    expect(error.code).toBe('unexpected');
    expect(error.message).toBe(
      `Refused a redirect to an invalid address (from http://127.0.0.1:${port}/bad-location).`,
    );
  });
});

describe('redirected', () => {
  const request: HttpRequest = {
    method: 'POST',
    url: 'https://api.example/v1/oauth/token',
    headers: { Authorization: 'Basic abc', 'Content-Type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  };

  it('refuses a downgrade from https to http', () => {
    expect(() => redirected(request, 302, new URL('http://api.example/v1/oauth/token'))).toThrow(
      'Refused a redirect from https to http (from https://api.example/v1/oauth/token).',
    );
  });

  it('refuses another origin, even just another port', () => {
    expect(() =>
      redirected({ ...request, method: 'GET', body: undefined }, 302, new URL('https://api.example:8443/x')),
    ).toThrow(RedirectRefused);
  });

  it('keeps everything on a same-origin 308', () => {
    expect(redirected(request, 308, new URL('https://api.example/v2/oauth/token'))).toEqual({
      ...request,
      url: 'https://api.example/v2/oauth/token',
    });
  });
});

/**
 * Whether the server may have acted on a request decides whether a failed POST is in doubt: each way an
 * exchange can break, against a server that breaks it so, with what reached that server.
 */
describe('how far a broken exchange got', () => {
  let rude: Server;
  let rudePort: number;
  let bodies: number[] = [];
  beforeAll(async () => {
    rude = createServer((req, res) => {
      const path = req.url ?? '';
      if (path === '/unread') return req.socket.pause(); // never reads the body: the upload cannot finish
      let size = 0;
      req.on('data', (d: Buffer) => (size += d.length));
      req.on('end', () => {
        bodies.push(size);
        if (path === '/hang-up') return req.socket.destroy();
        if (path === '/stall') {
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
          return res.write('{"partial":');
        }
        if (path === '/cut') {
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
          res.write('{"cut":');
          return setTimeout(() => req.socket.destroy(), 20);
        }
        res.writeHead(404);
        res.end();
      });
    });
    rudePort = await listening(rude);
  });
  afterAll(() => shutDown(rude));
  beforeEach(() => {
    bodies = [];
  });
  const at = (path: string) => `http://127.0.0.1:${rudePort}${path}`;
  const post = (path: string, body = '{"email":"a@example.org"}', timeoutMs = 1000) =>
    failure(
      transport({ timeoutMs }).t.send({ method: 'POST', url: at(path), body }),
    ) as Promise<NetworkError>;

  it('a connection closed once the whole request arrived: sent, in doubt', async () => {
    const error = await post('/hang-up');
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.message).toBe(`Request to ${at('/hang-up')} failed: socket hang up.`);
    expect(error.sent).toBe(true);
    expect(bodies).toEqual([25]);
  });

  it('an answer cut before its last byte: sent, and said so', async () => {
    const error = await post('/cut');
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.sent).toBe(true);
    expect(error.message).toBe(
      `Request to ${at('/cut')} failed: the connection closed before the answer was complete.`,
    );
  });

  it('an answer that stops half-way: a timeout, sent', async () => {
    const error = await post('/stall', undefined, 100);
    expect(error.message).toBe(`No answer from ${at('/stall')} within 0.1 s.`);
    expect(error.sent).toBe(true);
  });

  it('a request whose body never finished leaving: a timeout, in doubt (part of it arrived)', async () => {
    // 16 MB: more than the socket buffers on both sides hold, so the upload cannot complete.
    // Half a second, not less: run alone, the connection and the first megabytes take a good part of it.
    const error = await post('/unread', 'x'.repeat(16 * 1024 * 1024), 500);
    expect(error.message).toBe(`No answer from ${at('/unread')} within 0.5 s.`);
    expect(error.sent).toBe(true);
    expect(bodies).toEqual([]);
  });
});

/** A raw TCP server: each connection handed to `onSocket`, which speaks HTTP/1.1 by hand. */
async function rawServer(onSocket: (socket: Socket) => void): Promise<{ port: number; close(): void }> {
  const raw = createNetServer((socket) => {
    socket.on('error', () => {});
    onSocket(socket);
  });
  return { port: await listening(raw), close: () => raw.close() };
}

/** Calls `each` with the first line of every whole request (headers and Content-Length body) a socket carries. */
function onRequests(socket: Socket, each: (line: string) => void) {
  let buffer = '';
  socket.setEncoding('latin1');
  socket.on('data', (data: string) => {
    buffer += data;
    for (let end = buffer.indexOf('\r\n\r\n'); end >= 0; end = buffer.indexOf('\r\n\r\n')) {
      const length = Number(/content-length: *(\d+)/i.exec(buffer.slice(0, end))?.[1] ?? 0);
      if (buffer.length - end - 4 < length) return;
      each(buffer.slice(0, buffer.indexOf('\r\n')));
      buffer = buffer.slice(end + 4 + length);
    }
  });
}

/** A pooled connection idle 50 ms (not roster's 1 s) is checked before reuse: the tests wait 100 ms, not 1.2 s. */
const CHECKED_AFTER_50_MS = { idleCheckMs: 50 };

/** The event loop held for `ms`, as a long synchronous step of a run holds it. */
const busy = (ms: number) => {
  for (const until = Date.now() + ms; Date.now() < until; );
};
const settled = <T>(promise: Promise<T>) =>
  promise.then(
    (value) => value,
    (error: unknown) => error,
  );

/**
 * A kept-alive connection the server ends, or writes into, while it sits in the pool and roster is busy:
 * the next request must neither be written into a closed connection (it would be in doubt though the server
 * never saw it) nor take bytes it never asked for as its answer. undici finds the connection dead before
 * writing and sends the request over a new one.
 */
describe('a kept-alive connection, idle in the pool', () => {
  it.each([
    ['closed by the server', (socket: Socket) => setTimeout(() => socket.destroy(), 50)],
    [
      'written into by the server (a stray 201 for an invitation nobody asked for)',
      (socket: Socket) =>
        setTimeout(() => socket.write('HTTP/1.1 201 Created\r\ncontent-length: 13\r\n\r\n{"fake":true}'), 30),
    ],
  ])(
    '%s while roster was busy: the next POST goes over a new connection, neither in doubt nor answered by it',
    async (_, afterAnswer) => {
      const seen: string[] = [];
      let connections = 0;
      const raw = await rawServer((socket) => {
        connections++;
        onRequests(socket, (line) => {
          seen.push(line);
          socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}');
          afterAnswer(socket);
        });
      });
      try {
        const { t } = transport({ idle: CHECKED_AFTER_50_MS });
        const url = (path: string) => `http://127.0.0.1:${raw.port}${path}`;
        await t.send({ method: 'POST', url: url('/first'), body: '{}' });
        busy(100); // what the server did meanwhile (after 30 or 50 ms) waits, unread
        const second = await settled(t.send({ method: 'POST', url: url('/second'), body: '{}' }));
        await new Promise((resolve) => setTimeout(resolve, 100));
        expect(second).toMatchObject({ status: 200, body: '{}' });
        expect(seen).toEqual(['POST /first HTTP/1.1', 'POST /second HTTP/1.1']);
        expect(connections).toBe(2);
      } finally {
        raw.close();
      }
    },
  );

  it('closed by the server while roster was busy with another connection: the next POST goes over a new one', async () => {
    // The long step runs where a district's send runs it, after the answer on another connection, whose
    // socket alone the loop has read: undici's own look at the idle connection, a turn later, came before
    // the loop read this one's close, and the POST was written into it (ECONNRESET, in doubt).
    const seen: string[] = [];
    let connections = 0;
    const raw = await rawServer((socket) => {
      connections++;
      onRequests(socket, (line) => {
        seen.push(line);
        socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}');
        setTimeout(() => socket.destroy(), 50);
      });
    });
    try {
      const { t } = transport({ idle: CHECKED_AFTER_50_MS });
      const url = (path: string) => `http://127.0.0.1:${raw.port}${path}`;
      await t.send({ method: 'POST', url: url('/first'), body: '{}' });
      await t.send({ method: 'GET', url: here('/ok') });
      busy(100);
      const second = await settled(t.send({ method: 'POST', url: url('/second'), body: '{}' }));
      expect(second).toMatchObject({ status: 200, body: '{}' });
      expect(seen).toEqual(['POST /first HTTP/1.1', 'POST /second HTTP/1.1']);
      expect(connections).toBe(2);
    } finally {
      raw.close();
    }
  });

  it('is closed by roster before the idle timeout the server announced (Keep-Alive: timeout=1)', async () => {
    let closedByRoster = false;
    const raw = await rawServer((socket) => {
      socket.on('end', () => (closedByRoster = true));
      onRequests(socket, () =>
        socket.write('HTTP/1.1 200 OK\r\nkeep-alive: timeout=1\r\ncontent-length: 2\r\n\r\n{}'),
      );
    });
    try {
      // Closed 950 ms before the server's 1 s, at 50 ms: well before roster's own 4 s.
      const { t } = transport({ idle: { keepAliveThresholdMs: 950 } });
      await t.send({ method: 'POST', url: `http://127.0.0.1:${raw.port}/x`, body: '{}' });
      await until(() => closedByRoster, 1000);
    } finally {
      raw.close();
    }
  });
});

describe('through a proxy', () => {
  it('an idle tunnel is closed by roster after its idle time (50 ms here), whatever the request timeout (30 s here)', async () => {
    let closedByRoster = false;
    const proxy = await rawServer((socket) => {
      socket.on('end', () => (closedByRoster = true));
      onRequests(socket, (line) =>
        socket.write(
          line.startsWith('CONNECT')
            ? 'HTTP/1.1 200 Connection established\r\n\r\n'
            : 'HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}',
        ),
      );
    });
    try {
      const { t } = transport({
        timeoutMs: 30_000,
        env: { HTTP_PROXY: `http://127.0.0.1:${proxy.port}` },
        idle: { keepAliveMs: 50 },
      });
      await t.send({ method: 'POST', url: 'http://api.district.example/v1/x', body: '{}' });
      await until(() => closedByRoster, 2000);
    } finally {
      proxy.close();
    }
  });

  it('slow to answer CONNECT (longer than an idle connection lives), within the request timeout: the request goes through', async () => {
    const proxy = await rawServer((socket) => {
      let tunnel = false;
      socket.once('data', () =>
        setTimeout(() => {
          socket.write('HTTP/1.1 200 Connection established\r\n\r\n');
          tunnel = true;
        }, 1200),
      );
      // Through the tunnel, the proxy plays the origin.
      onRequests(socket, (line) => {
        if (tunnel) socket.write(`HTTP/1.1 200 OK\r\ncontent-length: ${line.length}\r\n\r\n${line}`);
      });
    });
    try {
      // 1.2 s, not less: undici times the CONNECT's answer with its coarse timers (ticks of half a second),
      // so a wait cut short at the idle time (30 ms) would end within a second.
      const { t } = transport({
        timeoutMs: 5000,
        env: { HTTP_PROXY: `http://127.0.0.1:${proxy.port}` },
        idle: { keepAliveMs: 30 },
      });
      const answer = await t.send({ method: 'GET', url: 'http://api.district.example/v1/ping' });
      expect(answer).toMatchObject({ status: 200, body: 'GET /v1/ping HTTP/1.1' });
    } finally {
      proxy.close();
    }
  });

  it('that never answers CONNECT: not sent, and the connection is let go (else roster would not exit)', async () => {
    let closed = false;
    const proxy = await rawServer((socket) => {
      socket.on('data', () => {}); // reads the CONNECT, never answers it
      socket.on('close', () => (closed = true));
    });
    try {
      // The tunnel waits as long as the longer of the request timeout and an idle connection's life.
      const { t } = transport({
        timeoutMs: 60,
        env: { HTTPS_PROXY: `http://127.0.0.1:${proxy.port}` },
        idle: { keepAliveMs: 80 },
      });
      const error = await failure(
        t.send({ method: 'POST', url: 'https://api.district.example/v1/x', body: '{}' }),
      );
      expect(error).toBeInstanceOf(NetworkError);
      expect((error as NetworkError).sent).toBe(false);
      // undici's timer for an answer's headers ticks every half second: closed within a second.
      await until(() => closed, 3000);
    } finally {
      proxy.close();
    }
  });
});

/**
 * An origin in a process of its own (as a real server is: one in this process would share its event loop),
 * over http or https (with a certificate of makeTestPki), that takes the whole body of a POST to
 * /invite, says so on stdout, and drops the connection without an answer. Other paths answer 200.
 */
const DROPPING_ORIGIN = `
const [protocol, key, cert] = process.argv.slice(1);
const handler = (req, res) => {
  let n = 0;
  req.on('data', (d) => (n += d.length));
  req.on('end', () => {
    if (req.url === '/invite') { process.stdout.write('RECEIVED ' + n + '\\n'); return req.socket.destroy(); }
    res.writeHead(200, { 'content-length': 2 }); res.end('{}');
  });
};
const server = protocol === 'https'
  ? require('node:https').createServer({ key, cert }, handler)
  : require('node:http').createServer(handler);
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => process.stdout.write('PORT ' + server.address().port + '\\n'));
`;

describe('a POST the server received whole, then a dropped connection', () => {
  let pki: TestPki;
  const saved = process.env.NODE_TLS_REJECT_UNAUTHORIZED;
  beforeAll(() => {
    pki = makeTestPki();
    process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0'; // the test's own certificate authority
  });
  afterAll(() => {
    if (saved === undefined) delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
    else process.env.NODE_TLS_REJECT_UNAUTHORIZED = saved;
  });

  // Over TLS the request's 'finish' can come a turn of the loop after its bytes left, or never, once the
  // server's close is read first: judged by it, such a POST was "not sent", and sent again.
  it.each(['http', 'https'] as const)(
    'over %s, on a kept-alive connection, the loop busy: in doubt, never sent again',
    async (protocol) => {
      const child = spawn(process.execPath, ['-e', DROPPING_ORIGIN, protocol, pki.key, pki.cert], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      try {
        const originPort = await new Promise<number>((resolve) =>
          child.stdout.on('data', (d: Buffer) => {
            out += d;
            const port = /PORT (\d+)/.exec(out)?.[1];
            if (port) resolve(Number(port));
          }),
        );
        const { t } = transport({ idle: CHECKED_AFTER_50_MS });
        const url = (path: string) => `${protocol}://127.0.0.1:${originPort}${path}`;
        await t.send({ method: 'POST', url: url('/warm'), body: '{}' });
        await new Promise((resolve) => setTimeout(resolve, 100)); // idle: the socket is checked first
        const loop = setInterval(() => busy(30), 1); // the loop busy with other rows, as in a district's send
        const error = await settled(
          t.send({ method: 'POST', url: url('/invite'), body: '{"email":"a@example.org"}' }),
        ).finally(() => clearInterval(loop));
        await until(() => out.includes('RECEIVED'), 2000);
        expect(out).toContain('RECEIVED 25');
        expect(error).toBeInstanceOf(NetworkError);
        expect((error as NetworkError).sent).toBe(true);
      } finally {
        child.kill();
      }
    },
  );
});
