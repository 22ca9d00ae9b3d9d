// POST and GET /enrollment/invitations (spec §2.4–2.6, §4.5, §4.6). Both use API token authentication, so
// the token comes from the OneRoster 1.1 token endpoint (purpose 'invitations', spec §4.5).
import { RosterError } from '../errors.js';
import type { InvitationBody } from '../invite/invitation.js';
import type { ApiClient } from './client.js';
import { isRecord, messageOf, parseJson, unexpectedResponse } from './errors.js';

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
 * 'outcome-unknown' instead (see api/client.ts).
 */
export async function sendInvitation(api: ApiClient, body: InvitationBody): Promise<InvitationCreated> {
  const what = `Invitation to ${body.email}`;
  const response = await api.send({
    method: 'POST',
    path: INVITATIONS_PATH,
    json: body,
    purpose: 'invitations',
    what,
    unknownOutcomeHint: `Check with \`${checkCommand(body.email, body.schoolId)}\` before sending it again.`,
  });
  const parsed = parseJson(response.body);
  // A 2xx that says success=false is a refusal in a success envelope: report it, the e-mail did not go out.
  if (isRecord(parsed) && parsed.success === false) {
    throw new RosterError(
      'api',
      `${what} failed (HTTP ${response.status}): ${messageOf(parsed) ?? 'success=false'}`,
    );
  }
  const message = (parsed !== undefined && messageOf(parsed)) || `Invitation sent to ${body.email}.`;
  return { status: response.status, body: parsed, message };
}

export interface InvitationPage {
  /** The server's body unchanged (spec §2.6: data and meta). */
  body: Record<string, unknown>;
  data: unknown[];
  meta: unknown;
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
  return { body, data: body.data, meta: body.meta };
}

/** A value quoted for a POSIX shell when it needs to be, so a printed command can be pasted. */
function shellWord(value: string): string {
  return /^[A-Za-z0-9@%+=:,./_-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}
