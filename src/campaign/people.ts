// A OneRoster user as a campaign needs it, read from a record of either version (1.1 `role` and `orgs`;
// 1.2 `roles[]` with an org and dates) and whatever the server left out. Only what the plan uses is
// kept: a district holds tens of thousands of users and only a few matter.
import { isRecord } from '../api/errors.js';

export interface Person {
  sourcedId: string;
  name: string;
  /** The e-mail as the server wrote it (trimmed); '' when absent. */
  email: string;
  /** Not `tobedeleted`. */
  active: boolean;
  /** Roles held now, each with its org (1.1: every org of the user). */
  roles: { role: string; org?: string }[];
  /** Roles whose 1.2 `endDate` has passed. */
  endedRoles: string[];
  grades: string[];
  /** sourcedIds of the `agents` GUIDRefs. */
  agents: string[];
}

const text = (value: unknown): string => (typeof value === 'string' ? value.trim() : '');
const refId = (value: unknown): string => (isRecord(value) ? text(value.sourcedId) : '');
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
/**
 * The non-empty texts of a list, `of` each entry. An array of its exact size (map allocates it so; one grown
 * by filter keeps room for 16 more): the planner keeps a district's agents lists as they are.
 */
function texts(value: unknown, of: (entry: unknown) => string): string[] {
  const all = list(value).map(of);
  return all.includes('') ? all.filter(Boolean) : all;
}

/**
 * The person a record describes, or undefined when it has no sourcedId. `today` (YYYY-MM-DD) decides
 * which 1.2 roles have ended: one whose endDate is before today.
 */
export function personOf(record: unknown, today: string): Person | undefined {
  if (!isRecord(record)) return undefined;
  const sourcedId = text(record.sourcedId);
  if (sourcedId === '') return undefined;
  const roles: Person['roles'] = [];
  const endedRoles: string[] = [];
  addRoles12(record.roles, today, roles, endedRoles);
  addRole11(record, roles);
  return {
    sourcedId,
    // join, not a template: one flat string, where a template's would hold both parts (a district keeps
    // 130,000 names).
    name: [text(record.givenName), text(record.familyName)].filter(Boolean).join(' '),
    email: text(record.email),
    active: text(record.status).toLowerCase() !== 'tobedeleted',
    roles,
    endedRoles,
    grades: texts(record.grades, text),
    agents: texts(record.agents, refId),
  };
}

/** OneRoster 1.2's `roles[]`: each held now with its org, or ended (its endDate before `today`). */
function addRoles12(entries: unknown, today: string, roles: Person['roles'], endedRoles: string[]): void {
  for (const entry of list(entries)) {
    if (!isRecord(entry)) continue;
    const role = text(entry.role).toLowerCase();
    if (role === '') continue;
    const end = text(entry.endDate).slice(0, 10);
    if (end !== '' && end < today) endedRoles.push(role);
    else roles.push({ role, org: refId(entry.org) || undefined });
  }
}

/** OneRoster 1.1's one `role`, held in every org of the user's (or in none named, when it lists none). */
function addRole11(record: Record<string, unknown>, roles: Person['roles']): void {
  const role = text(record.role).toLowerCase();
  if (role === '') return;
  const orgs = texts(record.orgs, refId);
  if (orgs.length === 0) roles.push({ role });
  for (const org of orgs) roles.push({ role, org });
}

/** The orgs where the person holds `role` now. */
export function orgsAs(person: Person, role: string): string[] {
  return person.roles.flatMap((r) => (r.role === role && r.org ? [r.org] : []));
}

export function holds(person: Person, roles: ReadonlySet<string>): boolean {
  return person.roles.some((r) => roles.has(r.role));
}

/** A student, now or once (a 1.2 student role that has ended): what a server lists under /students. */
export function isStudent(person: Person): boolean {
  return person.roles.some((r) => r.role === 'student') || person.endedRoles.includes('student');
}
