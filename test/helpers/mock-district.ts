// A district's API as stubs of an HttpMock (test/helpers/http-mock.ts), for behaviour tests of commands that
// only need it to answer: each stub answers every request of its kind (register only those the test
// uses: verify() fails for one never used).
import type { HttpMock } from './http-mock.js';
import { json, tokenReply } from './http-mock.js';

export const DISTRICT = 'https://district.test/v1';
export const CLIENT = { id: 'demo-allowed', secret: 'riverside-secret-2024' };
const ALWAYS = { times: Infinity };

/** Every token endpoint issues tokens (tok-1, tok-2, …); the requests are `http.requests` ending in /token. */
export function tokenEndpoints(http: HttpMock): void {
  let issued = 0;
  http.register(
    { method: 'POST', path: /\/token$/ },
    () => tokenReply(`tok-${++issued}-of-the-district`),
    ALWAYS,
  );
}

/** The token requests made so far. */
export const tokenRequests = (http: HttpMock) => http.requests.filter((r) => r.url.endsWith('/token'));

/** attendance-daily enabled for the client. */
export function attendanceEnabled(http: HttpMock): void {
  http.register(
    { method: 'GET', path: '/v1/attendance/status' },
    json({ success: true, clientLabel: 'Riverside Unified School District' }),
    ALWAYS,
  );
}

/** The district's schools (OneRoster 1.1), paged by limit and offset as the standard's are. */
export function schools(http: HttpMock, list: { sourcedId: string; name: string }[]): void {
  const orgs = list.map((s) => ({ ...s, type: 'school', status: 'active' }));
  http.register(
    { method: 'GET', path: '/v1/ims/oneroster/v1p1/schools' },
    (request) => {
      const query = new URL(request.url).searchParams;
      const offset = Number(query.get('offset') ?? 0);
      const page = orgs.slice(offset, offset + Number(query.get('limit') ?? 100));
      return json({ orgs: page }, 200, { 'x-total-count': String(orgs.length) });
    },
    ALWAYS,
  );
}

/** The server's invitation list, empty. */
export function noInvitations(http: HttpMock): void {
  http.register(
    { method: 'GET', path: '/v1/enrollment/invitations' },
    json({ data: [], meta: { page: 1, perPage: 20, total: 0 } }),
    ALWAYS,
  );
}

/** `roster login` as a script runs it, the secret on stdin, into the credentials file (no keychain). */
export function insecureLogin(extra: string[] = []): { argv: string[]; stdin: string } {
  return {
    argv: [
      'login',
      '--base-url',
      DISTRICT,
      '--client-id',
      CLIENT.id,
      '--client-secret-stdin',
      '--insecure-storage',
      ...extra,
    ],
    stdin: CLIENT.secret,
  };
}
