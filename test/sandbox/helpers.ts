// Shared helpers for the sandbox tests: real HTTP against startSandbox() on an ephemeral port.
import type { Sandbox } from '../../src/sandbox/server.js';

/** RFC 6749 §2.3.1 / application/x-www-form-urlencoded encoding of one value. */
export const formEncode = (value: string): string => new URLSearchParams({ v: value }).toString().slice(2);

export const basicHeader = (id: string, secret: string, encode = true): string => {
  const e = encode ? formEncode : (s: string) => s;
  return `Basic ${Buffer.from(`${e(id)}:${e(secret)}`, 'utf8').toString('base64')}`;
};

export interface TokenCall {
  fields?: Record<string, string>;
  headers?: Record<string, string>;
  endpoint?: string;
  body?: string;
}

export async function tokenRequest(sandbox: Sandbox, call: TokenCall = {}): Promise<Response> {
  const headers: Record<string, string> = { ...call.headers };
  let body = call.body;
  if (body === undefined && call.fields) body = new URLSearchParams(call.fields).toString();
  if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
  }
  return fetch(`${sandbox.baseUrl}${call.endpoint ?? '/oauth/token'}`, { method: 'POST', headers, body });
}

/** A token for one of the demo clients, by form credentials. */
export async function getToken(
  sandbox: Sandbox,
  clientId: string,
  endpoint = '/oauth/token',
): Promise<string> {
  const client = sandbox.clients.find((c) => c.clientId === clientId)!;
  const res = await tokenRequest(sandbox, {
    endpoint,
    fields: {
      grant_type: 'client_credentials',
      client_id: client.clientId,
      client_secret: client.clientSecret,
    },
  });
  if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

export const bearer = (token: string): Record<string, string> => ({ Authorization: `Bearer ${token}` });
