// A small HTTP proxy on 127.0.0.1 for tests of HTTPS_PROXY / HTTP_PROXY: CONNECT tunnels, and
// absolute-URI forwarding for plain http. It records what it carried, one line per request or tunnel.
import { createServer, request as httpRequest } from 'node:http';
import { type AddressInfo, connect } from 'node:net';

export interface TestProxy {
  url: string;
  /** `CONNECT host:port` or `METHOD absolute-url`, in arrival order; clear it with `carried.length = 0`. */
  carried: string[];
  close(): void;
}

export async function startTestProxy(): Promise<TestProxy> {
  const carried: string[] = [];
  const server = createServer((req, res) => {
    carried.push(`${req.method} ${req.url}`);
    const upstream = httpRequest(req.url ?? '', { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    req.pipe(upstream);
  });
  server.on('connect', (req, client, head) => {
    carried.push(`CONNECT ${req.url}`);
    const [host, port] = String(req.url).split(':');
    const upstream = connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    carried,
    close() {
      server.closeAllConnections();
      server.close();
    },
  };
}
