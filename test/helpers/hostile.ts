// A hostile HTTP server on 127.0.0.1: each test scripts its answers (bombs, pathological pages, redirects,
// absurd token lifetimes, lying totals) and reads back every request that reached it.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface SeenRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
}

export type Handler = (request: SeenRequest, res: ServerResponse) => unknown;

export interface Hostile {
  /** http://127.0.0.1:PORT */
  origin: string;
  /** origin + /v1, the spec's base URL shape. */
  baseUrl: string;
  requests: SeenRequest[];
  /** Replaces the handler (every server starts with one that answers 404). */
  handle(handler: Handler): void;
  close(): Promise<void>;
}

export interface HostileOptions {
  /**
   * The district's schools, answered to GET …/schools (recorded like every request) whatever the handler:
   * `invite send` reads them to resolve --school-id, and tests about the invitation POST script only that.
   */
  schools?: { sourcedId: string; name: string }[];
}

export async function startHostile(handler?: Handler, options: HostileOptions = {}): Promise<Hostile> {
  let current: Handler = handler ?? ((_, res) => res.writeHead(404).end());
  const { schools } = options;
  const district: Handler = (request, res) =>
    schools && request.method === 'GET' && request.path.endsWith('/schools')
      ? json(
          res,
          200,
          {
            // One page: past it, nothing (a pager asks on while pages come back full).
            orgs:
              Number(request.query.get('offset') ?? 0) > 0
                ? []
                : schools.map((s) => ({ ...s, status: 'active', type: 'school' })),
          },
          { 'x-total-count': String(schools.length) },
        )
      : current(request, res);
  const requests: SeenRequest[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const seen = {
        method: req.method ?? '',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body,
      };
      requests.push(seen);
      // A client that hangs up mid-answer is what several tests expect: never an unhandled error.
      res.on('error', () => {});
      Promise.resolve(district(seen, res)).catch(() => res.destroy());
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    baseUrl: `${origin}/v1`,
    requests,
    handle: (next) => {
      current = next;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Answers JSON. */
export function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}
