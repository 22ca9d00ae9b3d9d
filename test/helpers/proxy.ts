// A small HTTP proxy on loopback (127.0.0.1, or ::1 when asked) for tests of HTTPS_PROXY / HTTP_PROXY: CONNECT tunnels, and
// absolute-URI forwarding for plain http. It records what it carried, one line per request or tunnel.
import { createServer, request as httpRequest } from 'node:http';
import { type AddressInfo, connect } from 'node:net';

export interface TestProxy {
  url: string;
  /** `CONNECT host:port` or `METHOD absolute-url`, in arrival order; clear it with `carried.length = 0`. */
  carried: string[];
  close(): void;
}

export async function startTestProxy(host = '127.0.0.1'): Promise<TestProxy> {
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
    // host:port, an IPv6 host in brackets: what a proxy can read. Anything else is refused, as one would.
    let hostname: string;
    let port: string;
    try {
      ({ hostname, port } = new URL(`http://${req.url}`));
      if (port === '') throw new Error('no port');
    } catch {
      client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
      return;
    }
    const upstream = connect(Number(port), hostname.replace(/^\[(.*)\]$/, '$1'), () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, resolve);
  });
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${(server.address() as AddressInfo).port}`,
    carried,
    close() {
      server.closeAllConnections();
      server.close();
    },
  };
}
