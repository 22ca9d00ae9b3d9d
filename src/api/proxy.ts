// Which proxy, if any, a request goes through: HTTPS_PROXY / HTTP_PROXY / NO_PROXY in either case,
// as curl reads them. District networks often allow the outside world only through a proxy.
import { bareHost } from '../base-url.js';

type Env = Readonly<Record<string, string | undefined>>;

const read = (env: Env, name: string) => env[name.toLowerCase()] || env[name.toUpperCase()] || undefined;

/** The proxy URL for a target URL, or undefined to connect directly. */
export function proxyFor(target: URL, env: Env): string | undefined {
  const proxy = target.protocol === 'https:' ? read(env, 'https_proxy') : read(env, 'http_proxy');
  if (!proxy || bypassed(target, read(env, 'no_proxy') ?? '')) return undefined;
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(proxy) ? proxy : `http://${proxy}`;
}

/** NO_PROXY: `*`, or host names / domain suffixes / IP addresses, each with an optional :port. */
export function bypassed(target: URL, noProxy: string): boolean {
  const host = bareHost(target.hostname).toLowerCase();
  const port = target.port || (target.protocol === 'https:' ? '443' : '80');
  return noProxy
    .split(/[\s,]+/)
    .filter(Boolean)
    .some((entry) => {
      if (entry === '*') return true;
      const match = /^(.*?)(?::(\d+))?$/.exec(entry.toLowerCase()) ?? [];
      const name = bareHost(match[1] ?? '').replace(/^\*?\./, '');
      if (match[2] && match[2] !== port) return false;
      return host === name || host.endsWith(`.${name}`);
    });
}

/** A proxy URL fit for messages and traces: no user name or password. */
export function displayProxy(proxy: string): string {
  try {
    const url = new URL(proxy);
    url.username = '';
    url.password = '';
    return url.href.replace(/\/$/, '');
  } catch {
    return '(unparseable proxy URL)';
  }
}
