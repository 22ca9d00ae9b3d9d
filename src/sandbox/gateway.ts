// The gateway-503 quirk (`--quirks gateway-503[=P]`, `gateway-503-retry-after[=P]`): a load balancer in front
// of the API loses the API's answer to an invitation it already acted on (recorded, e-mailed) and answers
// 503 text/plain in its own words instead, as Envoy does when the upstream connection resets.
import { createPrng } from './faults.js';
import type { Quirks } from './quirks.js';
import type { SandboxResponse } from './types.js';

/** What Envoy answers when the upstream resets before its answer's headers reached the gateway. */
export const GATEWAY_503_TEXT =
  'upstream connect error or disconnect/reset before headers. reset reason: connection termination';

/**
 * The gateway's answer for the API's `response` to an invitation POST: the same, or for a fraction `rate`
 * of the invitations the API accepted, the 503. Its own seeded PRNG (the sandbox's seed), drawn once per
 * accepted invitation, so turning the quirk on does not shift the pattern of the other faults.
 */
export function createGateway(
  quirk: NonNullable<Quirks['gateway503']>,
  seed: number,
): (response: SandboxResponse) => SandboxResponse {
  const random = createPrng(seed ^ 0x5bd1e995);
  return (response) => {
    if (response.status < 200 || response.status >= 300 || random() >= quirk.rate) return response;
    const headers: Record<string, string> = { 'Content-Type': 'text/plain', Server: 'envoy' };
    if (quirk.retryAfterSeconds !== undefined) headers['Retry-After'] = String(quirk.retryAfterSeconds);
    return { status: 503, headers, body: GATEWAY_503_TEXT };
  };
}
