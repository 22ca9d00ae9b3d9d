// Which school a typed value means: a sourcedId as given, else a school whose name or identifier equals
// it. Names are compared the way an admin reads them (any letter case, runs of spaces as one), never by
// prefix or likeness: a value that matches two schools, or none, is refused with the candidates.
import { printable } from '../values.js';

export interface School {
  sourcedId: string;
  name: string;
  identifier: string;
  /** OneRoster status; `tobedeleted` schools are never matched by name or offered. */
  status: string;
}

export type SchoolMatch =
  | { kind: 'school'; school: School; by: 'sourcedId' | 'name' | 'identifier' }
  | { kind: 'ambiguous'; candidates: School[] }
  | { kind: 'unknown'; near: School[] };

/** Names and identifiers as compared: Unicode NFC, any case, surrounding and repeated spaces ignored. */
export const comparable = (text: string): string =>
  text.normalize('NFC').trim().replace(/\s+/g, ' ').toLowerCase();

export const isActive = (school: School): boolean => school.status !== 'tobedeleted';

export function matchSchool(value: string, schools: readonly School[]): SchoolMatch {
  const given = value.trim();
  // A sourcedId wins over any name or identifier that happens to spell it.
  const byId = schools.find((s) => s.sourcedId === given);
  if (byId) return { kind: 'school', school: byId, by: 'sourcedId' };
  const wanted = comparable(given);
  const active = schools.filter(isActive);
  const hits = active.filter((s) => comparable(s.name) === wanted || comparable(s.identifier) === wanted);
  if (hits.length === 1) {
    const school = hits[0]!;
    return { kind: 'school', school, by: comparable(school.identifier) === wanted ? 'identifier' : 'name' };
  }
  if (hits.length > 1) return { kind: 'ambiguous', candidates: hits };
  const near = wanted === '' ? [] : active.filter((s) => comparable(s.name).includes(wanted));
  return { kind: 'unknown', near: near.slice(0, 5) };
}

/** "Alder Elementary School (identifier 360001000001, sourcedId org-sch-1)", safe to print. */
export function describeSchool(school: School): string {
  const parts = [
    ...(school.identifier ? [`identifier ${printable(school.identifier, 40)}`] : []),
    `sourcedId ${printable(school.sourcedId, 60)}`,
  ];
  return `${printable(school.name || '(no name)', 80)} (${parts.join(', ')})`;
}

/** Why a value is refused, for one line of an error: "matches 2 schools: …" / "is not a school of …". */
export function refusal(match: Exclude<SchoolMatch, { kind: 'school' }>): string {
  if (match.kind === 'ambiguous') {
    return `matches ${match.candidates.length} schools: ${match.candidates.map(describeSchool).join('; ')}`;
  }
  const near =
    match.near.length > 0 ? `; names that contain it: ${match.near.map(describeSchool).join('; ')}` : '';
  return `is not the name, identifier or sourcedId of a school of this district${near}`;
}
