// The commands whose answer is a verdict (attendance check, doctor, roster audit) print a result object with
// --json whatever the outcome, so `roster attendance check --json | jq -r .success` reads `false` when the
// check fails (it read an empty line, and a script without pipefail went on with exit 0). The error line
// still goes to stderr and the exit code is the error's.
import type { Context } from '../context.js';
import { CancelledError, RosterError } from '../errors.js';
import { printJson } from '../output/render.js';

export interface FailureVerdict {
  success: false;
  /** The error's kind, as in src/errors.ts: auth, forbidden, api, network, unexpected, … */
  error: string;
  /** The HTTP status of the answer that failed, null when there was none (no answer, a local failure). */
  status: number | null;
  /** roster's one line about it (what stderr says). */
  message: string;
  /** What the server itself said, when its answer had a message. */
  serverMessage?: string;
}

export function failureVerdict(error: RosterError): FailureVerdict {
  // An API's answer (ApiError) and the token endpoint's (AuthError) carry both; other errors neither.
  const { status, serverMessage } = error as { status?: unknown; serverMessage?: unknown };
  return {
    success: false,
    error: error.code,
    status: typeof status === 'number' ? status : null,
    message: error.message,
    ...(typeof serverMessage === 'string' && serverMessage ? { serverMessage } : {}),
  };
}

/** Runs a verdict command's work; with --json, a failure prints its verdict on stdout before it ends the run. */
export async function withJsonVerdict<T>(ctx: Context, json: boolean, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    // A usage error or a cancel is no verdict: nothing was checked.
    if (json && error instanceof RosterError && !(error instanceof CancelledError) && error.code !== 'usage')
      printJson(ctx, failureVerdict(error));
    throw error;
  }
}
