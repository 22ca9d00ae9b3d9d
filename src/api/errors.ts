// One factory turns any error answer into a RosterError: OAuth {error, error_description}, the
// service's {message} and {status, message}, OneRoster imsx_* in its field variants, errors[] lists,
// and bodies that are not JSON at all (a proxy's HTML page).
import { ApiError, RosterError } from '../errors.js';
import type { HttpResponse } from './transport.js';

/** `what` names the operation for the message, e.g. "Attendance check". */
export function errorFromResponse(response: HttpResponse, what: string): RosterError {
  const { status } = response;
  const body = parseJson(response.body);
  const serverMessage = body === undefined ? undefined : messageOf(body);
  const detail = serverMessage ?? describeBody(response);
  const message = `${what} failed (HTTP ${status}): ${detail}`;
  if (status === 401)
    return new ApiError(
      'auth',
      status,
      message,
      'Run `roster login`, or check the credentials.',
      serverMessage,
    );
  if (status === 403) return new ApiError('forbidden', status, message, undefined, serverMessage);
  const hint = status >= 500 ? 'The server failed; try again later.' : undefined;
  return new ApiError('api', status, message, hint, serverMessage);
}

/** An answer that is not what the operation expects (wrong shape, not JSON). */
export function unexpectedResponse(response: HttpResponse, what: string, expected: string): RosterError {
  return new RosterError(
    'unexpected',
    `${what}: unexpected answer (HTTP ${response.status}, ${describeBody(response)}); expected ${expected}.`,
  );
}

export function parseJson(text: string): unknown {
  if (!text.trim()) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** How deep messageOf looks into nested errors: real bodies nest two or three levels. */
const MAX_DEPTH = 8;
/** How many messages of a list messageOf joins (each is cut, and so is the whole). */
const MAX_MESSAGES = 5;

/**
 * The human message in an error body, whatever its shape. Bounded whatever the body: a server may nest
 * errors thousands deep (recursion without a limit overflowed the stack, and an invitation the API had
 * confirmed became an "unexpected failure") or list a million of them.
 */
export function messageOf(body: unknown, depth = 0): string | undefined {
  if (typeof body === 'string') return clean(body);
  if (!isRecord(body) || depth > MAX_DEPTH) return undefined;
  if (typeof body.error === 'string') return oauthMessage(body.error, body.error_description);
  return fieldMessageOf(body) ?? nestedMessageOf(body, depth) ?? codeMinorOf(body);
}

/** OAuth's {error, error_description}: the description, with the error code after it. */
function oauthMessage(error: string, description: unknown): string {
  return typeof description === 'string' && description
    ? `${clean(description)} (${clean(error)})`
    : clean(error);
}

/** The first field of a body's own that holds a message, in the order the known shapes name it. */
function fieldMessageOf(body: Record<string, unknown>): string | undefined {
  for (const key of ['imsx_description', 'message', 'description', 'detail', 'title']) {
    if (typeof body[key] === 'string' && body[key]) return clean(body[key] as string);
  }
  return undefined;
}

/** The messages of the errors nested under the first of the known keys that yields any, joined. */
function nestedMessageOf(body: Record<string, unknown>, depth: number): string | undefined {
  for (const key of ['imsx_statusInfo', 'statusInfoSet', 'imsx_statusInfoSet', 'errors', 'error']) {
    const nested = body[key];
    const found = messagesIn(
      Array.isArray(nested) ? nested : nested === undefined ? [] : [nested],
      depth + 1,
    );
    if (found.length > 0) return clean(found.join('; '));
  }
  return undefined;
}

/** The messages of a list of errors, the first MAX_MESSAGES of them (a server may list a million). */
function messagesIn(list: unknown[], depth: number): string[] {
  const found: string[] = [];
  for (const item of list) {
    const message = messageOf(isRecord(item) && item.imsx_statusInfo ? item.imsx_statusInfo : item, depth);
    if (message) found.push(message);
    if (found.length === MAX_MESSAGES) break;
  }
  return found;
}

/** OneRoster's imsx_CodeMinor (also spelt imsx_codeMinor), for a status without a description. */
function codeMinorOf(body: Record<string, unknown>): string | undefined {
  const minor = body.imsx_CodeMinor ?? body.imsx_codeMinor;
  if (!isRecord(minor)) return undefined;
  const fields = Array.isArray(minor.imsx_codeMinorField)
    ? minor.imsx_codeMinorField
    : [minor.imsx_codeMinorField];
  const values = fields
    .map((field) => (isRecord(field) ? field.imsx_codeMinorFieldValue : undefined))
    .filter((value): value is string => typeof value === 'string' && value !== '');
  return values.length > 0 ? clean(values.join(', ')) : undefined;
}

/** How much of a body is examined for a description: any page's title is well inside it. */
const EXAMINED_CHARS = 16 * 1024;

/** What an answer's body is, in a few words: an empty body, an HTML page "title", a text/plain body…. */
export function describeBody(response: HttpResponse): string {
  const type = String(response.headers['content-type'] ?? '').split(';')[0] || 'no content type';
  const head = response.body.slice(0, EXAMINED_CHARS);
  if (!response.body.trim()) return 'an empty body';
  if (/html/i.test(type) || /^\s*</.test(head)) {
    const title = htmlTitle(head);
    return `an HTML page${title ? ` "${clean(title)}"` : ''} (a proxy or gateway?)`;
  }
  return parseJson(response.body) === undefined
    ? `${article(type)} ${type} body that is not JSON`
    : `${article(type)} ${type} body without a message`;
}

/**
 * The text of the first <title> element, found in linear time: a regex such as /<title[^>]*>/ rescans the
 * rest of the page from every "<title" that has no ">", which is quadratic on a hostile page.
 */
function htmlTitle(html: string): string | undefined {
  const open = html.search(/<title/i);
  if (open < 0) return undefined;
  const start = html.indexOf('>', open);
  if (start < 0) return undefined;
  const text = html.slice(start + 1);
  const end = text.search(/<\/title/i);
  return end < 0 ? undefined : text.slice(0, end);
}

const article = (word: string) => (/^[aeiou]/i.test(word) ? 'an' : 'a');

/** One line, no control characters, bounded: server text goes straight to the user's terminal. */
function clean(text: string): string {
  const line = text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').trim();
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
