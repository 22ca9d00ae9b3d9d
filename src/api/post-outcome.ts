// What an answer to a POST proves: the one place that decides whether an invitation is "not sent" (the API
// certainly did not act on it: roster may retry it, and a bulk re-run sends it) or "in doubt" (it may have
// been sent: never sent again without --resend-in-doubt). The client (api/client.ts) asks it before any
// retry or replay and for the error it throws; single and bulk sends both go through the client.
//
// An answer proves "not sent" only when it can only have come before the API acted:
// - 429, whatever its body: rate limiters, the API's or a gateway's, answer before passing a request on;
// - a 401 that challenges the bearer token (RFC 6750 §3: `WWW-Authenticate: Bearer`): authentication comes
//   first, so nothing was done;
// - the API's own error shape (spec §2.5: a JSON object with a `message`, sent as JSON) with a 4xx status
//   (the request was refused: 400, 401, 403, 404, 409, 413, 422 …), or with 503 and Retry-After (RFC 9110
//   §15.6.4: unable to handle the request now, come back then).
// The spec's error shape, `{"message": "…"}`, is also the shape gateways answer in themselves: AWS API
// Gateway answers `{"message":"Service Unavailable"}` 503 when its integration fails or times out, after
// passing the request on; Kong answers `{"message":"…"}` for its 502, 503 and 504. So a 503 in that shape
// without Retry-After (no gateway of those adds one) proves nothing, and stays in doubt.
// Anything else leaves the request in doubt: a 5xx other than 503 even in the API's words (a 500 may come
// after the e-mail went out; 502 and 504 are a gateway's statuses), any 5xx or 4xx that is not the API's
// JSON (a load balancer's text/plain 503 "upstream connect error", an HTML page, someone else's JSON), and a
// 3xx that is not a redirect. Redirects and 2xx are judged by api/enrollment.ts (see redirectInDoubt and §2.5).
import { describeBody, isRecord, messageOf, parseJson } from './errors.js';
import type { HttpResponse } from './transport.js';

/** The API's own error (spec §2.5, §7): sent as JSON, a JSON object whose `message` is a non-empty string. */
export function isApiError(response: HttpResponse): boolean {
  const type = mediaType(response);
  if (type !== 'application/json' && !type.endsWith('+json')) return false;
  const body = parseJson(response.body);
  return isRecord(body) && typeof body.message === 'string' && body.message.trim() !== '';
}

/**
 * Why an error answer (not 2xx, not a followed redirect) to a POST leaves its outcome in doubt, or
 * undefined when the answer proves the API did not act on it.
 */
export function doubtOf(response: HttpResponse): string | undefined {
  const { status } = response;
  if (status === 429) return undefined;
  if (status === 401 && /^\s*bearer\b/i.test(header(response, 'www-authenticate') ?? '')) return undefined;
  const api = isApiError(response);
  if (api && status >= 400 && status < 500) return undefined;
  if (api && status === 503) {
    if ((header(response, 'retry-after') ?? '').trim() !== '') return undefined;
    return `the server answered HTTP 503 with ${answered(response)} and no Retry-After: gateways (AWS API Gateway, Kong) answer in the API's words, {"message": …}, even after the API acted`;
  }
  if (api) {
    return `the API answered HTTP ${status} (${messageOf(parseJson(response.body))}): it failed, maybe after acting on the request`;
  }
  return `the server answered HTTP ${status} with ${answered(response)}, not the API's own error: a gateway in front of the API answers so even after the API acted`;
}

/**
 * Whether a redirect of a POST (never followed) leaves it in doubt. A 303 See Other is how a server points
 * to the result of a request it has processed (RFC 9110 §15.4.4); 301, 302, 307 and 308 say the resource is
 * elsewhere, answered before the API handled anything (a moved base URL, a sign-in gateway): not sent.
 */
export const redirectInDoubt = (status: number): boolean => status === 303;

/** The body in a few words, quoting what it says: `a text/plain body "upstream connect error …"`. */
function answered(response: HttpResponse): string {
  const what = describeBody(response);
  if (what.startsWith('an HTML page') || what === 'an empty body') return what;
  const parsed = parseJson(response.body);
  const said = messageOf(parsed === undefined ? response.body.slice(0, 200) : parsed);
  if (!said) return what;
  const type = mediaType(response) || 'untyped';
  return `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type} body "${said.length > 120 ? `${said.slice(0, 120)}…` : said}"`;
}

function mediaType(response: HttpResponse): string {
  return (header(response, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase();
}

function header(response: HttpResponse, name: string): string | undefined {
  const value = response.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
