// got configured as a plain transport: no retries (api/client.ts owns them), no redirects (transport.ts
// owns those), no throwing on HTTP errors, keep-alive sockets shared by every request of a run.
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import got, { type Got } from 'got';

export function createGotClient(timeoutMs: number): Got {
  const agentOptions = { keepAlive: true, maxSockets: 16, keepAliveMsecs: 10_000 };
  return got.extend({
    agent: { http: new HttpAgent(agentOptions), https: new HttpsAgent(agentOptions) },
    timeout: { request: timeoutMs },
    retry: { limit: 0 },
    followRedirect: false,
    throwHttpErrors: false,
    responseType: 'text',
    decompress: true,
  });
}
