// Behaviours of real deployments that the spec does not describe, each switched on by name so an admin can
// rehearse a vendor's server (`roster sandbox --quirks wrappers,clock=+2h`) and our tests use the same switch.

export interface Quirks {
  /** OneRoster lists under a key named after the path (`{"students": […]}`, single reads `{"student": {…}}`). */
  pathWrappers?: boolean;
  /** Token endpoints refuse a request without this scope: 400 invalid_request "scope is required". */
  requiredScope?: string;
  /**
   * A gateway in front of the API: POST /enrollment/invitations is acted on (the e-mail goes out), then the
   * gateway answers 503 text/plain instead of the API's answer, for this fraction of the posts.
   */
  gateway503?: { rate: number; retryAfterSeconds?: number };
  /** The server's clock (its `Date` header and the `dateLastModified` it stamps) runs this far ahead (< 0: behind). */
  clockOffsetMs?: number;
  /** OneRoster lists never end: every page is full, has a next link and holds records never served before. */
  endlessPages?: boolean;
}

export interface QuirkDoc {
  name: string;
  /** How the value is written, when it takes one. */
  value?: string;
  what: string;
}

/** The documented list (the table in docs/sandbox.md and `roster sandbox --help` both come from here). */
export const QUIRK_DOCS: QuirkDoc[] = [
  {
    name: 'wrappers',
    what: 'OneRoster lists named after the path ({"students": [...]}, {"student": {...}}), not users/orgs/academicSessions',
  },
  {
    name: 'scope-required',
    value: 'SCOPE',
    what: 'token endpoints answer 400 invalid_request "scope is required" to a request without a scope, invalid_scope to one without SCOPE (default roster-core.readonly); the token carries the scope',
  },
  {
    name: 'gateway-503',
    value: 'P',
    what: 'a gateway answers 503 text/plain after the API sent the invitation, for a fraction P of the sends (default 1)',
  },
  {
    name: 'gateway-503-retry-after',
    value: 'P',
    what: 'as gateway-503, with Retry-After: 1',
  },
  {
    name: 'clock',
    value: '+2h | -30m | +8760h',
    what: "the server's clock runs ahead (+) or behind (-): its Date header and the dateLastModified it stamps",
  },
  {
    name: 'endless-pages',
    what: 'OneRoster lists never end: every page is full and links to another of new records',
  },
];

export const DEFAULT_REQUIRED_SCOPE = 'roster-core.readonly';

/** Parses `--quirks` (comma-separated `name` or `name=value`); throws RangeError naming what is wrong. */
export function parseQuirks(list: string): Quirks {
  const quirks: Quirks = {};
  for (const item of list.split(',').map((s) => s.trim())) {
    if (item === '') continue;
    const eq = item.indexOf('=');
    const name = eq < 0 ? item : item.slice(0, eq);
    const value = eq < 0 ? undefined : item.slice(eq + 1);
    switch (name) {
      case 'wrappers':
        noValue(name, value);
        quirks.pathWrappers = true;
        break;
      case 'scope-required':
        if (value !== undefined && !/^[\x21\x23-\x5b\x5d-\x7e]+( [\x21\x23-\x5b\x5d-\x7e]+)*$/.test(value)) {
          throw new RangeError(
            `scope-required takes a scope of printable characters (got "${value.slice(0, 40)}")`,
          );
        }
        quirks.requiredScope = value ?? DEFAULT_REQUIRED_SCOPE;
        break;
      case 'gateway-503':
      case 'gateway-503-retry-after':
        quirks.gateway503 = {
          rate: fraction(name, value),
          ...(name === 'gateway-503-retry-after' ? { retryAfterSeconds: 1 } : {}),
        };
        break;
      case 'clock':
        quirks.clockOffsetMs = clockOffset(value);
        break;
      case 'endless-pages':
        noValue(name, value);
        quirks.endlessPages = true;
        break;
      default:
        throw new RangeError(
          `unknown quirk "${name.slice(0, 40)}" (known: ${QUIRK_DOCS.map((q) => q.name).join(', ')})`,
        );
    }
  }
  return quirks;
}

function noValue(name: string, value: string | undefined): void {
  if (value !== undefined) throw new RangeError(`${name} takes no value (got "${value.slice(0, 40)}")`);
}

function fraction(name: string, value: string | undefined): number {
  if (value === undefined) return 1;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1) {
    throw new RangeError(`${name} takes a fraction from 0 to 1 (got "${value.slice(0, 40)}")`);
  }
  return n;
}

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `+2h`, `-30m`, `+90s`, `+400d`: at most 100 years either way. */
function clockOffset(value: string | undefined): number {
  const match = value === undefined ? null : /^([+-])(\d{1,7})([smhd])$/.exec(value);
  const ms = match ? (match[1] === '-' ? -1 : 1) * Number(match[2]) * UNIT_MS[match[3]!]! : Number.NaN;
  if (!match || Math.abs(ms) > 100 * 365 * UNIT_MS.d!) {
    throw new RangeError(
      `clock takes a signed offset such as +2h, -30m or +400d, at most 100 years (got "${String(value).slice(0, 40)}")`,
    );
  }
  return ms;
}
