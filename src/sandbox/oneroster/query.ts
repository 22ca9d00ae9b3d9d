// Parses the raw query string of a OneRoster read. The sandbox decodes it itself rather than trusting
// URLSearchParams, because URLSearchParams turns `+` into a space. The notes tell clients to send a space
// as %20, so by default `+` stays a literal `+` (the strict reading: a client that sends `Mary+Ann` finds
// nobody, which is how the sandbox catches that encoding bug). `plusAsSpace: true` relaxes this.
import { OneRosterError } from './errors.js';

export interface ReadQuery {
  limit: number;
  /** Whether the client sent `limit` (Link URLs then keep it as sent). */
  limitGiven: boolean;
  offset: number;
  sort?: string;
  orderBy: 'asc' | 'desc';
  filter?: string;
  fields?: string[];
}

export const DEFAULT_LIMIT = 100;

/** Decodes `a=1&b=2` into a map (first occurrence of a name wins). */
export function decodeQuery(rawQuery: string, plusAsSpace = false): Map<string, string> {
  const params = new Map<string, string>();
  if (!rawQuery) return params;
  for (const part of rawQuery.split('&')) {
    if (!part) continue;
    const eq = part.indexOf('=');
    const rawName = eq < 0 ? part : part.slice(0, eq);
    const rawValue = eq < 0 ? '' : part.slice(eq + 1);
    const name = decodePart(rawName, plusAsSpace, 'a parameter name');
    const value = decodePart(rawValue, plusAsSpace, `the value of '${name}'`);
    if (!params.has(name)) params.set(name, value);
  }
  return params;
}

function decodePart(raw: string, plusAsSpace: boolean, what: string): string {
  try {
    return decodeURIComponent(plusAsSpace ? raw.replace(/\+/g, ' ') : raw);
  } catch {
    throw new OneRosterError(`Malformed percent-encoding in ${what}: "${raw}"`, 'invaliddata');
  }
}

function nonNegativeInt(name: string, text: string, min: number): number {
  if (!/^\d+$/.test(text.trim()) || Number(text) < min || !Number.isSafeInteger(Number(text))) {
    throw new OneRosterError(`Invalid ${name}: "${text}" (expected an integer >= ${min})`, 'invaliddata');
  }
  return Number(text);
}

export function parseReadQuery(params: Map<string, string>): ReadQuery {
  const limitText = params.get('limit');
  const offsetText = params.get('offset');
  const orderBy = params.get('orderBy') ?? 'asc';
  if (orderBy !== 'asc' && orderBy !== 'desc') {
    throw new OneRosterError(`Invalid orderBy: "${orderBy}" (expected asc or desc)`, 'invaliddata');
  }
  const q: ReadQuery = {
    limit: limitText === undefined ? DEFAULT_LIMIT : nonNegativeInt('limit', limitText, 1),
    limitGiven: limitText !== undefined,
    offset: offsetText === undefined ? 0 : nonNegativeInt('offset', offsetText, 0),
    orderBy,
  };
  const sort = params.get('sort')?.trim();
  if (sort) q.sort = sort;
  const filter = params.get('filter');
  if (filter?.trim()) q.filter = filter;
  const fields = params.get('fields');
  if (fields?.trim()) {
    q.fields = fields
      .split(',')
      .map((f) => f.trim())
      .filter((f) => f.length > 0);
  }
  return q;
}
