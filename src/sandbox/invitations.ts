// POST and GET /enrollment/invitations (spec §2.4–2.6, §4.5, §4.6). The spec leaves the required fields,
// bounds, status codes, list parameters and record shape open; the sandbox's choices are written here.
import { createHash, randomBytes } from 'node:crypto';
import type { Outbox, SentEmail } from './outbox.js';
import { SENDER } from './outbox.js';
import type { Caller, ResourceRoute, SandboxRequest, SandboxResponse } from './types.js';

export const MAX_STUDENT_COUNT = 20;
export const DEFAULT_PER_PAGE = 25;
export const MAX_PER_PAGE = 100;
export const ALLOWED_INVITATION_SCOPES: readonly string[] = ['fillEnrollment'];
const GUEST_TOKEN_TTL_MS = 7 * 24 * 3600 * 1000;
const MAX_STRING = 200;

/** One invitation as GET /enrollment/invitations returns it (absent optional fields are null). */
export interface PublicInvitation {
  id: string;
  email: string;
  schoolId: string;
  studentCount: number;
  scopes: string[];
  learningCenterId: string | null;
  schoolYearId: string | null;
  interestFormSubmissionId: string | null;
  sentByUserId: string;
  status: 'sent';
  createdAt: string;
}

/** The sandbox's full record: the public fields plus who sent it and through which token endpoint. */
export interface InvitationRecord extends PublicInvitation {
  clientId: string;
  /** Token endpoint that issued the caller's token, e.g. `/ims/oneroster/v1p1/token` (spec §4.5). */
  tokenEndpoint: string;
  guestTokenExpiresAt: string;
}

interface InvitationInput {
  email: string;
  schoolId: string;
  scopes: string[];
  studentCount: number;
  learningCenterId: string | null;
  schoolYearId: string | null;
  interestFormSubmissionId: string | null;
  sentByUserId: string;
}

const FIELDS = [
  'email',
  'schoolId',
  'scopes',
  'studentCount',
  'interestFormSubmissionId',
  'learningCenterId',
  'schoolYearId',
  'sentByUserId',
];

// Dotted ASCII addresses only (no display names, quoted locals or IP literals): what a school mails.
const EMAIL =
  /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/;

export function isValidEmail(value: string): boolean {
  const at = value.lastIndexOf('@');
  return value.length <= 254 && at > 0 && at <= 64 && EMAIL.test(value);
}

class InvalidField extends Error {}

/** A required or optional identifier: a non-empty string without control characters. */
function idString(body: Record<string, unknown>, name: string, required: boolean, why = ''): string | null {
  const value = body[name];
  if (value === undefined) {
    if (required) throw new InvalidField(`${name} is required${why}`);
    return null;
  }
  if (typeof value !== 'string' || value.trim() === '')
    throw new InvalidField(`${name} must be a non-empty string`);
  if (value.length > MAX_STRING) throw new InvalidField(`${name} must be at most ${MAX_STRING} characters`);
  if (/[\u0000-\u001f\u007f]/.test(value))
    throw new InvalidField(`${name} must not contain control characters`);
  return value;
}

/** Validates a create body; throws InvalidField naming the first bad field. */
export function validateInvitation(body: unknown): InvitationInput {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new InvalidField('The request body must be a JSON object');
  }
  const fields = body as Record<string, unknown>;
  // Unknown names are refused rather than ignored, so a misspelt field never silently goes missing.
  const unknown = Object.keys(fields).find((k) => !FIELDS.includes(k));
  if (unknown !== undefined) throw new InvalidField(`Unknown field ${JSON.stringify(unknown.slice(0, 50))}`);

  const email = fields.email;
  if (email === undefined) throw new InvalidField('email is required');
  if (typeof email !== 'string' || !isValidEmail(email))
    throw new InvalidField('email must be a valid e-mail address');
  const schoolId = idString(fields, 'schoolId', true)!;

  const scopes = fields.scopes;
  if (scopes === undefined) throw new InvalidField('scopes is required');
  if (!Array.isArray(scopes) || scopes.length === 0 || !scopes.every((s) => typeof s === 'string')) {
    throw new InvalidField('scopes must be a non-empty array of strings');
  }
  const unknownScope = scopes.find((s) => !ALLOWED_INVITATION_SCOPES.includes(s));
  if (unknownScope !== undefined) {
    throw new InvalidField(
      `scopes contains an unknown scope; allowed: ${ALLOWED_INVITATION_SCOPES.join(', ')}`,
    );
  }

  const count = fields.studentCount;
  if (count === undefined) throw new InvalidField('studentCount is required');
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > MAX_STUDENT_COUNT) {
    throw new InvalidField(`studentCount must be an integer from 1 to ${MAX_STUDENT_COUNT}`);
  }

  return {
    email,
    schoolId,
    scopes: [...(scopes as string[])],
    studentCount: count,
    interestFormSubmissionId: idString(fields, 'interestFormSubmissionId', false),
    learningCenterId: idString(fields, 'learningCenterId', false),
    schoolYearId: idString(fields, 'schoolYearId', false),
    // Every sandbox token comes from a client-credentials grant, i.e. API token authentication (§4.5).
    sentByUserId: idString(fields, 'sentByUserId', true, ' when the caller uses API token authentication')!,
  };
}

export class InvitationStore {
  /** Kept in creation order; see the list handler for why. */
  readonly records: InvitationRecord[] = [];
  /** Guest tokens by SHA-256 digest: the sandbox can check a link without keeping the token itself. */
  private readonly guests = new Map<string, InvitationRecord>();

  add(record: InvitationRecord, guestToken: string): void {
    this.records.push(record);
    this.guests.set(guestDigest(guestToken), record);
  }

  /** The invitation a guest token opens, while the token is valid. */
  byGuestToken(guestToken: string, nowMs: number): InvitationRecord | undefined {
    const record = this.guests.get(guestDigest(guestToken));
    return record && Date.parse(record.guestTokenExpiresAt) > nowMs ? record : undefined;
  }
}

const guestDigest = (token: string): string => createHash('sha256').update(token, 'utf8').digest('base64url');

export interface InvitationRouteContext {
  store: InvitationStore;
  outbox: Outbox;
  now: () => number;
  /** Origin the enrollment link points at, e.g. `http://127.0.0.1:43123`. */
  origin: () => string;
  /** The `endless-pages` quirk: every page of the list is full and announces one more. */
  endlessPages?: boolean;
}

const badRequest = (message: string): SandboxResponse => ({ status: 400, body: { message } });

export function createInvitationsRoute(ctx: InvitationRouteContext): ResourceRoute {
  return async (req, caller) => {
    if (req.path !== '/enrollment/invitations') return undefined;
    if (req.method === 'POST') return createInvitation(req, caller, ctx);
    if (req.method === 'GET')
      return ctx.endlessPages ? endlessInvitations(req, ctx.now()) : listInvitations(req, caller, ctx.store);
    return { status: 405, headers: { Allow: 'GET, POST' }, body: { message: 'Use GET or POST' } };
  };
}

async function createInvitation(
  req: SandboxRequest,
  caller: Caller,
  ctx: InvitationRouteContext,
): Promise<SandboxResponse> {
  const contentType = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (contentType !== 'application/json')
    return badRequest('The request body must be JSON (Content-Type: application/json)');
  let body: unknown;
  try {
    body = JSON.parse(req.body.toString('utf8'));
  } catch {
    return badRequest('The request body is not valid JSON');
  }
  let input: InvitationInput;
  try {
    input = validateInvitation(body);
  } catch (err) {
    if (err instanceof InvalidField) return badRequest(err.message);
    throw err;
  }

  const now = ctx.now();
  const createdAt = new Date(now).toISOString();
  const guestToken = `gst_${randomBytes(32).toString('base64url')}`;
  const record: InvitationRecord = {
    id: `inv_${randomBytes(8).toString('hex')}`,
    ...input,
    status: 'sent',
    createdAt,
    clientId: caller.clientId,
    tokenEndpoint: caller.tokenEndpoint,
    guestTokenExpiresAt: new Date(now + GUEST_TOKEN_TTL_MS).toISOString(),
  };
  await ctx.outbox.deliver(
    invitationEmail(record, caller.label, `${ctx.origin()}/enroll?token=${guestToken}`),
  );
  ctx.store.add(record, guestToken);
  return { status: 201, body: { success: true, message: `Invitation sent to ${record.email}` } };
}

function invitationEmail(record: InvitationRecord, districtLabel: string, link: string): SentEmail {
  const students = record.studentCount === 1 ? '1 student' : `${record.studentCount} students`;
  const text = [
    'Hello,',
    '',
    `${districtLabel} invites you to complete the student enrollment form for ${students} (school ${record.schoolId}).`,
    '',
    'Open this link to fill in the form; no login is needed:',
    '',
    link,
    '',
    `The link is personal and works until ${record.guestTokenExpiresAt}.`,
    'If you did not expect this e-mail, you can ignore it.',
  ].join('\n');
  return {
    id: `msg_${randomBytes(8).toString('hex')}`,
    invitationId: record.id,
    from: SENDER,
    to: record.email,
    subject: `Complete the student enrollment form (${districtLabel})`,
    text,
    enrollmentLink: link,
    guestTokenExpiresAt: record.guestTokenExpiresAt,
    createdAt: record.createdAt,
  };
}

/** A positive integer query parameter, its default when absent, or a message when malformed. */
function positiveParam(query: URLSearchParams, name: string, fallback: number, max: number): number | string {
  const values = query.getAll(name);
  if (values.length === 0) return fallback;
  if (values.length > 1) return `${name} must be given once`;
  const value = values[0]!;
  if (!/^[1-9][0-9]{0,8}$/.test(value) || Number(value) > max) {
    return `${name} must be an integer from 1 to ${max}`;
  }
  return Number(value);
}

/**
 * Query parameters: `page` (1-based, default 1), `perPage` (default 25, max 100), and the filters `schoolId`
 * (exact), `email` (exact, case-insensitive) and `sentByUserId` (exact); unknown parameters are ignored.
 * A client sees only its own district's invitations. Records come in creation order (oldest first), so a
 * page never shifts while new invitations are sent during a listing: new ones only ever add to the end.
 * A page past the end is an empty `data` (not an error); `totalPages` is 0 when nothing matches.
 */
function listInvitations(req: SandboxRequest, caller: Caller, store: InvitationStore): SandboxResponse {
  const page = positiveParam(req.query, 'page', 1, 1_000_000);
  if (typeof page === 'string') return badRequest(page);
  const perPage = positiveParam(req.query, 'perPage', DEFAULT_PER_PAGE, MAX_PER_PAGE);
  if (typeof perPage === 'string') return badRequest(perPage);

  const filters: Array<(r: InvitationRecord) => boolean> = [];
  for (const name of ['schoolId', 'email', 'sentByUserId'] as const) {
    const values = req.query.getAll(name);
    if (values.length === 0) continue;
    if (values.length > 1) return badRequest(`${name} must be given once`);
    const wanted = values[0]!;
    if (wanted === '') return badRequest(`${name} must not be empty`);
    filters.push(
      name === 'email' ? (r) => r.email.toLowerCase() === wanted.toLowerCase() : (r) => r[name] === wanted,
    );
  }

  const matching = store.records.filter((r) => r.clientId === caller.clientId && filters.every((f) => f(r)));
  const data = matching.slice((page - 1) * perPage, page * perPage).map(toPublic);
  return {
    status: 200,
    body: {
      data,
      meta: { page, perPage, total: matching.length, totalPages: Math.ceil(matching.length / perPage) },
    },
  };
}

/**
 * The `endless-pages` quirk: page N holds perPage invitations never listed before (their ids and addresses
 * count on from the page's position), and meta always announces page N + 1.
 */
function endlessInvitations(req: SandboxRequest, nowMs: number): SandboxResponse {
  const page = positiveParam(req.query, 'page', 1, 1_000_000);
  if (typeof page === 'string') return badRequest(page);
  const perPage = positiveParam(req.query, 'perPage', DEFAULT_PER_PAGE, MAX_PER_PAGE);
  if (typeof perPage === 'string') return badRequest(perPage);
  const createdAt = new Date(nowMs).toISOString();
  const data: PublicInvitation[] = [];
  for (let n = (page - 1) * perPage + 1; n <= page * perPage; n++) {
    data.push({
      id: `inv-endless-${n}`,
      email: `family-${n}@endless.example`,
      schoolId: 'org-sch-1',
      studentCount: 1,
      scopes: ['enrollment'],
      learningCenterId: null,
      schoolYearId: null,
      interestFormSubmissionId: null,
      sentByUserId: 'adm-001',
      status: 'sent',
      createdAt,
    });
  }
  const total = (page + 1) * perPage;
  return { status: 200, body: { data, meta: { page, perPage, total, totalPages: page + 1 } } };
}

export function toPublic(record: InvitationRecord): PublicInvitation {
  const { clientId: _c, tokenEndpoint: _t, guestTokenExpiresAt: _g, ...rest } = record;
  return { ...rest, scopes: [...rest.scopes] };
}
