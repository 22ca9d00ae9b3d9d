// Link and X-Total-Count headers. Link URLs repeat the request's query exactly as the client sent it
// (same encoding), with only `offset` replaced, so following `next` reproduces the client's own request.

export type LinkStyle = 'angle' | 'bare' | 'none';

export interface PageLinks {
  first: number;
  prev?: number;
  next?: number;
  /** Absent when the list has no end (the endless-pages quirk). */
  last?: number;
}

/** Offsets of the neighbouring pages; pages are aligned on the request's own offset. */
export function pageOffsets(offset: number, pageSize: number, total: number): PageLinks {
  const last =
    offset < total
      ? offset + Math.floor((total - 1 - offset) / pageSize) * pageSize
      : Math.max(0, Math.floor((total - 1) / pageSize) * pageSize);
  const links: PageLinks = { first: 0, last };
  if (offset > 0) links.prev = Math.max(0, Math.min(offset - pageSize, last));
  if (offset + pageSize < total) links.next = offset + pageSize;
  return links;
}

/** The raw query with `offset` set to the given value (other parameters untouched, in order). */
export function withOffset(rawQuery: string, offset: number): string {
  const parts = rawQuery ? rawQuery.split('&').filter((p) => p.length > 0) : [];
  let replaced = false;
  const out: string[] = [];
  for (const p of parts) {
    const name = p.split('=', 1)[0];
    if (name === 'offset') {
      if (!replaced) out.push(`offset=${offset}`);
      replaced = true;
    } else {
      out.push(p);
    }
  }
  if (!replaced) out.push(`offset=${offset}`);
  return out.join('&');
}

export function linkHeader(
  url: string,
  rawQuery: string,
  links: PageLinks,
  style: LinkStyle,
): string | undefined {
  if (style === 'none') return undefined;
  const rels: [string, number | undefined][] = [
    ['next', links.next],
    ['last', links.last],
    ['first', links.first],
    ['prev', links.prev],
  ];
  return rels
    .filter((r): r is [string, number] => r[1] !== undefined)
    .map(([rel, offset]) => {
      const target = `${url}?${withOffset(rawQuery, offset)}`;
      return style === 'angle' ? `<${target}>; rel="${rel}"` : `${target}; rel="${rel}"`;
    })
    .join(', ');
}
