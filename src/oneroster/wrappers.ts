// Where a OneRoster answer keeps its data. The standard names the key after the kind of record (`users`
// for GET …/students, `user` for GET …/students/{id}); some real servers name it after the path instead
// (`students`, `student`). Every read decides here: the standard's key, else the one key named after the
// path; a body with both, or with neither, is refused rather than guessed at.
import { isRecord } from '../api/errors.js';
import { RosterError } from '../errors.js';
import { printable } from '../values.js';

export interface Wrapper {
  /** The standard's key: users, orgs, academicSessions; user, org, academicSession. */
  spec: string;
  /** The key named after the path: students, terms, gradingPeriods; student, term, gradingPeriod. */
  named: string;
  /** A list (an array under the key) or a single read (an object under the key). */
  shape: 'list' | 'record';
}

export interface Unwrapped<T> {
  /** The key the data was under. */
  key: string;
  value: T;
}

/** A list read at `path` (…/schools/{id}/students): the standard's key, or the path's last segment. */
export function listWrapper(spec: string, path: string): Wrapper {
  return { spec, named: lastSegment(path), shape: 'list' };
}

/** A single read below collection `path` (…/students): the standard's key, or its singular (student). */
export function recordWrapper(spec: string, path: string): Wrapper {
  return { spec, named: singular(lastSegment(path)), shape: 'record' };
}

/**
 * The list or record in a parsed body, and the key it was under. `where` starts the message of a refusal,
 * e.g. "Reading students: the server answered HTTP 200".
 */
export function unwrap(body: unknown, wrapper: Wrapper, where: string): Unwrapped<unknown> {
  const keys = wrapper.named === wrapper.spec ? [wrapper.spec] : [wrapper.spec, wrapper.named];
  const present = isRecord(body) ? keys.filter((key) => Object.hasOwn(body, key)) : [];
  const noun = wrapper.shape === 'list' ? 'list' : 'record';
  if (present.length > 1) {
    throw new RosterError(
      'unexpected',
      `${where} with both a "${wrapper.spec}" and a "${wrapper.named}" ${noun}: roster cannot tell which one is the answer`,
      `Report it to the vendor: the OneRoster standard puts the ${noun} under "${wrapper.spec}".`,
    );
  }
  const key = present[0];
  const value = key === undefined || !isRecord(body) ? undefined : body[key];
  if (key === undefined || !fits(value, wrapper.shape)) {
    throw new RosterError(
      'unexpected',
      `${where} without a ${keys.map((k) => `"${k}"`).join(' or ')} ${noun} (${found(body)})`,
      'Check the OneRoster version (--oneroster) and the path prefix of the profile.',
    );
  }
  return { key, value };
}

/** For --debug: which key a read's data came under. */
export function describeKey(wrapper: Wrapper, key: string): string {
  return key === wrapper.spec
    ? `under "${key}"`
    : `under "${key}", named after the path (the standard's key is "${wrapper.spec}")`;
}

const fits = (value: unknown, shape: Wrapper['shape']) =>
  shape === 'list' ? Array.isArray(value) : isRecord(value);

function found(body: unknown): string {
  if (isRecord(body)) return `keys: ${printable(Object.keys(body).slice(0, 8).join(', '), 300) || 'none'}`;
  if (body === undefined) return 'not JSON';
  return `a JSON ${Array.isArray(body) ? 'array' : body === null ? 'null' : typeof body}`;
}

const lastSegment = (path: string) => path.replace(/\/+$/, '').split('/').pop() ?? '';

/** students → student, classes → class, academicSessions → academicSession. */
function singular(name: string): string {
  if (name.endsWith('sses')) return name.slice(0, -2);
  return name.endsWith('s') ? name.slice(0, -1) : name;
}
