// The sandbox's demo clients as tests use them: one place that knows how to point the CLI at a sandbox.
import type { DemoClient, Sandbox } from '../../src/sandbox/server.js';

export function demoClient(sandbox: Sandbox, clientId = 'demo-allowed'): DemoClient {
  const client = sandbox.clients.find((c) => c.clientId === clientId);
  if (!client) throw new Error(`the sandbox has no demo client ${clientId}`);
  return client;
}

/** The environment route (ROSTER_BASE_URL, ROSTER_CLIENT_ID, ROSTER_CLIENT_SECRET) for a demo client. */
export function demoEnv(
  sandbox: Sandbox,
  clientId = 'demo-allowed',
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    ROSTER_BASE_URL: sandbox.baseUrl,
    ROSTER_CLIENT_ID: clientId,
    ROSTER_CLIENT_SECRET: demoClient(sandbox, clientId).clientSecret,
    ...extra,
  };
}

/** `roster login` of a demo client into the opt-in credentials file (no keychain needed), its secret on stdin. */
export function insecureLogin(
  sandbox: Sandbox,
  extra: string[] = [],
  clientId = 'demo-allowed',
): { args: string[]; input: string } {
  return {
    args: [
      'login',
      '--base-url',
      sandbox.baseUrl,
      '--client-id',
      clientId,
      '--client-secret-stdin',
      '--insecure-storage',
      ...extra,
    ],
    input: demoClient(sandbox, clientId).clientSecret,
  };
}
