// got configured as a plain transport: no retries (api/client.ts owns them), no redirects (transport.ts
// owns those), no throwing on HTTP errors, keep-alive sockets shared by every request of a run, and a
// proxy agent per proxy when HTTPS_PROXY / HTTP_PROXY apply.
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import got, { type Agents, type Got } from 'got';
import { HttpProxyAgent, HttpsProxyAgent } from 'hpagent';
import { proxyFor } from './proxy.js';

type Env = Readonly<Record<string, string | undefined>>;

const AGENT_OPTIONS = { keepAlive: true, maxSockets: 16, keepAliveMsecs: 10_000 };

export interface GotClient {
  got: Got;
  /** Agents for a target URL: direct, or through the proxy the environment names for it. */
  agentsFor(url: URL): { agents: Agents; proxy?: string };
}

export function createGotClient(timeoutMs: number, env: Env): GotClient {
  const direct: Agents = { http: new HttpAgent(AGENT_OPTIONS), https: new HttpsAgent(AGENT_OPTIONS) };
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
    agentsFor(url) {
      const proxy = proxyFor(url, env);
      if (!proxy) return { agents: direct };
      let agents = viaProxy.get(proxy);
      if (!agents) {
        agents = {
          http: new HttpProxyAgent({ ...AGENT_OPTIONS, proxy }),
          https: new HttpsProxyAgent({ ...AGENT_OPTIONS, proxy }),
        };
        viaProxy.set(proxy, agents);
      }
      return { agents, proxy };
    },
  };
}
