// An answer's header lines as one object, the way Node's own HTTP client has always given them to roster
// (IncomingMessage.headers): names in lower case, bytes read as latin1, a repeated header joined with ", "
// (Link, WWW-Authenticate), `cookie` with "; ", `set-cookie` kept as a list, and the headers that may only
// be given once (Location, Retry-After, Content-Type …) keeping their first value. undici hands over the
// raw lines; what roster reads of them (a redirect's target, Retry-After, the pager's Link) stays as it was.
import type { IncomingHttpHeaders } from 'node:http';

/** The headers of which Node keeps the first of several (lib/_http_incoming.js, matchKnownFields). */
const FIRST_ONLY = new Set([
  'age',
  'authorization',
  'content-length',
  'content-type',
  'etag',
  'expires',
  'from',
  'host',
  'if-modified-since',
  'if-unmodified-since',
  'last-modified',
  'location',
  'max-forwards',
  'proxy-authorization',
  'referer',
  'retry-after',
  'server',
  'user-agent',
]);

/** `raw`: name, value, name, value … as they came. */
export function headersOf(raw: readonly (Buffer | string)[]): IncomingHttpHeaders {
  const headers: Record<string, string | string[]> = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = latin1(raw[i]!).toLowerCase();
    const value = latin1(raw[i + 1]!);
    const had = headers[name];
    if (name === 'set-cookie') headers[name] = [...((had as string[] | undefined) ?? []), value];
    else if (had === undefined) headers[name] = value;
    else if (!FIRST_ONLY.has(name)) headers[name] = `${had}${name === 'cookie' ? '; ' : ', '}${value}`;
  }
  return headers;
}

const latin1 = (bytes: Buffer | string) => (typeof bytes === 'string' ? bytes : bytes.toString('latin1'));
