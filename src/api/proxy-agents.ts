// hpagent's proxy agents (HTTPS_PROXY / HTTP_PROXY tunnel through CONNECT), with IPv6 literals spelled as a
// proxy needs them. Node hands an agent an IPv6 host without its brackets, and hpagent writes
// `CONNECT ${host}:${port}`: a base URL of https://[2001:db8::1]:8443 left as `CONNECT 2001:db8::1:8443`,
// which no proxy can split into host and port (RFC 9110 §9.3.6: the authority, an IPv6 host in brackets).
// A proxy named by an IPv6 literal (http://[fd00::1]:3128) had the opposite trouble: hpagent connected to
// its URL's hostname, brackets and all, which is no address.
import type { Agent } from 'node:http';
import { isIPv6 } from 'node:net';
import { checkServerIdentity, type PeerCertificate } from 'node:tls';
import { HttpProxyAgent, HttpsProxyAgent } from 'hpagent';
import { bareHost } from '../base-url.js';

/** The agent options hpagent takes (it reads the proxy's protocol, hostname, port, username and password). */
export type ProxyAgentOptions = ConstructorParameters<typeof HttpProxyAgent>[0] & { proxy: string };

type Connect = (
  options: { host?: string },
  callback: (error: Error | null, socket?: unknown) => void,
) => void;

/**
 * The target's IPv6 host in brackets for the CONNECT line and its Host header. Over TLS (the https agent
 * hands the same options on to tls.connect) the certificate is still checked against the bare address.
 */
function forConnect<T extends { host?: string; checkServerIdentity?: typeof checkServerIdentity }>(
  options: T,
): T {
  if (!options.host || !isIPv6(options.host)) return options;
  const check = options.checkServerIdentity ?? checkServerIdentity;
  return {
    ...options,
    host: `[${options.host}]`,
    checkServerIdentity: (host: string, cert: PeerCertificate) => check(bareHost(host), cert),
  };
}

/** The proxy's URL as hpagent reads it, its hostname an address Node can connect to. */
function proxyTarget(proxy: string): URL {
  const url = new URL(proxy);
  if (!url.hostname.startsWith('[')) return url;
  const { protocol, port, username, password } = url;
  return { protocol, hostname: bareHost(url.hostname), port, username, password } as URL;
}

/** The two agents of one proxy: for http:// and for https:// targets. */
export function proxyAgents(options: ProxyAgentOptions): { http: Agent; https: Agent } {
  const shaped = { ...options, proxy: proxyTarget(options.proxy) };
  const http = new HttpProxyAgent(shaped);
  const https = new HttpsProxyAgent(shaped);
  for (const agent of [http, https] as unknown as { createConnection: Connect }[]) {
    const connect = agent.createConnection.bind(agent);
    agent.createConnection = (target, callback) => connect(forConnect(target), callback);
  }
  return { http, https };
}
