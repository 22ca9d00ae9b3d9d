// `roster doctor` over HTTPS as districts run it: a private CA (NODE_EXTRA_CA_CERTS) and a proxy.
import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { makeTestPki, type TestPki } from '../helpers/tls.js';

let pki: TestPki;
let sandbox: Sandbox;
let proxy: Server;
let proxyUrl: string;
const tunnels: string[] = [];

beforeAll(async () => {
  pki = makeTestPki();
  sandbox = await startSandbox({ tls: { key: pki.key, cert: pki.cert } });
  // CONNECT only: that is all an https base URL needs of a proxy.
  proxy = createServer((_req, res) => res.writeHead(405).end());
  proxy.on('connect', (req, client, head) => {
    tunnels.push(String(req.url));
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
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});
afterAll(async () => {
  proxy.closeAllConnections();
  proxy.close();
  await sandbox.close();
});

const env = (extra: Record<string, string> = {}) => ({
  ROSTER_BASE_URL: sandbox.baseUrl,
  ROSTER_CLIENT_ID: 'demo-allowed',
  ROSTER_CLIENT_SECRET: sandbox.clients[0]?.clientSecret ?? '',
  ...extra,
});
const doctorJson = async (extra: Record<string, string>) => {
  const result = await runCli(['doctor', '--json'], tempDir(), { env: env(extra) });
  const report = JSON.parse(result.stdout) as { checks: { id: string; status: string; message: string }[] };
  return { code: result.code, checks: Object.fromEntries(report.checks.map((c) => [c.id, c])) };
};

describe('roster doctor over https', () => {
  it('passes with the district CA trusted through NODE_EXTRA_CA_CERTS, and describes the certificate', async () => {
    expect(sandbox.baseUrl).toMatch(/^https:/);
    const { code, checks } = await doctorJson({ NODE_EXTRA_CA_CERTS: pki.caFile });
    expect(Object.values(checks).filter((c) => c.status !== 'pass')).toEqual([]);
    expect(code).toBe(0);
    expect(checks.reachable?.message).toMatch(
      /^TLSv1\.3, certificate valid until \d{4}-\d\d-\d\d \([01] days — renew it soon\), issued by Roster Test District CA$/,
    );
  });

  it('fails the reachability check, fast, when the certificate is not trusted', async () => {
    const { code, checks } = await doctorJson({});
    expect(code).toBe(1);
    expect(checks.reachable).toMatchObject({ status: 'fail' });
    expect(checks.reachable?.message).toMatch(
      /is not valid: its issuer is not trusted here .*\(UNABLE_TO_VERIFY_LEAF_SIGNATURE\)/,
    );
    expect(checks['token-oauth']?.message).toBe('skipped: the base URL is not reachable');
  });

  it('goes through HTTPS_PROXY, as the other requests do', async () => {
    tunnels.length = 0;
    const { code, checks } = await doctorJson({ NODE_EXTRA_CA_CERTS: pki.caFile, HTTPS_PROXY: proxyUrl });
    expect(code).toBe(0);
    expect(checks.reachable?.message).toBe(
      `reachable through proxy ${proxyUrl} (HTTP 401 for the base URL); the certificate is valid and trusted`,
    );
    expect(tunnels.length).toBeGreaterThan(0);
  });
});
