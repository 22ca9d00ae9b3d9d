import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { startTestProxy, type TestProxy } from '../helpers/proxy.js';
import { demoEnv } from '../helpers/sandbox.js';
import { makeTestPki, type TestPki } from '../helpers/tls.js';

let pki: TestPki;
let sandbox: Sandbox;
let proxy: TestProxy;
let proxyUrl: string;

beforeAll(async () => {
  pki = makeTestPki();
  sandbox = await startSandbox({ tls: { key: pki.key, cert: pki.cert } });
  proxy = await startTestProxy();
  proxyUrl = proxy.url;
});
afterAll(async () => {
  proxy.close();
  await sandbox.close();
});

const env = (extra: Record<string, string> = {}) => demoEnv(sandbox, 'demo-allowed', extra);
const doctorJson = async (extra: Record<string, string>) => {
  const result = await runCli(['doctor', '--json'], tempDir(), { env: env(extra) });
  const report = JSON.parse(result.stdout) as { checks: { id: string; status: string; message: string }[] };
  return { code: result.code, checks: Object.fromEntries(report.checks.map((c) => [c.id, c])) };
};

describe('roster doctor over https', () => {
  it('passes with the district CA trusted through NODE_EXTRA_CA_CERTS, and describes the certificate', async () => {
    expect(sandbox.baseUrl).toMatch(/^https:/);
    const { code, checks } = await doctorJson({ NODE_EXTRA_CA_CERTS: pki.caFile });
    // Every check, the audit of the (clean) sandbox district over https included.
    expect(
      Object.values(checks)
        .filter((c) => c.status !== 'pass')
        .map((c) => c.id),
    ).toEqual([]);
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
    proxy.carried.length = 0;
    const { code, checks } = await doctorJson({ NODE_EXTRA_CA_CERTS: pki.caFile, HTTPS_PROXY: proxyUrl });
    expect(code).toBe(0);
    expect(checks.reachable?.message).toBe(
      `reachable through proxy ${proxyUrl} (HTTP 401 for the base URL); the certificate is valid and trusted`,
    );
    expect(proxy.carried.some((line) => line.startsWith('CONNECT '))).toBe(true);
  });
});
