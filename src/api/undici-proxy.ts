// undici's proxy agent and pool, loaded only for a proxy (api/http-client.ts), from their own files of
// undici, with its Dispatcher given the request methods as undici's index gives them: ProxyAgent's CONNECT
// goes through Dispatcher#connect. test/unit/api/transport.test.ts and test/e2e/network.test.ts (proxies)
// fail if a new undici moves these files.
import type * as Undici from 'undici';
// @ts-expect-error undici declares its types for its index only
import api from 'undici/lib/api/index.js';
// @ts-expect-error (as above)
import DispatcherPart from 'undici/lib/dispatcher/dispatcher.js';
// @ts-expect-error (as above)
import PoolPart from 'undici/lib/dispatcher/pool.js';
// @ts-expect-error (as above)
import ProxyAgentPart from 'undici/lib/dispatcher/proxy-agent.js';

Object.assign(DispatcherPart.prototype, api);

export const Pool = PoolPart as typeof Undici.Pool;
export const ProxyAgent = ProxyAgentPart as typeof Undici.ProxyAgent;
