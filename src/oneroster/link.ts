// The `Link` header (RFC 8288) as OneRoster servers write it: `<url>; rel="next"`, or without the angle
// brackets, absolute or relative, several links separated by commas.

/** rel → URL as written (not yet resolved). The first link of each rel wins. */
export function parseLinkHeader(header: string | string[] | undefined): Map<string, string> {
  const links = new Map<string, string>();
  const text = Array.isArray(header) ? header.join(', ') : header;
  if (!text) return links;
  for (const part of splitLinks(text)) {
    const parsed = parseLink(part);
    if (!parsed) continue;
    for (const rel of parsed.rels) if (!links.has(rel)) links.set(rel, parsed.url);
  }
  return links;
}

/**
 * Splits at the commas that start a new link: before `<`, an absolute URL (`scheme:`), or a path (`/`,
 * `?`). A bare URL may carry commas in its query (`fields=a,b`), which must not split it.
 */
function splitLinks(text: string): string[] {
  return text.split(/,(?=\s*(?:<|[A-Za-z][A-Za-z0-9+.-]*:\/\/|\/|\?))/);
}

function parseLink(part: string): { url: string; rels: string[] } | undefined {
  const trimmed = part.trim();
  let url: string;
  let params: string;
  if (trimmed.startsWith('<')) {
    const end = trimmed.indexOf('>');
    if (end < 0) return undefined;
    url = trimmed.slice(1, end).trim();
    params = trimmed.slice(end + 1);
  } else {
    const semicolon = trimmed.indexOf(';');
    if (semicolon < 0) return undefined;
    url = trimmed.slice(0, semicolon).trim();
    params = trimmed.slice(semicolon);
  }
  const rel = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))/i.exec(params);
  const value = rel?.[1] ?? rel?.[2];
  if (!url || value === undefined) return undefined;
  return { url, rels: value.toLowerCase().split(/\s+/).filter(Boolean) };
}

export type LinkTarget =
  /** Below our base URL: safe to request with our token. */
  | { kind: 'ours'; path: string; query: string; url: string }
  /** Another origin, or a path outside the service: never sent our bearer token. */
  | { kind: 'elsewhere'; url: string }
  | { kind: 'invalid'; url: string };

/**
 * Resolves a link (relative to the response it came with) and tells whether it lies below the service's
 * base URL, as a path and raw query to hand to the API client. The query is kept exactly as written.
 */
export function resolveLink(link: string, responseUrl: string, baseUrl: string): LinkTarget {
  let target: URL;
  try {
    target = new URL(link, responseUrl);
  } catch {
    return { kind: 'invalid', url: link };
  }
  const base = new URL(baseUrl);
  const basePath = base.pathname.replace(/\/$/, '');
  if (
    target.origin !== base.origin ||
    !(target.pathname === basePath || target.pathname.startsWith(`${basePath}/`))
  ) {
    return { kind: 'elsewhere', url: target.href };
  }
  return {
    kind: 'ours',
    path: target.pathname.slice(basePath.length),
    query: target.search.replace(/^\?/, ''),
    url: target.href,
  };
}

/** The `offset` parameter of a raw query, when it has exactly one numeric value. */
export function offsetOf(rawQuery: string): number | undefined {
  const values = rawQuery
    .split('&')
    .filter((p) => p.split('=', 1)[0] === 'offset')
    .map((p) => p.slice(p.indexOf('=') + 1));
  if (values.length !== 1 || !/^\d+$/.test(values[0] ?? '')) return undefined;
  return Number(values[0]);
}
