// The dispatcher roster uses for a direct connection, from its own file of undici: undici's index also
// loads fetch, the WebSocket and EventSource clients, cookies, the cache, the mocks and the proxies, which a
// command without a proxy never uses and which cost every command that reaches the network more to load
// (docs/performance.md). The types are undici's own, from its index; the transport's tests (timeouts, how
// far a POST got) fail if a new undici moves the file.
import type * as Undici from 'undici';
// @ts-expect-error undici declares its types for its index only
import AgentPart from 'undici/lib/dispatcher/agent.js';

export const Agent = AgentPart as typeof Undici.Agent;
export type Agent = Undici.Agent;
export type Dispatcher = Undici.Dispatcher;
