// Strict decoding of application/x-www-form-urlencoded data and of HTTP Basic client credentials.
// Strict on purpose: URLSearchParams quietly keeps a malformed `%` sequence, which would hide exactly the
// client bugs (unencoded secrets) the sandbox exists to catch.

export class FormDecodeError extends Error {}

/** Decodes one form-encoded component: `+` is a space, `%XX` a UTF-8 byte; anything malformed throws. */
export function decodeFormComponent(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    throw new FormDecodeError('malformed percent-encoding');
  }
}

/**
 * Parses a form body into a map. A repeated parameter is an error: RFC 6749 §3.2 says request parameters
 * must not be included more than once.
 */
export function parseForm(body: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const pair of body.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = decodeFormComponent(eq < 0 ? pair : pair.slice(0, eq));
    const value = decodeFormComponent(eq < 0 ? '' : pair.slice(eq + 1));
    if (fields.has(name)) throw new FormDecodeError(`parameter ${name} is repeated`);
    fields.set(name, value);
  }
  return fields;
}

export interface BasicCredentials {
  clientId: string;
  clientSecret: string;
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * Decodes the credentials of an `Authorization: Basic …` header value (the part after the scheme) the way
 * RFC 6749 §2.3.1 requires: base64, split at the FIRST colon, then each half form-decoded. So a client
 * that sends a secret containing `+` or `%` without encoding it first gets a different secret or an error.
 */
export function decodeBasicCredentials(token: string): BasicCredentials {
  if (!BASE64.test(token) || token.length % 4 !== 0) throw new FormDecodeError('credentials are not base64');
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(token, 'base64'));
  } catch {
    throw new FormDecodeError('credentials are not UTF-8');
  }
  const colon = text.indexOf(':');
  if (colon < 0) throw new FormDecodeError('credentials have no colon between client id and secret');
  return {
    clientId: decodeFormComponent(text.slice(0, colon)),
    clientSecret: decodeFormComponent(text.slice(colon + 1)),
  };
}

/** Splits an Authorization header into its scheme (lower-cased) and the rest. */
export function splitAuthorization(
  header: string | undefined,
): { scheme: string; value: string } | undefined {
  if (header === undefined) return undefined;
  const match = /^([A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]*)(?: +(.*))?$/.exec(header.trim());
  if (!match) return { scheme: '', value: header };
  return { scheme: match[1]!.toLowerCase(), value: (match[2] ?? '').trim() };
}
