// Shared helpers for the OneRoster sandbox route tests: build requests without a socket.

import { createOneRosterRoute, type OneRosterSandboxOptions } from '../../src/sandbox/oneroster/index.js';
import type { Quirks } from '../../src/sandbox/quirks.js';
import type { Caller, SandboxRequest, SandboxResponse } from '../../src/sandbox/types.js';

export const caller11: Caller = { clientId: 'c1', label: 'Test', tokenEndpoint: '/ims/oneroster/v1p1/token' };
export const caller12: Caller = { clientId: 'c1', label: 'Test', tokenEndpoint: '/ims/oneroster/v1p2/token' };

export function request(path: string, rawQuery = '', method = 'GET'): SandboxRequest {
  return {
    method,
    path,
    rawQuery,
    query: new URLSearchParams(rawQuery),
    headers: { host: 'sandbox.test:8080' },
    body: Buffer.alloc(0),
  };
}

export type Get = (
  path: string,
  rawQuery?: string,
) => Promise<SandboxResponse & { body: Record<string, unknown> }>;

/** A GET helper over a route: `get('/students', 'limit=5')` with the version's prefix and token endpoint. */
export function client(
  version: '1.1' | '1.2',
  options: OneRosterSandboxOptions = {},
  quirks: Quirks = {},
): Get {
  const route = createOneRosterRoute(options, quirks);
  const prefix = version === '1.1' ? '/ims/oneroster/v1p1' : '/ims/oneroster/v1p2';
  const who = version === '1.1' ? caller11 : caller12;
  return async (path, rawQuery = '') => {
    const res = await route(request(`${prefix}${path}`, rawQuery), who);
    if (!res) throw new Error(`route declined ${path}`);
    return res as SandboxResponse & { body: Record<string, unknown> };
  };
}

export type Rec = Record<string, unknown>;

export function rows(res: { body: Record<string, unknown> }, key: string): Rec[] {
  const list = res.body[key];
  if (!Array.isArray(list)) throw new Error(`no "${key}" list in ${JSON.stringify(res.body).slice(0, 200)}`);
  return list as Rec[];
}

/** The Link header as { rel: url }, for either angle or bare style. */
export function parseLink(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!header) return out;
  for (const part of header.split(/,\s*(?=<|https?:)/)) {
    const m = /^\s*<?([^>;]+)>?\s*;\s*rel="([^"]+)"/.exec(part);
    if (m) out[m[2]!] = m[1]!;
  }
  return out;
}

/** encodeURIComponent, plus `'` as %27 as the notes ask. */
export const enc = (s: string): string => encodeURIComponent(s).replace(/'/g, '%27');
