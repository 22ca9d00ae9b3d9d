// The scripted wire of behaviour tests (test/helpers/http-mock.ts): stubs answer what they match, in order
// and as many times as registered; a request that matches none fails loudly, and so does verify() for it
// or for a stub never used. And the seam: a Context's transport is the one its Session sends through.
import { describe, expect, it } from 'vitest';
import { NetworkError } from '../../src/api/transport.js';
import { run as attendanceCheck } from '../../src/commands/attendance/check.js';
import { fakeContext } from '../helpers/context.js';
import { failure } from '../helpers/errors.js';
import { bearer, HttpMock, json, networkFailure, tokenReply } from '../helpers/http-mock.js';

const BASE = 'https://api.test/v1';

describe('HttpMock', () => {
  it('answers a request its stub matches by method and path, JSON with its content type', async () => {
    const mock = new HttpMock().register({ method: 'GET', path: '/v1/ping' }, json({ ok: true }, 201));
    const answer = await mock.send({ method: 'GET', url: `${BASE}/ping?x=1` });
    expect(answer).toEqual({
      status: 201,
      headers: { 'content-type': 'application/json' },
      body: '{"ok":true}',
      url: `${BASE}/ping?x=1`,
    });
    expect(mock.requests).toHaveLength(1);
    mock.verify();
  });

  it('fails loudly on a request no stub matches, naming it, and verify() fails for it too', async () => {
    const mock = new HttpMock().register({ method: 'GET', path: '/v1/ping' }, {});
    await mock.send({ method: 'GET', url: `${BASE}/ping` });
    const error = await mock.send({ method: 'POST', url: `${BASE}/ping`, body: '{}' }).catch((e) => e);
    expect(error).not.toBeInstanceOf(NetworkError);
    expect(error.message).toBe(`http-mock: no stub matches POST ${BASE}/ping`);
    expect(() => mock.verify()).toThrow(`no stub matched POST ${BASE}/ping`);
  });

  it('verify() fails for a stub never used', () => {
    const mock = new HttpMock().register({ method: 'POST', path: '/v1/oauth/token' }, tokenReply('t'));
    expect(() => mock.verify()).toThrow('stub never used: POST /v1/oauth/token');
  });

  it('a stub answers once unless told more; the next matching one answers after it', async () => {
    const mock = new HttpMock()
      .register({ method: 'GET', path: '/v1/x' }, { status: 503 }, { times: 2 })
      .register({ method: 'GET', path: '/v1/x' }, { status: 200, body: 'done' });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await mock.send({ method: 'GET', url: `${BASE}/x` })).status);
    expect(statuses).toEqual([503, 503, 200]);
    await expect(mock.send({ method: 'GET', url: `${BASE}/x` })).rejects.toThrow('no stub matches');
  });

  it('matches a pattern over the whole URL, and a condition on the request', async () => {
    const mock = new HttpMock()
      .register({ method: 'GET', path: /\/students\?.*offset=100/, where: bearer('good') }, json([]))
      .register({ method: 'GET', path: /\/students/ }, { status: 401 });
    const url = `${BASE}/ims/oneroster/v1p1/students?limit=100&offset=100`;
    const good = await mock.send({ method: 'GET', url, headers: { authorization: 'Bearer good' } });
    const bad = await mock.send({ method: 'GET', url, headers: { authorization: 'Bearer bad' } });
    expect([good.status, bad.status]).toEqual([200, 401]);
  });

  it('a responder sees the request, and may throw a NetworkError as the wire does', async () => {
    const mock = new HttpMock()
      .register({ method: 'POST', path: '/v1/echo' }, (r) => ({ body: r.body ?? '' }))
      .register({ method: 'POST', path: '/v1/drop' }, networkFailure(true));
    expect((await mock.send({ method: 'POST', url: `${BASE}/echo`, body: 'hi' })).body).toBe('hi');
    const error = await failure(mock.send({ method: 'POST', url: `${BASE}/drop` }));
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).sent).toBe(true);
  });
});

describe('the seam: a Context that brings its own transport', () => {
  it("is the wire the run's Session sends through (token, then the request with it)", async () => {
    const http = new HttpMock()
      .register(
        {
          method: 'POST',
          path: '/v1/oauth/token',
          where: (r) => r.body?.includes('client_credentials') ?? false,
        },
        tokenReply('tok-1'),
      )
      .register(
        { method: 'GET', path: '/v1/attendance/status', where: bearer('tok-1') },
        json({ success: true, clientLabel: 'Riverside' }),
      );
    const { ctx } = fakeContext({
      transport: http,
      env: { ROSTER_BASE_URL: BASE, ROSTER_CLIENT_ID: 'id', ROSTER_CLIENT_SECRET: 'secret' },
    });
    expect(await attendanceCheck({}, ctx)).toMatchObject({ clientLabel: 'Riverside' });
    expect((await ctx.session()).transport).toBe(http);
    http.verify();
  });
});
