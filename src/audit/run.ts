// Reads each collection the audit needs once, through the pager (parallel pages when the server sends
// X-Total-Count, retries, each record once), hands every record to the audit's indexes and drops it, then
// runs the checks. A --school selection limits the report, never what is read: a reference is checked
// against the whole district.
import { RosterError } from '../errors.js';
import { favourMemory } from '../heap.js';
import { COLLECTIONS } from '../oneroster/collections.js';
import { Pager } from '../oneroster/pager.js';
import { type OneRosterService, pageSender } from '../oneroster/service.js';
import { Audit, type AuditOptions, type AuditResult, type Collection, READ_ORDER } from './audit.js';
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
};

/** The collections the selected checks need, in read order. */
export function collectionsFor(checks: ReadonlySet<CheckId>): Collection[] {
  const needed = new Set([...checks].flatMap((c) => NEEDS[c]));
  return READ_ORDER.filter((c) => needed.has(c));
}

export async function runAudit(
  service: OneRosterService,
  options: AuditOptions & ReadOptions,
  hooks: AuditHooks,
): Promise<AuditResult> {
  await favourMemory(hooks.debug);
  const audit = new Audit(options);
  const collections = collectionsFor(options.checks);
  for (const [index, name] of collections.entries()) {
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
    const step = `${index + 1}/${collections.length}`;
    hooks.progress(`${step} reading ${name}…`);
    for await (const page of pager.pages()) {
      for (const record of page.records) audit.add(name, record);
      const total = pager.total === undefined ? '' : ` of ${pager.total}`;
      hooks.progress(`${step} ${pager.delivered}${total} ${name} read`);
      if (hooks.signal?.aborted)
        throw new RosterError('interrupted', 'Audit interrupted: nothing was written');
    }
    if (pager.total !== undefined && pager.delivered + pager.repeats < pager.total)
      hooks.warn(`the server reported ${pager.total} ${name} (X-Total-Count) but served ${pager.delivered}.`);
  }
  hooks.progress('checking…');
  return audit.finish();
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

/** Whether any finding is at or above `failOn`. */
export function fails(result: AuditResult, failOn: Severity | 'never'): boolean {
  if (failOn === 'never') return false;
  return result.findings.some((f) => f.count > 0 && rank(f.severity) <= rank(failOn));
}
