// A hostile service on 127.0.0.1: a plain socket server whose every answer the test scripts byte for
// byte (status, raw header bytes, body), for what the sandbox, being faithful, never sends: escape
// sequences in headers, tokens full of control characters, secrets echoed back. Records each request.
import { createServer, type Socket } from 'node:net';

export interface ScriptedRequest {
  method: string;
  /** Path without the query, e.g. /v1/oauth/token. */
  path: string;
  query: URLSearchParams;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: string;
}

export interface ScriptedAnswer {
  status?: number;
  /** Values are written as given, byte for byte (latin1 for strings): nothing is checked. */
  headers?: Record<string, string | Buffer>;
  /** An object is sent as JSON. */
  body?: string | Buffer | object;
}

export interface ScriptedServer {
  /** e.g. http://127.0.0.1:43123/v1 */
  baseUrl: string;
  requests: ScriptedRequest[];
  close(): Promise<void>;
}

export async function startScriptedServer(
  answer: (request: ScriptedRequest) => ScriptedAnswer,
): Promise<ScriptedServer> {
  const requests: ScriptedRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let buffered = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      buffered = Buffer.concat([buffered, chunk]);
      const end = buffered.indexOf('\r\n\r\n');
      if (end < 0) return;
      const [start = '', ...lines] = buffered.subarray(0, end).toString('latin1').split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      const length = Number(headers['content-length'] ?? 0);
      if (buffered.length < end + 4 + length) return;
      const [method = '', target = ''] = start.split(' ');
      const url = new URL(target, 'http://127.0.0.1');
      const request = {
        method,
        path: url.pathname,
        query: url.searchParams,
        headers,
        body: buffered.subarray(end + 4, end + 4 + length).toString('utf8'),
      };
      requests.push(request);
      socket.end(respond(answer(request)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function respond({ status = 200, headers = {}, body = '' }: ScriptedAnswer): Buffer {
  const json = typeof body === 'object' && !Buffer.isBuffer(body);
  const payload = json ? Buffer.from(JSON.stringify(body)) : Buffer.isBuffer(body) ? body : Buffer.from(body);
  const all: Record<string, string | Buffer> = {
    ...(json ? { 'content-type': 'application/json' } : {}),
    ...headers,
    'content-length': String(payload.length),
    connection: 'close',
  };
  const head = Object.entries(all).map(([name, value]) =>
    Buffer.concat([
      Buffer.from(`${name}: `),
      Buffer.isBuffer(value) ? value : Buffer.from(value, 'latin1'),
      Buffer.from('\r\n'),
    ]),
  );
  return Buffer.concat([
    Buffer.from(`HTTP/1.1 ${status} Scripted\r\n`),
    ...head,
    Buffer.from('\r\n'),
    payload,
  ]);
}
