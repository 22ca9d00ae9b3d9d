// OneRoster 1.1 / 1.2 rostering endpoints of the sandbox: a ResourceRoute serving the seeded district under
// /ims/oneroster/v1p1/… and /ims/oneroster/v1p2/… with the standard's query grammar, paging headers and
// errors, plus switches that reproduce what real vendors do (clamped pages, bare or missing Link headers).

import type { Quirks } from '../quirks.js';
import type { Caller, ResourceRoute, SandboxRequest, SandboxResponse } from '../types.js';
import { Churn } from './churn.js';
import { Defects } from './defects.js';
import { buildDistrict, DEFAULT_SCHOOLS, type District, MAX_SCHOOLS } from './district.js';
import { errorResponse, OneRosterError, statusInfo } from './errors.js';
import { fieldsOf, isKnownPath } from './fields.js';
import { checkFilterFields, type Filter, matches, parseFilter, valuesAt } from './filter.js';
import { COLLECTIONS, type IndexList, Indices, resolve, type Target, WRAPPER } from './lists.js';
import { type LinkStyle, linkHeader, pageOffsets } from './paging.js';
import { decodeQuery, parseReadQuery, type ReadQuery } from './query.js';
import {
  AGENTS_SIDES,
  type AgentsSide,
  countOf,
  type Kind,
  type Rec,
  type RenderContext,
  sourcedIdOf,
  type Version,
} from './records.js';

export interface OneRosterSandboxOptions {
  /** Number of students in the seeded district (default about 1,200; up to 200,000). */
  students?: number;
  /** Teaching schools (default 5: the seeded Alder … Elm; up to 100, names generated beyond those). */
  schools?: number;
  /** Which side of a student-guardian link carries `agents`: both (default), students' or guardians' records. */
  agents?: AgentsSide;
  /** 1.2 answers 400 to any `fields=` selection, as some servers do (1.2 always refuses a filter on roles). */
  refuseFields?: boolean;
  /** Silently clamp `limit` to this many rows, as some vendors do. */
  pageCap?: number;
  /** How the `Link` header is written: `<url>; rel="next"` (angle), `url; rel="next"` (bare) or not at all. */
  link?: 'angle' | 'bare' | 'none';
  /** Seed of the deterministic data. */
  seed?: number;
  /** Accept only tokens issued by the version's own token endpoint (default true); otherwise 401. */
  strictTokenEndpoint?: boolean;
  /** Decode `+` in the query as a space (default false: `+` is a literal plus; clients must send %20). */
  plusAsSpace?: boolean;
  /** Send `X-Total-Count` (default true); false reproduces servers that do not. */
  totalCount?: boolean;
  /** Status of an empty page: 200 with an empty list (default) or 204 No Content, as some servers do. */
  emptyStatus?: 200 | 204;
  /** 1.1 `enabledUser`: mixed booleans and strings (default), or all booleans / all strings. */
  enabledUser11?: 'mixed' | 'boolean' | 'string';
  /** Write some absent optional 1.1 user fields (middleName, sms) as null. Default false. */
  nulls?: boolean;
  /** Path of the service below the origin in absolute URLs (Link, href). Default '/v1'. */
  pathPrefix?: string;
  /** Absolute service base for Link and href URLs (e.g. 'http://127.0.0.1:4010/v1'); default from Host. */
  baseUrl?: string;
  /**
   * The family traps a campaign meets in real districts (families.ts; docs/sandbox.md "Families"): students no
   * guardian e-mail reaches, links to users the API does not return, about 1% of users tobedeleted. Without
   * them (the default) `roster roster audit` finds nothing.
   */
  familyTraps?: boolean;
  /** Plant one of each data error the go-live audit reports, on known records (defects.ts). */
  defects?: boolean;
  /** YYYY-MM-DD: the day whose school year is served (default: today by the sandbox's clock). */
  today?: string;
  /**
   * Collections (a path's first segment: academicSessions, enrollments, …) this server does not serve: 404
   * with the unknown-endpoint answer, as a vendor that serves part of OneRoster answers.
   */
  without?: readonly string[];
}

export const DEFAULT_STUDENTS = 1200;
export const MAX_STUDENTS = 200_000;
export const DEFAULT_SEED = 20250825;
const CACHE_ENTRIES = 32;

const VERSIONS: Record<string, Version> = { v1p1: '1.1', v1p2: '1.2' };

export function createOneRosterRoute(
  options: OneRosterSandboxOptions = {},
  quirks: Quirks = {},
): ResourceRoute {
  return createOneRosterService(options, quirks).route;
}

/** The route and the district's churn (changes made on demand: POST /__sandbox/churn, --churn N). */
export function createOneRosterService(
  options: OneRosterSandboxOptions = {},
  quirks: Quirks = {},
): {
  route: ResourceRoute;
  churn: Churn;
} {
  const students = options.students ?? DEFAULT_STUDENTS;
  if (!Number.isInteger(students) || students < 0 || students > MAX_STUDENTS) {
    throw new RangeError(`students must be an integer from 0 to ${MAX_STUDENTS}, got ${students}`);
  }
  if (options.pageCap !== undefined && (!Number.isInteger(options.pageCap) || options.pageCap < 1)) {
    throw new RangeError(`pageCap must be a positive integer, got ${options.pageCap}`);
  }
  const schools = options.schools ?? DEFAULT_SCHOOLS;
  if (!Number.isInteger(schools) || schools < 1 || schools > MAX_SCHOOLS) {
    throw new RangeError(`schools must be an integer from 1 to ${MAX_SCHOOLS}, got ${schools}`);
  }
  if (options.agents !== undefined && !AGENTS_SIDES.includes(options.agents)) {
    throw new RangeError(`agents must be one of ${AGENTS_SIDES.join(', ')}, got ${String(options.agents)}`);
  }
  const unknown = options.without?.find((name) => !Object.hasOwn(COLLECTIONS, name));
  if (unknown !== undefined)
    throw new RangeError(
      `without names a collection the sandbox serves (got "${unknown.slice(0, 40)}"; known: ${Object.keys(COLLECTIONS).join(', ')})`,
    );
  const seed = options.seed ?? DEFAULT_SEED;
  const d = buildDistrict(seed, students, schools, shapeOf(options));
  const churn = new Churn(d, seed);
  const server = new OneRosterServer(d, options, churn, quirks);
  return { route: (req, caller) => server.handle(req, caller), churn };
}

/** The district a route with these options serves (for tests and the demo: known ids and names). */
export function seededDistrict(options: OneRosterSandboxOptions = {}): District {
  return buildDistrict(
    options.seed ?? DEFAULT_SEED,
    options.students ?? DEFAULT_STUDENTS,
    options.schools ?? DEFAULT_SCHOOLS,
    shapeOf(options),
  );
}

const shapeOf = (options: OneRosterSandboxOptions) => ({
  traps: options.familyTraps ?? false,
  ...(options.today !== undefined && { today: options.today }),
});

class OneRosterServer {
  /** Filtered and sorted index lists per (version, path, filter, sort), so paging through is O(page). */
  private readonly cache = new Map<string, IndexList>();
  private readonly link: LinkStyle;
  private readonly defects?: Defects;

  constructor(
    private readonly d: District,
    private readonly options: OneRosterSandboxOptions,
    private readonly churn: Churn,
    private readonly quirks: Quirks,
  ) {
    this.link = options.link ?? 'angle';
    if (options.defects) this.defects = new Defects(d);
  }

  /** Record i as served: the seeded one, with the district's changes and, under --defects, its defect. */
  private record(ctx: RenderContext, kind: Kind, i: number): Rec {
    const rec = this.churn.record(ctx, kind, i);
    return this.defects ? this.defects.apply(ctx, kind, i, rec) : rec;
  }

  handle(req: SandboxRequest, caller: Caller): SandboxResponse | undefined {
    const m = /^\/ims\/oneroster\/(v1p1|v1p2)(\/.*)?$/.exec(req.path);
    if (!m) return undefined;
    const versionSegment = m[1]!;
    const version = VERSIONS[versionSegment]!;
    const rest = (m[2] ?? '').replace(/\/$/, '');
    // The token endpoints under these prefixes belong to the server's token route.
    if (rest === '/token') return undefined;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return errorResponse(405, `Method ${req.method} is not supported on ${req.path}`, 'invaliddata', {
        Allow: 'GET, HEAD',
      });
    }
    const tokenPath = `/ims/oneroster/${versionSegment}/token`;
    if (this.options.strictTokenEndpoint !== false && !caller.tokenEndpoint.endsWith(tokenPath)) {
      return errorResponse(
        401,
        `The access token was not issued for OneRoster ${version}: obtain it from ${tokenPath}`,
        'unauthorisedrequest',
        {
          'WWW-Authenticate': `Bearer error="invalid_token", error_description="token not issued by ${tokenPath}"`,
        },
      );
    }
    try {
      const response = this.read(req, version, rest);
      if (req.method === 'HEAD') delete response.body;
      return response;
    } catch (err) {
      if (err instanceof OneRosterError) return errorResponse(err.status, err.message, err.codeMinor);
      throw err;
    }
  }

  private read(req: SandboxRequest, version: Version, rest: string): SandboxResponse {
    const segments = pathSegments(rest);
    const target = this.target(req, segments);
    const query = parseReadQuery(decodeQuery(req.rawQuery, this.options.plusAsSpace ?? false));
    const ctx = this.renderContext(req, version);
    const warnings: Record<string, unknown>[] = [];
    const select = this.selection(version, target.kind, query.fields, warnings);
    if (target.type === 'single') {
      const rec = select(this.record(ctx, target.kind, target.index));
      const key = this.quirks.pathWrappers ? COLLECTIONS[segments[0] ?? '']!.one : WRAPPER[target.kind].one;
      const headers = { 'Content-Type': 'application/json' };
      return { status: 200, headers, body: this.body(version, key, rec, warnings) };
    }
    const filter = checkedFilter(query.filter, version, target.kind);
    const sort = sortField(query.sort, version, target.kind, warnings);
    const at = (i: number) => this.record(ctx, target.kind, i);
    const list = this.listOf(target, { version, query, filter, sort }, at);
    if (this.quirks.endlessPages && list.length > 0)
      return this.endless(req, version, query, list, at, select, WRAPPER[target.kind].many);
    // The `wrappers` quirk: the list named after the path (…/schools/{id}/students: students).
    const key = this.quirks.pathWrappers ? (segments.at(-1) ?? '') : WRAPPER[target.kind].many;
    return this.page({ req, version, query, list, rows: (i) => select(at(i)), key, warnings });
  }

  /** What a path names: a record or a list, of the district or added by its churn; unknown or left out: 404. */
  private target(req: SandboxRequest, segments: string[]): Target {
    if (this.options.without?.includes(segments[0] ?? ''))
      throw new OneRosterError(`Unknown OneRoster endpoint: ${req.path}`, 'unknownobject', 404);
    const added = segments.length === 2 ? this.churn.find(segments[0] ?? '', segments[1] ?? '') : undefined;
    const target = added ? ({ type: 'single', ...added } as const) : resolve(this.d, segments);
    if (!target) throw new OneRosterError(`Unknown OneRoster endpoint: ${req.path}`, 'unknownobject', 404);
    return target;
  }

  private renderContext(req: SandboxRequest, version: Version): RenderContext {
    return {
      d: this.d,
      version,
      base: `${this.serviceBase(req)}/ims/oneroster/${version === '1.1' ? 'v1p1' : 'v1p2'}`,
      enabledUser11: this.options.enabledUser11 ?? 'mixed',
      nulls: this.options.nulls ?? false,
      agents: this.options.agents ?? 'both',
    };
  }

  /**
   * A list's records in serving order: the district's (with its changes and defects), filtered and sorted.
   * Cached per churn generation: a change makes every earlier list stale.
   */
  private listOf(
    target: Extract<Target, { type: 'list' }>,
    asked: { version: Version; query: ReadQuery; filter: Filter | undefined; sort: string | undefined },
    at: (i: number) => Rec,
  ): IndexList {
    const { version, query, filter, sort } = asked;
    const generation = this.churn.generation;
    const base = this.cached(`base|${generation}|${target.key}`, () => {
      const list = this.churn.extend(target.key, target.list());
      return this.defects ? this.defects.list(target.key, target.kind, list) : list;
    });
    if (!filter && !sort) return base;
    return this.cached(
      `${version}|${generation}|${target.key}|${query.filter ?? ''}|${sort ?? ''}|${query.orderBy}`,
      () => {
        let indices = Array.from({ length: base.length }, (_, i) => base.at(i));
        if (filter) indices = indices.filter((i) => matches(filter, at(i)));
        if (sort) indices = sortIndices(this.sortKey(target.kind, sort, at), indices, query.orderBy);
        return new Indices(Int32Array.from(indices));
      },
    );
  }

  /** Seeded ids are cheap to compute (edits never change them); other fields need the record. */
  private sortKey(kind: Kind, sort: string, at: (i: number) => Rec): (i: number) => string | undefined {
    if (sort !== 'sourcedId') return (i) => valuesAt(at(i), sort)[0];
    const seeded = countOf(this.d, kind);
    return (i) => (i < seeded ? sourcedIdOf(this.d, kind, i) : String(at(i).sourcedId));
  }

  /** One page of a list, with its X-Total-Count and Link headers (204 when empty, if asked to). */
  private page(listing: {
    req: SandboxRequest;
    version: Version;
    query: ReadQuery;
    list: IndexList;
    rows: (i: number) => Rec;
    key: string;
    warnings: Record<string, unknown>[];
  }): SandboxResponse {
    const { req, query, list } = listing;
    const total = list.length;
    const pageSize = Math.min(query.limit, this.options.pageCap ?? Number.POSITIVE_INFINITY);
    const end = Math.min(total, query.offset + pageSize);
    const rows: Rec[] = [];
    for (let i = query.offset; i < end; i++) rows.push(listing.rows(list.at(i)));

    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (this.options.totalCount !== false) headers['X-Total-Count'] = String(total);
    const offsets = pageOffsets(query.offset, pageSize, total);
    const link = linkHeader(`${this.serviceBase(req)}${req.path}`, req.rawQuery, offsets, this.link);
    if (link) headers.Link = link;
    if (rows.length === 0 && this.options.emptyStatus === 204) return { status: 204, headers };
    return { status: 200, headers, body: this.body(listing.version, listing.key, rows, listing.warnings) };
  }

  /** An endless list (the `endless-pages` quirk: every page full, linking to the next, no total): record i is the district's i modulo its size, renamed past it. */
  private endless(
    req: SandboxRequest,
    version: Version,
    query: { offset: number; limit: number },
    list: IndexList,
    at: (i: number) => Rec,
    select: (rec: Rec) => Rec,
    key: string,
  ): SandboxResponse {
    const total = list.length;
    const pageSize = Math.min(query.limit, this.options.pageCap ?? Number.POSITIVE_INFINITY);
    const rows: Rec[] = [];
    for (let i = query.offset; i < query.offset + pageSize; i++) {
      const rec = select(at(list.at(i % total)));
      const round = Math.floor(i / total);
      const id = rec.sourcedId;
      rows.push(round === 0 || typeof id !== 'string' ? rec : { ...rec, sourcedId: `${id}-r${round}` });
    }
    const links = {
      first: 0,
      next: query.offset + pageSize,
      ...(query.offset > 0 && { prev: Math.max(0, query.offset - pageSize) }),
    };
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    const link = linkHeader(`${this.serviceBase(req)}${req.path}`, req.rawQuery, links, this.link);
    if (link) headers.Link = link;
    return { status: 200, headers, body: this.body(version, key, rows, []) };
  }

  private body(version: Version, key: string, value: unknown, warnings: Record<string, unknown>[]): Rec {
    // 1.1 reports ignored parameters next to the data, as its binding describes.
    return version === '1.1' && warnings.length
      ? { [key]: value, statusInfoSet: warnings }
      : { [key]: value };
  }

  /** The `fields` projection: 1.1 returns whole records (with a warning) on an unknown field, 1.2 a 400. */
  private selection(
    version: Version,
    kind: Kind,
    fields: string[] | undefined,
    warnings: Record<string, unknown>[],
  ): (rec: Rec) => Rec {
    if (!fields) return (rec) => rec;
    if (version === '1.2' && this.options.refuseFields) {
      throw new OneRosterError(
        'Field selection (fields=) is not supported by this server',
        'invalid_selection_field',
      );
    }
    const known = fieldsOf(version, kind);
    const unknown = fields.filter((f) => !Object.hasOwn(known, f));
    if (unknown.length) {
      const what = `Unknown selection field${unknown.length > 1 ? 's' : ''}: ${unknown.map((f) => `'${f}'`).join(', ')}`;
      if (version === '1.2') throw new OneRosterError(what, 'invalid_selection_field');
      warnings.push(statusInfo(`${what}; all fields returned`, 'invalid_selection_field', 'warning'));
      return (rec) => rec;
    }
    return (rec) => {
      const out: Rec = {};
      for (const f of fields) if (rec[f] !== undefined) out[f] = rec[f];
      return out;
    };
  }

  private serviceBase(req: SandboxRequest): string {
    if (this.options.baseUrl) return this.options.baseUrl.replace(/\/$/, '');
    const host = req.headers.host ?? 'localhost';
    return `http://${host}${this.options.pathPrefix ?? '/v1'}`;
  }

  private cached(key: string, compute: () => IndexList): IndexList {
    const hit = this.cache.get(key);
    if (hit) {
      // Refresh recency: Map iteration order is insertion order, so the first key is the oldest.
      this.cache.delete(key);
      this.cache.set(key, hit);
      return hit;
    }
    const value = compute();
    this.cache.set(key, value);
    if (this.cache.size > CACHE_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
    return value;
  }
}

/** Sorts by the field's first value (absent last), ties in serving order; ids for sourcedId are cheap. */
function sortIndices(keyOf: (i: number) => string | undefined, indices: number[], orderBy: 'asc' | 'desc') {
  const keys = indices.map(keyOf);
  const order = indices.map((_, k) => k);
  const dir = orderBy === 'asc' ? 1 : -1;
  order.sort((a, b) => {
    const ka = keys[a];
    const kb = keys[b];
    if (ka === kb) return a - b;
    if (ka === undefined) return 1;
    if (kb === undefined) return -1;
    return (ka < kb ? -1 : 1) * dir;
  });
  return order.map((k) => indices[k]!);
}

/** A path's segments after the version, percent-decoded (malformed: 400). */
function pathSegments(rest: string): string[] {
  return rest
    .split('/')
    .slice(1)
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        throw new OneRosterError(`Malformed percent-encoding in the path: "${s}"`, 'invaliddata');
      }
    });
}

/**
 * The `filter` parameter, parsed and checked. Several 1.2 servers cannot filter on the roles array; the
 * sandbox refuses it the same way.
 */
function checkedFilter(text: string | undefined, version: Version, kind: Kind): Filter | undefined {
  const filter = text === undefined ? undefined : parseFilter(text);
  if (filter) checkFilterFields(filter, version, kind);
  const roles = filter?.clauses.find((c) => c.field === 'roles' || c.field.startsWith('roles.'));
  if (version === '1.2' && roles) {
    throw new OneRosterError(`Filtering on '${roles.field}' is not supported`, 'invalid_filter_field');
  }
  return filter;
}

/** The field to sort by: the standard sorts by sourcedId on an unknown field (1.1 adds a warning). */
function sortField(
  sort: string | undefined,
  version: Version,
  kind: Kind,
  warnings: Record<string, unknown>[],
): string | undefined {
  if (sort === undefined || isKnownPath(version, kind, sort)) return sort;
  if (version === '1.1') {
    warnings.push(
      statusInfo(`Unknown sort field '${sort}': sorted by sourcedId`, 'invalid_sort_field', 'warning'),
    );
  }
  return 'sourcedId';
}
