// District networks: HTTPS with the district's own CA, proxies (HTTPS_PROXY / HTTP_PROXY / NO_PROXY in
// either case), and redirects that must not carry credentials elsewhere or downgrade to http.
import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { startTestProxy, type TestProxy } from '../helpers/proxy.js';
import { makeTestPki, type TestPki } from '../helpers/tls.js';

let pki: TestPki;
let tlsSandbox: Sandbox;
let plainSandbox: Sandbox;
let proxy: TestProxy;
let proxyUrl: string;
let proxied: string[];

const creds = { ROSTER_CLIENT_ID: 'demo-allowed', ROSTER_CLIENT_SECRET: 'riverside-secret-2024' };
const listen = (server: Server) =>
  new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );

beforeAll(async () => {
  pki = makeTestPki();
  tlsSandbox = await startSandbox({ tls: { key: pki.key, cert: pki.cert } });
  plainSandbox = await startSandbox();
  proxy = await startTestProxy();
  proxyUrl = proxy.url;
  proxied = proxy.carried;
});
afterAll(async () => {
  proxy.close();
  await Promise.all([tlsSandbox.close(), plainSandbox.close()]);
});
beforeEach(() => {
  proxied.length = 0;
});

describe('HTTPS with a district certificate authority', () => {
  it('an untrusted certificate fails at once with a hint about NODE_EXTRA_CA_CERTS', async () => {
    const result = await runCli(['attendance', 'check'], tempDir(), {
      env: { ROSTER_BASE_URL: tlsSandbox.baseUrl, ...creds },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^Error: The certificate of 127\.0\.0\.1:\d+ is not trusted: .*NODE_EXTRA_CA_CERTS/,
    );
    expect(tlsSandbox.requests).toHaveLength(0);
  });

  it('NODE_EXTRA_CA_CERTS makes it work', async () => {
    const result = await runCli(['attendance', 'check'], tempDir(), {
      env: { ROSTER_BASE_URL: tlsSandbox.baseUrl, NODE_EXTRA_CA_CERTS: pki.caFile, ...creds },
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });
});

describe('a certificate for another host name', () => {
  let other: TestPki;
  let sandbox: Sandbox;
  beforeAll(async () => {
    other = makeTestPki('DNS:api.district.example');
    sandbox = await startSandbox({ tls: { key: other.key, cert: other.cert } });
  });
  afterAll(() => sandbox.close());

  it('says to use the name it was issued for, never NODE_EXTRA_CA_CERTS, even with the CA trusted', async () => {
    const env = { ROSTER_BASE_URL: sandbox.baseUrl, ...creds, NODE_EXTRA_CA_CERTS: other.caFile };
    const run = await runCli(['attendance', 'check'], tempDir(), { env });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^Error: The certificate of 127\.0\.0\.1:\d+ is not trusted: /);
    expect(run.stderr).toContain('The certificate is for another host name: use the name it was issued for');
    expect(run.stderr).not.toContain('NODE_EXTRA_CA_CERTS');
    expect(sandbox.requests).toHaveLength(0);

    const doctor = await runCli(['doctor', '--only', 'reachable'], tempDir(), { env });
    expect(doctor.code).toBe(1);
    expect(doctor.stdout + doctor.stderr).toContain('api.district.example');
    expect(doctor.stdout + doctor.stderr).not.toContain('NODE_EXTRA_CA_CERTS');
  });
});

describe('proxies', () => {
  const port = () => new URL(tlsSandbox.origin).port;

  it.each(['HTTPS_PROXY', 'https_proxy'])('%s tunnels https through CONNECT', async (name) => {
    const result = await runCli(['attendance', 'check'], tempDir(), {
      env: {
        ROSTER_BASE_URL: tlsSandbox.baseUrl,
        NODE_EXTRA_CA_CERTS: pki.caFile,
        [name]: proxyUrl,
        ...creds,
      },
    });
    expect(result.code).toBe(0);
    expect(proxied).toContain(`CONNECT 127.0.0.1:${port()}`);
  });

  it('HTTP_PROXY carries plain http (tunnelled, so the proxy sees no credentials)', async () => {
    const result = await runCli(['attendance', 'check'], tempDir(), {
      env: { ROSTER_BASE_URL: plainSandbox.baseUrl, HTTP_PROXY: proxyUrl, ...creds },
    });
    expect(result.code).toBe(0);
    expect(proxied).toEqual([`CONNECT 127.0.0.1:${new URL(plainSandbox.origin).port}`]);
  });

  it.each(['127.0.0.1', '127.0.0.1:PORT', '*', 'localhost,127.0.0.1'])(
    'NO_PROXY=%s bypasses the proxy',
    async (entry) => {
      const result = await runCli(['attendance', 'check'], tempDir(), {
        env: {
          ROSTER_BASE_URL: tlsSandbox.baseUrl,
          NODE_EXTRA_CA_CERTS: pki.caFile,
          HTTPS_PROXY: proxyUrl,
          no_proxy: entry.replace('PORT', port()),
          ...creds,
        },
      });
      expect(result.code).toBe(0);
      expect(proxied).toEqual([]);
    },
  );

  it('a NO_PROXY entry for another port does not bypass', async () => {
    const result = await runCli(['attendance', 'check'], tempDir(), {
      env: {
        ROSTER_BASE_URL: tlsSandbox.baseUrl,
        NODE_EXTRA_CA_CERTS: pki.caFile,
        HTTPS_PROXY: proxyUrl,
        NO_PROXY: '127.0.0.1:1',
        ...creds,
      },
    });
    expect(result.code).toBe(0);
    expect(proxied.length).toBeGreaterThan(0);
  });

  it('--debug names the proxy without its password', async () => {
    const withPassword = proxyUrl.replace('http://', 'http://user:pr0xy-pa55@');
    const result = await runCli(['attendance', 'check', '--debug'], tempDir(), {
      env: {
        ROSTER_BASE_URL: tlsSandbox.baseUrl,
        NODE_EXTRA_CA_CERTS: pki.caFile,
        HTTPS_PROXY: withPassword,
        ...creds,
      },
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`(via proxy ${proxyUrl})`);
    expect(result.stderr).not.toContain('pr0xy-pa55');
  });
});

/** Whether this machine has IPv6 loopback (some containers have none). */
const hasIpv6Loopback = await new Promise<boolean>((resolve) => {
  const probe = createServer();
  probe.once('error', () => resolve(false));
  probe.listen(0, '::1', () => probe.close(() => resolve(true)));
});

describe.skipIf(!hasIpv6Loopback)('proxies and IPv6 literals', () => {
  let sandboxes: Sandbox[] = [];
  let proxies: TestProxy[] = [];
  afterAll(async () => {
    for (const p of proxies) p.close();
    await Promise.all(sandboxes.map((s) => s.close()));
  });
  const sandboxOnIpv6 = async (tls: boolean) => {
    const sandbox = await startSandbox({
      host: '::1',
      ...(tls && { tls: { key: pki.key, cert: pki.cert } }),
    });
    sandboxes = [...sandboxes, sandbox];
    return sandbox;
  };
  const proxyOn = async (host: string) => {
    const p = await startTestProxy(host);
    proxies = [...proxies, p];
    return p;
  };

  it.each([
    ['http', 'HTTP_PROXY'],
    ['https', 'HTTPS_PROXY'],
  ])('an %s base URL with an IPv6 host is tunnelled as CONNECT [host]:port', async (scheme, variable) => {
    const sandbox = await sandboxOnIpv6(scheme === 'https');
    const via = await proxyOn('127.0.0.1');
    const result = await runCli(['attendance', 'check'], tempDir(), {
      env: {
        ROSTER_BASE_URL: sandbox.baseUrl,
        NODE_EXTRA_CA_CERTS: pki.caFile,
        [variable]: via.url,
        ...creds,
      },
    });
    expect(sandbox.baseUrl).toMatch(new RegExp(`^${scheme}://\\[::1\\]:`));
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(via.carried).toEqual([`CONNECT [::1]:${new URL(sandbox.origin).port}`]);
  });

  it('a proxy named by an IPv6 literal is reached', async () => {
    const via = await proxyOn('::1');
    expect(via.url).toMatch(/^http:\/\/\[::1\]:\d+$/);
    const result = await runCli(['attendance', 'check'], tempDir(), {
      env: {
        ROSTER_BASE_URL: tlsSandbox.baseUrl,
        NODE_EXTRA_CA_CERTS: pki.caFile,
        HTTPS_PROXY: via.url,
        ...creds,
      },
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(via.carried).toEqual([`CONNECT 127.0.0.1:${new URL(tlsSandbox.origin).port}`]);
  });
});

describe('redirects', () => {
  const redirector = async (location: (path: string) => string, secure = false) => {
    const seen: { path: string; authorization?: string }[] = [];
    const handler = (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
      seen.push({ path: String(req.url), authorization: req.headers.authorization });
      res.writeHead(302, { location: location(String(req.url)) }).end();
    };
    const server = secure
      ? createHttpsServer({ key: pki.key, cert: pki.cert }, handler)
      : createServer(handler);
    const port = await listen(server as Server);
    return { seen, base: `${secure ? 'https' : 'http'}://127.0.0.1:${port}/v1`, close: () => server.close() };
  };
  const token = 'rst_test-token-value-123456';

  it('a redirect to another origin is refused: nothing reaches it, neither the token nor a request', async () => {
    const target = await startSandbox();
    const server = await redirector((path) => `${target.origin}${path}`);
    const result = await runCli(['attendance', 'check'], tempDir(), {
      env: { ROSTER_BASE_URL: server.base, ROSTER_TOKEN: token },
    });
    server.close();
    await target.close();
    expect(server.seen[0]?.authorization).toBe(`Bearer ${token}`);
    expect(target.requests).toEqual([]);
    expect(result.stderr).toMatch(
      /^Error: Refused to follow a redirect \(HTTP 302\) of GET .* to http:\/\/127\.0\.0\.1:\d+\/v1\/attendance\/status\./,
    );
    expect(result.code).toBe(1);
  });

  it('a redirect from https to http is refused', async () => {
    const server = await redirector((path) => `${plainSandbox.origin}${path}`, true);
    const before = plainSandbox.requests.length;
    const result = await runCli(['attendance', 'check'], tempDir(), {
      env: { ROSTER_BASE_URL: server.base, ROSTER_TOKEN: token, NODE_EXTRA_CA_CERTS: pki.caFile },
    });
    server.close();
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/Refused a redirect from https to http/);
    expect(plainSandbox.requests.length).toBe(before);
  });

  it('a redirect loop stops after five hops', async () => {
    const server = await redirector((path) => path);
    const result = await runCli(['attendance', 'check'], tempDir(), {
      env: { ROSTER_BASE_URL: server.base, ROSTER_TOKEN: token },
    });
    server.close();
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/more than 5 redirects/);
    expect(server.seen).toHaveLength(6);
  });
});
