import { describe, expect, it } from 'vitest';
import { errorFromResponse, messageOf, unexpectedResponse } from '../../../src/api/errors.js';
import type { HttpResponse } from '../../../src/api/transport.js';
import { ApiError } from '../../../src/errors.js';

const res = (status: number, body: unknown, type = 'application/json'): HttpResponse => ({
  status,
  headers: type ? { 'content-type': `${type}; charset=utf-8` } : {},
  body: typeof body === 'string' ? body : JSON.stringify(body),
  url: 'https://api.example/v1/x',
});

const messageFor = (status: number, body: unknown, type?: string) =>
  errorFromResponse(res(status, body, type), 'Lookup').message;

describe('messageOf', () => {
  it('reads OAuth errors, with and without a description', () => {
    expect(messageOf({ error: 'invalid_client', error_description: 'Unknown client' })).toBe(
      'Unknown client (invalid_client)',
    );
    expect(messageOf({ error: 'invalid_client' })).toBe('invalid_client');
  });

  it('reads {message}, {status, message} and other single-field shapes', () => {
    expect(messageOf({ message: 'Not enabled' })).toBe('Not enabled');
    expect(messageOf({ status: 403, message: 'Forbidden for this client' })).toBe(
      'Forbidden for this client',
    );
    expect(messageOf({ detail: 'Problem detail' })).toBe('Problem detail');
    expect(messageOf({ title: 'Problem title' })).toBe('Problem title');
    expect(messageOf({ message: '', description: 'fallback' })).toBe('fallback');
  });

  it('reads OneRoster imsx_description, flat or in a statusInfoSet (object or array)', () => {
    const info = {
      imsx_codeMajor: 'failure',
      imsx_severity: 'error',
      imsx_description: 'Unknown field: colour',
      imsx_CodeMinor: {
        imsx_codeMinorField: [
          { imsx_codeMinorFieldName: 'TargetEndSystem', imsx_codeMinorFieldValue: 'invalid_selection_field' },
        ],
      },
    };
    expect(messageOf(info)).toBe('Unknown field: colour');
    expect(messageOf({ imsx_statusInfo: info })).toBe('Unknown field: colour');
    expect(messageOf({ statusInfoSet: [info, { ...info, imsx_description: 'Second' }] })).toBe(
      'Unknown field: colour; Second',
    );
    expect(messageOf({ imsx_statusInfoSet: { imsx_statusInfo: info } })).toBe('Unknown field: colour');
    expect(messageOf({ imsx_statusInfoSet: [{ imsx_statusInfo: info }] })).toBe('Unknown field: colour');
  });

  it('falls back to the imsx code minor when there is no description, in its spelling variants', () => {
    const field = { imsx_codeMinorFieldName: 'TargetEndSystem', imsx_codeMinorFieldValue: 'unknownobject' };
    const variants = [
      { imsx_codeMajor: 'failure', imsx_CodeMinor: { imsx_codeMinorField: [field] } },
      { imsx_codeMajor: 'failure', imsx_codeMinor: { imsx_codeMinorField: [field] } },
      { imsx_codeMajor: 'failure', imsx_codeMinor: { imsx_codeMinorField: field } },
      {
        imsx_statusInfoSet: [{ imsx_codeMajor: 'failure', imsx_codeMinor: { imsx_codeMinorField: [field] } }],
      },
    ];
    for (const body of variants) expect(messageOf(body), JSON.stringify(body)).toMatch(/unknownobject/);
  });

  it('joins an errors[] list', () => {
    expect(messageOf({ errors: [{ message: 'email is invalid' }, { message: 'schoolId missing' }] })).toBe(
      'email is invalid; schoolId missing',
    );
    expect(messageOf({ errors: ['one', 'two'] })).toBe('one; two');
    expect(messageOf({ errors: [] })).toBeUndefined();
    expect(messageOf({ error: { message: 'nested' } })).toBe('nested');
  });

  it('cleans control characters and bounds server text', () => {
    expect(messageOf({ message: 'line one\nline two\u001b[31m red\u0007' })).toBe(
      'line one line two [31m red',
    );
    const long = messageOf({ message: 'x'.repeat(1000) }) ?? '';
    expect(long).toHaveLength(301);
    expect(long.endsWith('…')).toBe(true);
  });

  it('is bounded whatever the shape: a few levels deep, the first five of a list, 300 characters', () => {
    let deep: unknown = { message: 'at the bottom' };
    for (let i = 0; i < 100_000; i++) deep = { errors: deep };
    expect(messageOf(deep)).toBeUndefined();
    let shallow: unknown = { message: 'found' };
    for (let i = 0; i < 8; i++) shallow = { errors: [shallow] };
    expect(messageOf(shallow)).toBe('found');
    const many = { errors: Array.from({ length: 100_000 }, (_, i) => ({ message: `e${i}` })) };
    expect(messageOf(many)).toBe('e0; e1; e2; e3; e4');
    const long = messageOf({ errors: Array.from({ length: 9 }, () => 'y'.repeat(200)) }) ?? '';
    expect(long).toHaveLength(301);
  });

  it('finds nothing in shapes without a message', () => {
    expect(messageOf(undefined)).toBeUndefined();
    expect(messageOf(42)).toBeUndefined();
    expect(messageOf({ ok: false })).toBeUndefined();
  });
});

describe('errorFromResponse', () => {
  it('maps 401 to auth, 403 to forbidden and other statuses to api', () => {
    const e401 = errorFromResponse(res(401, { message: 'Token expired' }), 'Lookup');
    expect(e401).toBeInstanceOf(ApiError);
    expect(e401).toMatchObject({
      code: 'auth',
      status: 401,
      message: 'Lookup failed (HTTP 401): Token expired',
    });
    expect(e401.hint).toMatch(/roster login/);
    const e403 = errorFromResponse(
      res(403, { status: 403, message: 'attendance-daily is not enabled' }),
      'Lookup',
    );
    expect(e403).toMatchObject({ code: 'forbidden', status: 403 });
    expect(e403.message).toBe('Lookup failed (HTTP 403): attendance-daily is not enabled');
    const e404 = errorFromResponse(res(404, { message: 'No such thing' }), 'Lookup');
    expect(e404).toMatchObject({ code: 'api', status: 404, hint: undefined });
    const e503 = errorFromResponse(res(503, { message: 'Maintenance' }), 'Lookup');
    expect(e503).toMatchObject({ code: 'api', status: 503, hint: 'The server failed; try again later.' });
  });

  it('describes bodies that carry no message', () => {
    expect(messageFor(502, '<html><head><title>502 Bad Gateway</title></head></html>', 'text/html')).toBe(
      'Lookup failed (HTTP 502): an HTML page "502 Bad Gateway" (a proxy or gateway?)',
    );
    expect(messageFor(502, '<html><body>oops</body></html>', '')).toBe(
      'Lookup failed (HTTP 502): an HTML page (a proxy or gateway?)',
    );
    expect(messageFor(500, '')).toBe('Lookup failed (HTTP 500): an empty body');
    expect(messageFor(500, '   \n')).toBe('Lookup failed (HTTP 500): an empty body');
    expect(messageFor(500, '{"message": "trunc')).toMatch(
      /^Lookup failed \(HTTP 500\): .*application\/json body that is not JSON$/,
    );
    expect(messageFor(400, { unexpected: true })).toMatch(/application\/json body without a message$/);
  });

  it('cleans control characters from an HTML title', () => {
    expect(messageFor(502, '<title>Bad\u001b[2J\nGateway</title>', 'text/html')).toBe(
      'Lookup failed (HTTP 502): an HTML page "Bad [2J Gateway" (a proxy or gateway?)',
    );
  });
});

describe('unexpectedResponse', () => {
  it('names what was expected', () => {
    const e = unexpectedResponse(res(200, 'hello', 'text/plain'), 'Attendance check', 'a JSON body');
    expect(e.code).toBe('unexpected');
    expect(e.message).toBe(
      'Attendance check: unexpected answer (HTTP 200, a text/plain body that is not JSON); expected a JSON body.',
    );
  });
});
