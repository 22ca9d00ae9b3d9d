// The small error vocabulary of roster. Every failure a user can meet is one of these; `main` maps the
// `code` to an exit code (see exitCodeFor). Anything else reaching `main` is a bug. Each code's comment is
// its meaning for users: README's exit-code table is generated from them (test/docs/exit-codes.ts).

export type ErrorCode =
  | 'usage' // usage or invalid input: nothing was sent
  | 'auth' // not logged in or authentication failed: no base URL or credentials, a stored secret that cannot be reached (a keychain out of reach, as over SSH), an invalid client, or a token the API keeps rejecting
  | 'forbidden' // forbidden: the API answered 403
  | 'api' // the API answered with an error status (a server error)
  | 'network' // no answer: the connection was refused or reset, or timed out
  | 'unexpected' // an answer roster cannot understand
  | 'outcome-unknown' // in doubt: the server may or may not have acted on the request (an invitation may have been sent); check with `roster invite list` before sending it again
  | 'failure' // a local failure with a clear cause (the keychain, a file)
  | 'partial' // partial: a bulk run finished with some rows failed or in doubt, or `invite forget` left out invitations another run was sending
  | 'interrupted'; // interrupted (Ctrl-C, SIGTERM or SIGHUP) after saving what must be saved, or cancelled at a question: `Cancelled; nothing was …`

export class RosterError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** The next step for the user, printed after the message. */
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'RosterError';
  }
}

export class UsageError extends RosterError {
  constructor(message: string, hint?: string) {
    super('usage', message, hint);
  }
}

/**
 * The user said no to a question, or left it (Ctrl-C, Esc): exit 130 with a line that says what was not
 * done ("Cancelled; nothing was sent."), printed as a plain line: a choice, not a failure.
 */
export class CancelledError extends RosterError {
  constructor(undone: Undone) {
    super('interrupted', `Cancelled; ${undone}.`);
  }
}

/** What a cancel leaves undone, as its message says it. */
export type Undone = `nothing was ${string}`;

export class AuthError extends RosterError {
  constructor(
    message: string,
    hint = 'Check the client id and secret, or run `roster login`.',
    /** The token endpoint's answer, when it refused: its HTTP status and what it said. */
    readonly status?: number,
    readonly serverMessage?: string,
  ) {
    super('auth', message, hint);
  }
}

/** An HTTP answer that is an error: carries the status and the server's own message. */
export class ApiError extends RosterError {
  constructor(
    code: 'api' | 'forbidden' | 'auth',
    readonly status: number,
    message: string,
    hint?: string,
    /** What the server itself said, when its body had a message (cleaned: api/errors.ts messageOf). */
    readonly serverMessage?: string,
  ) {
    super(code, message, hint);
  }
}

/**
 * A request the server may have acted on (an answer that does not prove it did not, a connection cut after
 * sending; see api/post-outcome.ts): roster never sends it again by itself. `status` when it answered.
 */
export class InDoubtError extends RosterError {
  constructor(
    message: string,
    hint?: string,
    readonly status?: number,
  ) {
    super('outcome-unknown', message, hint);
  }
}

/**
 * An answer that is not the API's (a redirect, a sign-in page, a 2xx without the API's JSON, a 4xx page):
 * every later request would meet it too. Code 'unexpected' when the request was certainly not processed,
 * 'outcome-unknown' when it may have been.
 */
export class ForeignAnswerError extends RosterError {
  constructor(
    code: 'unexpected' | 'outcome-unknown',
    message: string,
    hint?: string,
    readonly status?: number,
  ) {
    super(code, message, hint);
  }
}

export const EXIT_CODES: Record<ErrorCode, number> = {
  usage: 2,
  auth: 4,
  forbidden: 3,
  api: 1,
  network: 1,
  unexpected: 1,
  // In doubt is a partial outcome, as for a bulk run with rows in doubt: check before sending again.
  'outcome-unknown': 5,
  failure: 1,
  partial: 5,
  interrupted: 130,
};

export function exitCodeFor(error: unknown): number {
  return error instanceof RosterError ? EXIT_CODES[error.code] : 1;
}
