// The resource client with a scripted transport and authenticator: replay after 401, retries and their
// waits, and the conservative treatment of POSTs.
import { describe, expect, it } from 'vitest';
import { ApiClient, type Authenticator, type ResourceRequest } from '../../../src/api/client.js';
import { MAX_RETRIES, MAX_RETRY_AFTER_MS } from '../../../src/api/retry.js';
import { type HttpRequest, type HttpResponse, NetworkError } from '../../../src/api/transport.js';
import { ApiError, ForeignAnswerError, InDoubtError, RosterError } from '../../../src/errors.js';
import { createLogger } from '../../../src/output/log.js';
import { Redactor } from '../../../src/redact.js';
import { failure } from '../../helpers/errors.js';

type Step = HttpResponse | Error;
const NOW = Date.UTC(2025, 0, 1);
const BASE = 'https://api.example/v1';

const reply = (status: number, body: unknown = {}, headers: Record<string, string> = {}): HttpResponse => ({
  status,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
  url: `${BASE}/x`,
});

class FakeAuth implements Authenticator {
  tokens = ['token-1', 'token-2', 'token-3'];
  issued: string[] = [];
  rejections: string[] = [];
  constructor(private readonly allowReplay = true) {}
  async token(): Promise<string> {
    const token = this.tokens[Math.min(this.rejections.length, this.tokens.length - 1)] as string;
    this.issued.push(token);
    return token;
  }
  async rejected(_purpose: string, token: string): Promise<boolean> {
    this.rejections.push(token);
    return this.allowReplay;
  }
}

function setup(steps: Step[], auth = new FakeAuth()) {
  const sent: HttpRequest[] = [];
  const sleeps: number[] = [];
  let err = '';
  const stderr = {
    write(chunk: string) {
      err += chunk;
      return true;
    },
  };
  const log = createLogger(stderr, new Redactor(), true);
  const client = new ApiClient({
    baseUrl: BASE,
    transport: {
      async send(request) {
        sent.push(request);
        const step = steps.shift();
        if (!step) throw new Error('the test ran out of scripted answers');
        if (step instanceof Error) throw step;
        return step;
      },
    },
    auth,
    log,
    now: () => NOW,
    sleep: async (ms) => void sleeps.push(ms),
    random: () => 0,
  });
  return { client, sent, sleeps, auth, stderr: () => err };
}

const get: ResourceRequest = {
  method: 'GET',
  path: '/things',
  query: 'a=1',
  purpose: 'general',
  what: 'Listing things',
};
const post: ResourceRequest = {
  method: 'POST',
  path: '/invitations',
  json: { email: 'p@example.org' },
  purpose: 'invitations',
  what: 'Sending the invitation',
  unknownOutcomeHint: 'Run `roster invite list` to see whether it was sent.',
};

describe('ApiClient.send', () => {
  it('sends a bearer token, JSON headers and the query, and returns a 2xx', async () => {
    const { client, sent } = setup([reply(200, { ok: true })]);
    const response = await client.send(post);
    expect(response.status).toBe(200);
    expect(sent[0]).toEqual({
      method: 'POST',
      url: `${BASE}/invitations`,
      headers: {
        authorization: 'Bearer token-1',
        accept: 'application/json',
        'content-type': 'application/json',
      },
      body: '{"email":"p@example.org"}',
    });
    await setup([reply(204, '')]).client.send(get);
    const g = setup([reply(200)]);
    await g.client.send(get);
    expect(g.sent[0]?.url).toBe(`${BASE}/things?a=1`);
    expect(g.sent[0]?.headers).not.toHaveProperty('content-type');
    expect(g.sent[0]?.body).toBeUndefined();
  });

  it('after a 401 asks for a new token and replays once', async () => {
    const { client, sent, auth } = setup([reply(401, { message: 'expired' }), reply(200)]);
    expect((await client.send(get)).status).toBe(200);
    expect(auth.rejections).toEqual(['token-1']);
    expect(sent.map((r) => r.headers?.authorization)).toEqual(['Bearer token-1', 'Bearer token-2']);
  });

  it('a second 401 is an authentication error, never a loop', async () => {
    const { client, sent, auth } = setup([
      reply(401, { message: 'no' }),
      reply(401, { message: 'still no' }),
    ]);
    const error = await failure(client.send(get));
    expect(error.code).toBe('auth');
    expect(error.message).toBe('Listing things failed (HTTP 401): still no (a fresh token was rejected too)');
    expect(sent).toHaveLength(2);
    expect(auth.rejections).toEqual(['token-1']);
  });

  it('does not claim a fresh token was tried when the authenticator had none to offer', async () => {
    const { client, sent } = setup([reply(401, { message: 'no' })], new FakeAuth(false));
    const error = await failure(client.send(get));
    expect(error.code).toBe('auth');
    expect(sent).toHaveLength(1);
    expect(error.message).toBe('Listing things failed (HTTP 401): no');
  });

  it('retries a GET on 503, waiting what Retry-After asks (seconds or an HTTP date)', async () => {
    const { client, sent, sleeps } = setup([
      reply(503, { message: 'busy' }, { 'retry-after': '2' }),
      reply(503, { message: 'busy' }, { 'retry-after': new Date(NOW + 7000).toUTCString() }),
      reply(200),
    ]);
    expect((await client.send(get)).status).toBe(200);
    expect(sent).toHaveLength(3);
    expect(sleeps).toEqual([2000, 7000]);
  });

  it.each([500, 502, 504, 408, 429])('retries a GET on %i with capped backoff', async (status) => {
    const { client, sleeps } = setup([reply(status), reply(status), reply(200)]);
    expect((await client.send(get)).status).toBe(200);
    expect(sleeps).toEqual([250, 500]); // random() = 0: half of 500 ms, then half of 1 s
  });

  it('gives up after MAX_RETRIES and says how many tries it made', async () => {
    const steps = Array.from({ length: MAX_RETRIES + 1 }, () => reply(502, { message: 'bad gateway' }));
    const { client, sent, sleeps } = setup(steps);
    const error = await failure(client.send(get));
    expect(sent).toHaveLength(MAX_RETRIES + 1);
    expect(sleeps).toHaveLength(MAX_RETRIES);
    expect(error.code).toBe('api');
    expect(error.message).toBe(
      `Listing things failed (HTTP 502): bad gateway (after ${MAX_RETRIES + 1} tries)`,
    );
    expect(error.hint).toMatch(/try again later/);
  });

  it('does not retry a GET on a 4xx', async () => {
    for (const status of [400, 403, 404]) {
      const { client, sent } = setup([reply(status, { message: 'no' })]);
      const error = await failure(client.send(get));
      expect(sent).toHaveLength(1);
      expect(error.message).toBe(`Listing things failed (HTTP ${status}): no`);
      expect(error.code).toBe(status === 403 ? 'forbidden' : 'api');
    }
  });

  it('retries a GET on network errors, then gives up with the count', async () => {
    const reset = () =>
      new NetworkError(
        'Request to https://api.example/v1/things failed: socket hang up.',
        true,
        'ECONNRESET',
      );
    const ok = setup([reset(), reply(200)]);
    expect((await ok.client.send(get)).status).toBe(200);
    expect(ok.sleeps).toEqual([250]);

    const { client, sent } = setup(Array.from({ length: MAX_RETRIES + 1 }, reset));
    const error = await failure(client.send(get));
    expect(error.code).toBe('network');
    expect(sent).toHaveLength(MAX_RETRIES + 1);
    expect(error.message).toMatch(new RegExp(`gave up after ${MAX_RETRIES + 1} tries\\)$`));
  });

  it('never repeats a POST that may have reached the server', async () => {
    const { client, sent, sleeps } = setup([
      new NetworkError('No answer from https://api.example/v1/invitations within 30 s.', true, 'ETIMEDOUT'),
    ]);
    const error = await failure(client.send(post));
    expect(sent).toHaveLength(1);
    expect(sleeps).toEqual([]);
    expect(error.code).toBe('outcome-unknown');
    expect(error.message).toBe(
      'Sending the invitation: the outcome is unknown. The request to https://api.example/v1/invitations may have reached the server (No answer from https://api.example/v1/invitations within 30 s); it was not sent again.',
    );
    expect(error.hint).toBe('Run `roster invite list` to see whether it was sent.');
  });

  it('retries a POST that never left the machine', async () => {
    const { client, sent } = setup([
      new NetworkError(
        'Could not connect to https://api.example/v1/invitations: connection refused.',
        false,
        'ECONNREFUSED',
      ),
      reply(201),
    ]);
    expect((await client.send(post)).status).toBe(201);
    expect(sent).toHaveLength(2);
    expect(sent[1]?.body).toBe(sent[0]?.body);
  });

  it("retries a POST on 429, or on the API's own 503, only when Retry-After says when", async () => {
    const withAfter = setup([
      reply(429, {}, { 'retry-after': '1' }),
      reply(503, { message: 'maintenance' }, { 'retry-after': '3' }),
      reply(201),
    ]);
    expect((await withAfter.client.send(post)).status).toBe(201);
    expect(withAfter.sleeps).toEqual([1000, 3000]);

    for (const status of [429, 503, 500, 502, 504, 408]) {
      const { client, sent } = setup([reply(status, { message: 'nope' })]);
      await failure(client.send(post));
      expect(sent, String(status)).toHaveLength(1);
    }
  });

  const text = (status: number, body: string, headers: Record<string, string> = {}): HttpResponse => ({
    status,
    headers: { 'content-type': 'text/plain', ...headers },
    body,
    url: `${BASE}/x`,
  });
  const gateway503 =
    'upstream connect error or disconnect/reset before headers. reset reason: connection termination';

  it.each([
    ["a gateway's text/plain 503 with Retry-After", text(503, gateway503, { 'retry-after': '1' }), 503],
    [
      "someone else's JSON 503 with Retry-After",
      reply(503, { error: 'no healthy upstream' }, { 'retry-after': '1' }),
      503,
    ],
    [
      'an HTML 502',
      {
        ...text(502, '<html><title>502 Bad Gateway</title></html>'),
        headers: { 'content-type': 'text/html' },
      },
      502,
    ],
    ["the API's own 500", reply(500, { message: 'database unavailable' }), 500],
    ['an empty 503', text(503, ''), 503],
    [
      "a 503 in the API's shape without Retry-After (AWS API Gateway's own words)",
      reply(503, { message: 'Service Unavailable' }),
      503,
    ],
  ])('a POST answered with %s is in doubt: one try, no wait, the status kept', async (_, answer, status) => {
    const { client, sent, sleeps } = setup([answer, reply(201)]);
    const error = await failure(client.send(post));
    expect(sent).toHaveLength(1);
    expect(sleeps).toEqual([]);
    expect(error.code).toBe('outcome-unknown');
    expect(error).toBeInstanceOf(InDoubtError);
    expect((error as InDoubtError).status).toBe(status);
    expect(error.message).toMatch(
      /^Sending the invitation: the outcome is unknown \(in doubt\)\. .*; it was not sent again\.$/,
    );
    expect(error.hint).toBe('Run `roster invite list` to see whether it was sent.');
  });

  it("says what the gateway said, and that it is not the API's error", async () => {
    const { client } = setup([text(503, gateway503, { 'retry-after': '1' })]);
    expect((await failure(client.send(post))).message).toBe(
      `Sending the invitation: the outcome is unknown (in doubt). The server answered HTTP 503 with a text/plain body "${gateway503}", not the API's own error: a gateway in front of the API answers so even after the API acted; it was not sent again.`,
    );
  });

  it("a 401 or 403 page that is not the API's is in doubt, never replayed with a fresh token", async () => {
    for (const status of [401, 403]) {
      const page = {
        ...text(status, '<html><title>Sign in</title></html>'),
        headers: { 'content-type': 'text/html' },
      };
      const { client, sent, auth } = setup([page, reply(201)]);
      const error = await failure(client.send(post));
      expect(sent, String(status)).toHaveLength(1);
      expect(auth.rejections).toEqual([]);
      expect(error).toBeInstanceOf(ForeignAnswerError);
      expect(error.code).toBe('outcome-unknown');
    }
  });

  it('a POST refused by a Bearer challenge (RFC 6750), whatever its body, is replayed once with a fresh token', async () => {
    const challenge = text(401, '', { 'www-authenticate': 'Bearer error="invalid_token"' });
    const { client, sent } = setup([challenge, reply(201)]);
    expect((await client.send(post)).status).toBe(201);
    expect(sent.map((r) => r.headers?.authorization)).toEqual(['Bearer token-1', 'Bearer token-2']);
  });

  it.each([400, 403, 404, 409, 413, 422])(
    "the API's own %i to a POST is a refusal (not sent), not in doubt",
    async (status) => {
      const { client, sent } = setup([reply(status, { message: 'refused' })]);
      const error = await failure(client.send(post));
      expect(sent).toHaveLength(1);
      expect(error).toBeInstanceOf(ApiError);
      expect(error.message).toBe(`Sending the invitation failed (HTTP ${status}): refused`);
    },
  );

  it('does not wait when Retry-After asks for more than MAX_RETRY_AFTER_MS', async () => {
    const seconds = String(MAX_RETRY_AFTER_MS / 1000 + 1);
    const { client, sent, sleeps } = setup([
      reply(503, { message: 'maintenance' }, { 'retry-after': seconds }),
    ]);
    const error = await failure(client.send(get));
    expect(sent).toHaveLength(1);
    expect(sleeps).toEqual([]);
    expect(error.message).toBe('Listing things failed (HTTP 503): maintenance');
  });

  it('lets non-network failures through untouched', async () => {
    const { client } = setup([new RosterError('unexpected', 'Refused more than 5 redirects (from x).')]);
    // A RosterError that is not a NetworkError is thrown by the transport as is.
    const error = await failure(client.send(get));
    expect(error.code).toBe('unexpected');
  });
});
