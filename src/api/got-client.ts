// got configured as a plain transport: no retries (api/client.ts owns them), no redirects (transport.ts
// owns those), no throwing on HTTP errors, keep-alive sockets shared by every request of a run, and a
// proxy agent per proxy when HTTPS_PROXY / HTTP_PROXY apply. node:https (with node:tls and node:crypto)
// loads only for an https:// URL, and hpagent (which loads it) only for a proxy: the build turns imports
// of node:https into a stand-in that loads the module on first use (esbuild.config.mjs).
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import got, { type Agents, type Got } from 'got';
import { proxyFor } from './proxy.js';

type Env = Readonly<Record<string, string | undefined>>;

const AGENT_OPTIONS = { keepAlive: true, maxSockets: 16, keepAliveMsecs: 10_000 };

export interface GotClient {
  got: Got;
  /** Agents for a target URL: direct, or through the proxy the environment names for it. */
  agentsFor(url: URL): Promise<{ agents: Agents; proxy?: string }>;
}

export function createGotClient(timeoutMs: number, env: Env): GotClient {
  // got picks the agent of the URL's protocol: an http:// URL needs no https agent.
  const plain: Agents = { http: new HttpAgent(AGENT_OPTIONS) };
  let direct: Agents | undefined;
  const viaProxy = new Map<string, Agents>();
  return {
    got: got.extend({
      timeout: { request: timeoutMs },
      retry: { limit: 0 },
      followRedirect: false,
      throwHttpErrors: false,
      responseType: 'text',
      decompress: true,
    }),
    async agentsFor(url) {
      const proxy = proxyFor(url, env);
      if (!proxy) {
        if (url.protocol !== 'https:') return { agents: direct ?? plain };
        direct ??= { http: plain.http, https: new HttpsAgent(AGENT_OPTIONS) };
        return { agents: direct };
      }
      let agents = viaProxy.get(proxy);
      if (!agents) {
        const { HttpProxyAgent, HttpsProxyAgent } = await import('hpagent');
        agents = viaProxy.get(proxy) ?? {
          http: new HttpProxyAgent({ ...AGENT_OPTIONS, proxy }),
          https: new HttpsProxyAgent({ ...AGENT_OPTIONS, proxy }),
        };
        viaProxy.set(proxy, agents);
      }
      return { agents, proxy };
    },
  };
}
