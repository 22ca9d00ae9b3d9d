// Reads each collection the audit needs once, through the pager (parallel pages when the server sends
// X-Total-Count, retries, each record once), hands every record to the audit's indexes and drops it, then
// runs the checks. A --school selection limits the report, never what is read: a reference is checked
// against the whole district.
import { ApiError, RosterError } from '../errors.js';
import { keepHeapSmall } from '../heap.js';
import { COLLECTIONS } from '../oneroster/collections.js';
import { Pager } from '../oneroster/pager.js';
import { type OneRosterService, pageSender } from '../oneroster/service.js';
import {
  Audit,
  type AuditOptions,
  type AuditResult,
  type Collection,
  notCheckedText,
  READ_ORDER,
} from './audit.js';
import { type CheckId, rank, type Severity } from './checks.js';

export interface AuditHooks {
  signal?: AbortSignal;
  progress(text: string): void;
  warn(line: string): void;
  debug(line: string): void;
}

export interface ReadOptions {
  pageSize: number;
  concurrency: number;
}

/** Which collections each check needs read (every check needs those its references point into). */
const NEEDS: Record<CheckId, readonly Collection[]> = {
  'duplicate-sourcedid': READ_ORDER,
  'missing-reference': READ_ORDER,
  'active-refers-to-deleted': READ_ORDER,
  'org-cycle': ['orgs'],
  'session-dates': ['academicSessions'],
  'no-current-school-year': ['academicSessions'],
  'student-without-enrollment': ['orgs', 'academicSessions', 'courses', 'classes', 'users', 'enrollments'],
  'class-without-teacher': ['orgs', 'academicSessions', 'courses', 'classes', 'users', 'enrollments'],
  'invalid-email': ['orgs', 'users'],
  'shared-email': ['orgs', 'users'],
  'invalid-grade': ['orgs', 'users'],
  'student-without-guardian-email': ['orgs', 'users'],
  'agent-not-guardian': ['orgs', 'users'],
  'one-sided-link': ['orgs', 'users'],
  'guardian-many-students': ['orgs', 'users'],
  'no-school': ['orgs'],
  'teacher-as-student': ['orgs', 'academicSessions', 'courses', 'classes', 'users', 'enrollments'],
  'all-roles-ended': ['orgs', 'users'],
  'invalid-date-modified': READ_ORDER,
  'ended-enrollment-active': ['orgs', 'academicSessions', 'courses', 'classes', 'users', 'enrollments'],
  'unknown-role': ['orgs', 'users'],
  'self-agent': ['orgs', 'users'],
};

/** The collections the selected checks need and --require names, in read order. */
export function collectionsFor(
  checks: ReadonlySet<CheckId>,
  required: readonly Collection[] = [],
): Collection[] {
  const needed = new Set([...[...checks].flatMap((c) => NEEDS[c]), ...required]);
  return READ_ORDER.filter((c) => needed.has(c));
}

/** Answers that say a collection is not served at all (not a refusal, not a failure of this request). */
const NOT_SERVED = new Set([404, 405, 410, 501]);
/** A server's own "unknown endpoint" answer, with another status (400 or 422 and such words). */
const UNKNOWN_ENDPOINT =
  /\b(unknown|unsupported|invalid|no such) (endpoint|path|resource|route|collection|url)\b|\b(endpoint|path|resource|route) not (supported|implemented|found)\b/i;

/** The server's answer when it does not serve a collection ("HTTP 404"), else undefined. */
export function notServedAnswer(error: unknown): string | undefined {
  if (!(error instanceof ApiError) || error.code !== 'api') return undefined;
  const served =
    !NOT_SERVED.has(error.status) && !(error.status < 500 && UNKNOWN_ENDPOINT.test(error.message));
  return served ? undefined : `HTTP ${error.status}`;
}

export async function runAudit(
  service: OneRosterService,
  options: AuditOptions & ReadOptions,
  hooks: AuditHooks,
): Promise<AuditResult> {
  await keepHeapSmall(hooks.debug);
  const audit = new Audit({ ...options, version: service.version });
  const collections = collectionsFor(options.checks, options.require);
  for (const [index, name] of collections.entries()) {
    const step = `${index + 1}/${collections.length}`;
    try {
      await readCollection(service, name, step, audit, options, hooks);
    } catch (error) {
      // Its first page refused as not served: the checks that need it are not run, the rest are.
      const answer = notServedAnswer(error);
      if (answer === undefined || audit.read[name] > 0) throw error;
      hooks.warn(`${notCheckedText(audit.notServed(name, answer))}.`);
    }
  }
  hooks.progress('checking…');
  return audit.finish();
}

async function readCollection(
  service: OneRosterService,
  name: Collection,
  step: string,
  audit: Audit,
  options: ReadOptions,
  hooks: AuditHooks,
): Promise<void> {
  const collection = COLLECTIONS.find((c) => c.path === name);
  if (!collection) throw new Error(`no collection ${name}`);
  const pager = new Pager({
    send: pageSender(service, `Reading ${name}`),
    baseUrl: service.baseUrl,
    path: `${service.prefix}/${collection.path}`,
    query: { limit: options.pageSize },
    wrapper: collection.listKey,
    all: true,
    maxRecords: service.maxRecords,
    concurrency: options.concurrency,
    what: name,
    warn: hooks.warn,
    debug: hooks.debug,
    repeated: (id) => audit.repeated(name, id),
  });
  hooks.progress(`${step} reading ${name}…`);
  for await (const page of pager.pages()) {
    for (const record of page.records) audit.add(name, record);
    const total = pager.total === undefined ? '' : ` of ${pager.total}`;
    hooks.progress(`${step} ${pager.delivered}${total} ${name} read`);
    if (hooks.signal?.aborted) throw new RosterError('interrupted', 'Audit interrupted: nothing was written');
  }
  if (pager.total !== undefined && pager.delivered + pager.repeats < pager.total)
    hooks.warn(`the server reported ${pager.total} ${name} (X-Total-Count) but served ${pager.delivered}.`);
}

/** The report limited to some schools: their records and district-wide ones (those of no school). */
export function forSchools(result: AuditResult, schools: ReadonlySet<string> | undefined): AuditResult {
  if (!schools) return result;
  const findings = result.findings.map((f) => {
    const records = f.records.filter((r) => r.schools.length === 0 || r.schools.some((s) => schools.has(s)));
    return { ...f, count: records.length, records };
  });
  return { ...result, findings, schools: result.schools.filter((s) => schools.has(s.sourcedId)) };
}

/** Findings sorted by severity (worst first), then by count (most first), then by id. */
export function sorted(result: AuditResult): AuditResult {
  const findings = [...result.findings].sort(
    (a, b) => rank(a.severity) - rank(b.severity) || b.count - a.count || (a.check < b.check ? -1 : 1),
  );
  return { ...result, findings };
}

/** Whether any finding is at or above `failOn`, or a collection --require names is not served (an error). */
export function fails(result: AuditResult, failOn: Severity | 'never'): boolean {
  if (failOn === 'never') return false;
  if (result.notChecked.some((n) => n.required)) return true;
  return result.findings.some((f) => f.count > 0 && rank(f.severity) <= rank(failOn));
}
