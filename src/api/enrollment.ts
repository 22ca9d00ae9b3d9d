// POST and GET /enrollment/invitations (spec §2.4–2.6, §4.5, §4.6). Both use API token authentication, so
// the token comes from the OneRoster 1.1 token endpoint (purpose 'invitations', spec §4.5).
import { ForeignAnswerError, RosterError } from '../errors.js';
import type { ApiClient } from './client.js';
import { describeBody, isRecord, messageOf, parseJson, unexpectedResponse } from './errors.js';
import { redirectInDoubt } from './post-outcome.js';
import { type HttpResponse, RedirectRefused, stripQuery } from './transport.js';

/** The JSON body of POST /enrollment/invitations (spec §2.4), as sent. */
export interface InvitationBody {
  email: string;
  schoolId: string;
  scopes: string[];
  studentCount: number;
  interestFormSubmissionId?: string;
  learningCenterId?: string;
  schoolYearId?: string;
  sentByUserId: string;
}

export const INVITATIONS_PATH = '/enrollment/invitations';

export interface InvitationCreated {
  status: number;
  /** The server's body as it came (spec §2.5: success, message), or undefined when it sent none. */
  body: unknown;
  message: string;
}

/** How a user checks whether an invitation whose outcome is unknown went out. */
export function checkCommand(email: string, schoolId: string): string {
  return `roster invite list --email ${shellWord(email)} --school-id ${shellWord(schoolId)}`;
}

/**
 * Sends one invitation. Never replayed once it may have reached the server: the client throws
 * 'outcome-unknown' (in doubt) instead, for a connection cut after sending and for any answer that does not
 * prove the API left it alone (see api/post-outcome.ts).
 */
export async function sendInvitation(
  api: ApiClient,
  body: InvitationBody,
  /** Asked before the POST is tried again after an answer that reached the server (ResourceRequest). */
  beforeRetry?: () => Promise<void>,
): Promise<InvitationCreated> {
  const what = `Invitation to ${body.email}`;
  const check = `Check with \`${checkCommand(body.email, body.schoolId)}\` before sending it again.`;
  let response: HttpResponse;
  try {
    response = await api.send({
      method: 'POST',
      path: INVITATIONS_PATH,
      json: body,
      purpose: 'invitations',
      what,
      unknownOutcomeHint: check,
      ...(beforeRetry && { beforeRetry }),
    });
  } catch (error) {
    throw error instanceof RedirectRefused ? redirectOutcome(error, what, check) : error;
  }
  const parsed = parseJson(response.body);
  // A 2xx that says success=false is a refusal in a success envelope: report it, the e-mail did not go out.
  if (isRecord(parsed) && parsed.success === false) {
    throw new RosterError(
      'api',
      `${what} failed (HTTP ${response.status}): ${messageOf(parsed) ?? 'success=false'}`,
    );
  }
  // "Sent" only when the API says so in its own words (spec §2.5): a gateway's sign-in page or any other
  // 2xx may or may not have passed the request on.
  if (!isRecord(parsed) || !(parsed.success === true || typeof parsed.message === 'string')) {
    throw new ForeignAnswerError(
      'outcome-unknown',
      `${what}: the outcome is unknown. The server answered HTTP ${response.status} with ${describeBody(response)}, not the API's JSON (success, message); it was not sent again.`,
      `Check the base URL (a sign-in gateway in front of the API?). ${check}`,
    );
  }
  const message = messageOf(parsed) || `Invitation sent to ${body.email}.`;
  return { status: response.status, body: parsed, message };
}

/** What a redirect of the invitation POST means (it is never followed): see redirectInDoubt. */
function redirectOutcome(error: RedirectRefused, what: string, check: string): RosterError {
  if (redirectInDoubt(error.status)) {
    return new ForeignAnswerError(
      'outcome-unknown',
      `${what}: the outcome is unknown. The server answered 303 See Other (to ${stripQuery(error.location)}), which servers send after processing a request; it was not followed or sent again.`,
      check,
    );
  }
  return new ForeignAnswerError(
    'unexpected',
    `${what} was not sent: the server redirected it (HTTP ${error.status}) to ${stripQuery(error.location)}, and roster does not follow a redirect of an invitation.`,
    error.hint,
  );
}

export interface InvitationPage {
  status: number;
  /** The server's body unchanged (spec §2.6: data and meta). */
  body: Record<string, unknown>;
  data: unknown[];
  meta: unknown;
  /** The answer's Date header, the server's clock (RFC 9110 §6.6.1), when it sent one. */
  date?: string;
}

export async function listInvitations(api: ApiClient, query: URLSearchParams): Promise<InvitationPage> {
  const what = 'Listing invitations';
  const response = await api.send({
    method: 'GET',
    path: INVITATIONS_PATH,
    query: query.toString(),
    purpose: 'invitations',
    what,
  });
  const body = parseJson(response.body);
  if (!isRecord(body) || !Array.isArray(body.data)) {
    throw unexpectedResponse(response, what, 'a JSON object with a data array');
  }
  const date = response.headers.date;
  return {
    status: response.status,
    body,
    data: body.data,
    meta: body.meta,
    ...(typeof date === 'string' && { date }),
  };
}

/** A value quoted for a POSIX shell when it needs to be, so a printed command can be pasted. */
function shellWord(value: string): string {
  return /^[A-Za-z0-9@%+=:,./_-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}
