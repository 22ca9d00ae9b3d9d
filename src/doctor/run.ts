// Runs the selected checks in order, times each, and decides which count for the exit code.
import type { Context } from '../context.js';
import { type ErrorCode, RosterError } from '../errors.js';
import { CHECKS, type CheckDefinition } from './checks.js';
import { DoctorState, Skipped } from './state.js';

export type CheckStatus = 'pass' | 'fail' | 'skip';

export interface CheckResult {
  id: string;
  title: string;
  /** Whether this check counts for the exit code. */
  required: boolean;
  status: CheckStatus;
  /** Elapsed milliseconds; null when the check did not run. */
  ms: number | null;
  /** What was seen: the server's own message on failure, the reason when skipped. */
  message: string;
  /** For failures: the error class (auth, forbidden, network, api, unexpected, …). */
  error?: ErrorCode;
  details?: Record<string, unknown>;
}

export interface DoctorReport {
  ok: boolean;
  exitCode: number;
  profile: string;
  baseUrl: string | null;
  checks: CheckResult[];
}

export interface Selection {
  only?: string[];
  skip?: string[];
}

/** The checklist of the run's profile (ctx.settings()), with the run's Session when it has a base URL. */
export async function runDoctor(ctx: Context, selection: Selection = {}): Promise<DoctorReport> {
  const settings = await ctx.settings();
  const state = new DoctorState(ctx, settings, settings.baseUrl ? await ctx.session() : undefined);
  const checks: CheckResult[] = [];
  for (const check of CHECKS) {
    const result = await runOne(check, state, selection);
    state.statuses.set(check.id, result.status);
    checks.push(result);
  }
  const exitCode = exitCodeOf(checks);
  return {
    ok: exitCode === 0,
    exitCode,
    profile: settings.profileName,
    baseUrl: settings.baseUrl ?? null,
    checks,
  };
}

async function runOne(
  check: CheckDefinition,
  state: DoctorState,
  selection: Selection,
): Promise<CheckResult> {
  const base = { id: check.id, title: check.title };
  const named = selection.only?.includes(check.id);
  if (selection.skip?.includes(check.id) || (selection.only && !named)) {
    const why = selection.skip?.includes(check.id) ? '--skip' : '--only';
    return { ...base, required: false, status: 'skip', ms: null, message: `not selected (${why})` };
  }
  // Naming a check in --only makes it required, even the informational one.
  const required = check.requiredByDefault || Boolean(named);
  if (check.network && state.statuses.get('reachable') === 'fail') {
    return { ...base, required, status: 'skip', ms: null, message: 'skipped: the base URL is not reachable' };
  }
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const outcome = await check.run(state);
    return { ...base, required, status: 'pass', ms: elapsed(), ...outcome };
  } catch (error) {
    if (error instanceof Skipped)
      return { ...base, required, status: 'skip', ms: null, message: `skipped: ${error.message}` };
    if (error instanceof RosterError) {
      // A refused token says what to set, as every command says it (a scope's setting, flag, variable).
      const hint = error.code === 'auth' && error.hint ? `. ${error.hint}` : '';
      const message = `${error.message.replace(/\.$/, '')}${hint}`.replace(/\.$/, '');
      return { ...base, required, status: 'fail', ms: elapsed(), message, error: error.code };
    }
    throw error; // a bug, not a finding: main reports it
  }
}

/**
 * 0 when every required check passed. When some failed: 3 if each failure was a 403 (not permitted),
 * 4 if each was about credentials (missing, or refused by a token endpoint), 1 otherwise.
 */
export function exitCodeOf(checks: readonly CheckResult[]): number {
  const required = checks.filter((c) => c.required);
  if (required.every((c) => c.status === 'pass')) return 0;
  const failures = required.filter((c) => c.status === 'fail').map((c) => c.error);
  if (failures.length > 0 && failures.every((code) => code === 'forbidden')) return 3;
  if (failures.length > 0 && failures.every((code) => code === 'auth')) return 4;
  return 1;
}
