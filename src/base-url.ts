// The service's {base_url}. Credentials and tokens travel to it, so plain http is allowed only to the
// machine itself (the sandbox), and anything that could smuggle a second host is refused.
import { isIP } from 'node:net';
import { UsageError } from './errors.js';

/** A URL's hostname as an address: an IPv6 literal without its brackets. */
export const bareHost = (hostname: string) => hostname.replace(/^\[|\]$/g, '');

export function isLoopbackHost(hostname: string): boolean {
  const host = bareHost(hostname).toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}

/** Validates and normalises a base URL (no trailing slash). `source` names where it came from. */
export function parseBaseUrl(input: string, source = '--base-url'): string {
  const fail = (why: string) =>
    new UsageError(`Invalid base URL from ${source}: ${why}.`, 'Example: https://api.district.example/v1');
  // The URL parser silently drops tabs and newlines; a pasted value with them is a mistake, not a URL.
  if (/[\u0000-\u001f\u007f\s]/.test(input)) throw fail('it contains spaces or control characters');
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw fail(`"${input.slice(0, 200)}" is not a URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw fail('it must start with https://');
  if (url.username || url.password) throw fail('it must not contain a user name or password');
  if (url.search || url.hash) throw fail('it must not have a query string or fragment');
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new UsageError(
      `Refusing plain http:// to ${url.hostname}: credentials and tokens would travel unencrypted.`,
      'Use https://, or http:// only for a server on this machine (127.0.0.1, localhost).',
    );
  }
  // Built from origin and path, not href: a bare "?" or "#" leaves search and hash empty but stays in
  // href, and would turn every path appended to the base into a query string or fragment.
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}
