// Reading cells out of OneRoster records of either version, whatever the server's dialect: 1.1 `role` and
// `orgs` or 1.2 `roles[]` and `primaryOrg`, `enabledUser` as a boolean or a string, nulls, unknown keys.
// Records themselves are passed through untouched (--json prints the API's own fields); only the table
// and CSV views go through here.
import { isRecord } from '../api/errors.js';
import { FLATTEN_DEPTH, stringify } from '../output/json-text.js';

type Rec = Record<string, unknown>;

/** The scalar values of a column in a record: one for plain fields, several for lists, none when absent. */
export function columnValues(record: unknown, column: string): string[] {
  return columnReader(column)(record);
}

/** A column's reader, decided once per column rather than once per cell (exports read millions). */
export function columnReader(column: string): (record: unknown) => string[] {
  const derived = DERIVED[column];
  if (derived) return (record) => (isRecord(record) ? scalars(derived(record)) : []);
  // The CSV binding's reference columns: parentSourcedId → parent.sourcedId, termSourcedIds → terms[].
  const many = /^(.+)SourcedIds$/.exec(column)?.[1];
  const one = /^(.+)SourcedId$/.exec(column)?.[1];
  const own = pathOf(column);
  const manyPaths =
    many === undefined ? undefined : [pathOf(`${many}s.sourcedId`), pathOf(`${many}.sourcedId`)];
  const onePath = one === undefined ? undefined : pathOf(`${one}.sourcedId`);
  const dotted = column.includes('.');
  return (record) => {
    if (!isRecord(record)) return [];
    if (dotted || column in record) return scalars(at(record, own));
    if (manyPaths) return scalars(at(record, manyPaths[0] as Path) ?? at(record, manyPaths[1] as Path));
    if (onePath) return scalars(at(record, onePath));
    return [];
  };
}

/** A dotted path split once, not at every cell. */
type Path = readonly string[];
const pathOf = (dotted: string): Path => dotted.split('.');
const ORGS_IDS = pathOf('orgs.sourcedId');
const ROLE_ORG_IDS = pathOf('roles.org.sourcedId');

/** Columns the CSV binding defines that the REST records carry under another name or shape. */
const DERIVED: Record<string, (record: Rec) => unknown> = {
  // A boolean in 1.1 (or a string, from some servers), the string "true"/"false" in 1.2.
  enabledUser: (r) => booleanText(r.enabledUser),
  primary: (r) => booleanText(r.primary),
  // 1.1 has `role`; 1.2 has roles[] with one primary role.
  role: (r) => r.role ?? rolesOf(r).find((x) => x.roleType === 'primary')?.role ?? rolesOf(r)[0]?.role,
  // 1.1 has orgs[]; 1.2 has the orgs of its roles.
  orgSourcedIds: (r) => (Array.isArray(r.orgs) ? at(r, ORGS_IDS) : at(r, ROLE_ORG_IDS)),
  userIds: (r) =>
    Array.isArray(r.userIds)
      ? r.userIds.filter(isRecord).map((id) => `{${text(id.type)}:${text(id.identifier)}}`)
      : r.userIds,
  // The CSV names them preferredGivenName / preferredFamilyName; the 1.2 REST binding First / Last.
  preferredGivenName: (r) => r.preferredGivenName ?? r.preferredFirstName,
  preferredFamilyName: (r) => r.preferredFamilyName ?? r.preferredLastName,
};

function booleanText(value: unknown): unknown {
  if (typeof value === 'string' && /^(true|false)$/i.test(value.trim())) return value.trim().toLowerCase();
  return value;
}

function rolesOf(record: Rec): Rec[] {
  return Array.isArray(record.roles) ? record.roles.filter(isRecord) : [];
}

/** The value at a dotted path, mapping over lists on the way. */
function at(value: unknown, path: Path): unknown {
  let current: unknown = value;
  for (const key of path) {
    if (Array.isArray(current)) current = current.flatMap((item) => (isRecord(item) ? item[key] : undefined));
    else if (isRecord(current)) current = current[key];
    else return undefined;
  }
  return current;
}

/** Flattens a value into cell texts: references become their sourcedId, booleans "true"/"false". */
function scalars(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  // Most cells are one string: no list to flatten.
  if (typeof value === 'string') return [value];
  const out: string[] = [];
  addScalars(value, out);
  return out;
}

function addScalars(value: unknown, out: string[], depth = 0): void {
  if (value === undefined || value === null) return;
  if (Array.isArray(value) && depth < FLATTEN_DEPTH) {
    for (const item of value) addScalars(item, out, depth + 1);
  } else if (isRecord(value)) {
    out.push(typeof value.sourcedId === 'string' ? value.sourcedId : stringify(value));
  } else out.push(text(value));
}

function text(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  return typeof value === 'object' ? stringify(value) : String(value);
}

export function sourcedIdOf(record: unknown): string | undefined {
  return isRecord(record) && typeof record.sourcedId === 'string' ? record.sourcedId : undefined;
}
