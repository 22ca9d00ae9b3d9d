import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { basicHeader, formEncode, tokenRequest } from './helpers.js';

let sandbox: Sandbox;
const logLines: string[] = [];
beforeAll(async () => {
  sandbox = await startSandbox({ seed: 1, log: (line) => logLines.push(line) });
});
afterAll(() => sandbox.close());

const client = (id: string) => sandbox.clients.find((c) => c.clientId === id)!;
const GRANT = { grant_type: 'client_credentials' };
const V1P1_ROSTER = 'https://purl.imsglobal.org/spec/or/v1p1/scope/roster-core.readonly';

async function expectError(res: Response, status: number, error: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.headers.get('cache-control')).toBe('no-store');
  const body = (await res.json()) as Record<string, unknown>;
  expect(body.error).toBe(error);
  expect(typeof body.error_description).toBe('string');
  return body;
}

describe('token endpoints: success', () => {
  it.each(['/oauth/token', '/ims/oneroster/v1p1/token', '/ims/oneroster/v1p2/token'])(
    'issues a bearer token at %s with form credentials',
    async (endpoint) => {
      const c = client('demo-allowed');
      const res = await tokenRequest(sandbox, {
        endpoint,
        fields: { ...GRANT, client_id: c.clientId, client_secret: c.clientSecret },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.headers.get('cache-control')).toBe('no-store');
      const body = (await res.json()) as Record<string, unknown>;
      expect(body).toMatchObject({ token_type: 'bearer', expires_in: 3600 });
      expect(body.access_token).toMatch(/^rst_[A-Za-z0-9_-]{40,}$/);
      expect(body).not.toHaveProperty('scope');
    },
  );

  it('accepts HTTP Basic with the secret form-encoded (RFC 6749 §2.3.1), special characters included', async () => {
    const c = client('demo-special');
    for (const ch of ['+', '/', ':', '%', '&', '=', '!', ' ']) expect(c.clientSecret).toContain(ch);
    const res = await tokenRequest(sandbox, {
      fields: GRANT,
      headers: { Authorization: basicHeader(c.clientId, c.clientSecret) },
    });
    expect(res.status).toBe(200);
  });

  it('accepts the special secret as form fields too', async () => {
    const c = client('demo-special');
    const res = await tokenRequest(sandbox, {
      fields: { ...GRANT, client_id: c.clientId, client_secret: c.clientSecret },
    });
    expect(res.status).toBe(200);
  });

  it('echoes an allowed scope and remembers it', async () => {
    const c = client('demo-allowed');
    const res = await tokenRequest(sandbox, {
      endpoint: '/ims/oneroster/v1p1/token',
      fields: { ...GRANT, scope: `${V1P1_ROSTER} attendance` },
      headers: { Authorization: basicHeader(c.clientId, c.clientSecret) },
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { scope: string }).scope).toBe(`${V1P1_ROSTER} attendance`);
  });

  it('accepts a lower-case basic scheme and a charset parameter on the content type', async () => {
    const c = client('demo-allowed');
    const res = await tokenRequest(sandbox, {
      fields: GRANT,
      headers: {
        Authorization: basicHeader(c.clientId, c.clientSecret).replace('Basic', 'basic'),
        'Content-Type': 'application/x-www-form-urlencoded; charset=UTF-8',
      },
    });
    expect(res.status).toBe(200);
  });
});

describe('token endpoints: every error value', () => {
  it('invalid_request when grant_type is missing (also with no body at all)', async () => {
    const c = client('demo-allowed');
    await expectError(
      await tokenRequest(sandbox, { fields: { client_id: c.clientId, client_secret: c.clientSecret } }),
      400,
      'invalid_request',
    );
    await expectError(
      await tokenRequest(sandbox, { headers: { Authorization: basicHeader(c.clientId, c.clientSecret) } }),
      400,
      'invalid_request',
    );
  });

  it('unsupported_grant_type for any other grant', async () => {
    const c = client('demo-allowed');
    await expectError(
      await tokenRequest(sandbox, {
        fields: { grant_type: 'password', client_id: c.clientId, client_secret: c.clientSecret },
      }),
      400,
      'unsupported_grant_type',
    );
  });

  it('invalid_request when both Basic and form credentials are sent', async () => {
    const c = client('demo-allowed');
    await expectError(
      await tokenRequest(sandbox, {
        fields: { ...GRANT, client_id: c.clientId, client_secret: c.clientSecret },
        headers: { Authorization: basicHeader(c.clientId, c.clientSecret) },
      }),
      400,
      'invalid_request',
    );
  });

  it('invalid_request for a body that is not a form, a repeated parameter, or a malformed %-sequence', async () => {
    const c = client('demo-allowed');
    const auth = { Authorization: basicHeader(c.clientId, c.clientSecret) };
    await expectError(
      await tokenRequest(sandbox, {
        body: JSON.stringify(GRANT),
        headers: { ...auth, 'Content-Type': 'application/json' },
      }),
      400,
      'invalid_request',
    );
    await expectError(
      await tokenRequest(sandbox, {
        body: 'grant_type=client_credentials&grant_type=client_credentials',
        headers: auth,
      }),
      400,
      'invalid_request',
    );
    await expectError(
      await tokenRequest(sandbox, { body: 'grant_type=client_credentials&scope=%zz', headers: auth }),
      400,
      'invalid_request',
    );
  });

  it('invalid_request for malformed Basic credentials (not base64, no colon) or another scheme', async () => {
    for (const authorization of [
      'Basic !!!not-base64!!!',
      `Basic ${Buffer.from('no-colon-here').toString('base64')}`,
      'Digest username="x"',
    ]) {
      await expectError(
        await tokenRequest(sandbox, { fields: GRANT, headers: { Authorization: authorization } }),
        400,
        'invalid_request',
      );
    }
  });

  it('rejects the special secret sent raw over Basic: % is malformed, and + would decode as a space', async () => {
    const c = client('demo-special');
    await expectError(
      await tokenRequest(sandbox, {
        fields: GRANT,
        headers: { Authorization: basicHeader(c.clientId, c.clientSecret, false) },
      }),
      400,
      'invalid_request',
    );
    // A raw '+' alone (no '%') decodes to a space: wrong secret, 401.
    const res = await tokenRequest(sandbox, {
      fields: GRANT,
      headers: {
        Authorization: `Basic ${Buffer.from(`${c.clientId}:${c.clientSecret.replace('%', formEncode('%'))}`).toString('base64')}`,
      },
    });
    await expectError(res, 401, 'invalid_client');
  });

  it('invalid_client (401) with no credentials at all, and a Basic challenge', async () => {
    const res = await tokenRequest(sandbox, { fields: GRANT });
    await expectError(res, 401, 'invalid_client');
    expect(res.headers.get('www-authenticate')).toMatch(/^Basic realm="roster-sandbox"/);
  });

  it('invalid_client (401) for a wrong secret or unknown client, with WWW-Authenticate when Basic was used', async () => {
    const c = client('demo-allowed');
    const viaBasic = await tokenRequest(sandbox, {
      fields: GRANT,
      headers: { Authorization: basicHeader(c.clientId, 'wrong') },
    });
    await expectError(viaBasic, 401, 'invalid_client');
    expect(viaBasic.headers.get('www-authenticate')).toMatch(/^Basic realm="roster-sandbox"/);

    await expectError(
      await tokenRequest(sandbox, {
        fields: { ...GRANT, client_id: 'nobody', client_secret: c.clientSecret },
      }),
      401,
      'invalid_client',
    );
    await expectError(
      await tokenRequest(sandbox, { fields: { ...GRANT, client_id: c.clientId } }),
      401,
      'invalid_client',
    );
  });

  it('invalid_scope for a scope the client may not have', async () => {
    const refused = client('demo-refused');
    await expectError(
      await tokenRequest(sandbox, {
        fields: { ...GRANT, scope: 'attendance' },
        headers: { Authorization: basicHeader(refused.clientId, refused.clientSecret) },
      }),
      400,
      'invalid_scope',
    );
    const allowed = client('demo-allowed');
    await expectError(
      await tokenRequest(sandbox, {
        fields: { ...GRANT, scope: `${V1P1_ROSTER} everything` },
        headers: { Authorization: basicHeader(allowed.clientId, allowed.clientSecret) },
      }),
      400,
      'invalid_scope',
    );
  });

  it('invalid_grant for a suspended client with correct credentials', async () => {
    const c = client('demo-suspended');
    expect(c.suspended).toBe(true);
    await expectError(
      await tokenRequest(sandbox, {
        fields: GRANT,
        headers: { Authorization: basicHeader(c.clientId, c.clientSecret) },
      }),
      400,
      'invalid_grant',
    );
  });

  it('405 for GET on a token endpoint', async () => {
    const res = await fetch(`${sandbox.baseUrl}/oauth/token`);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });
});

describe('logging', () => {
  it('logs one line per request without any secret or token', async () => {
    const c = client('demo-special');
    const res = await tokenRequest(sandbox, {
      fields: { ...GRANT, client_id: c.clientId, client_secret: c.clientSecret },
    });
    const { access_token } = (await res.json()) as { access_token: string };
    expect(logLines.at(-1)).toMatch(/^POST \/v1\/oauth\/token 200 \d+ms demo-special$/);
    const all = logLines.join('\n');
    for (const demo of sandbox.clients) expect(all).not.toContain(demo.clientSecret);
    expect(all).not.toContain(access_token);
  });
});

describe('the scope-required quirk', () => {
  let strict: Sandbox;
  beforeAll(async () => {
    strict = await startSandbox({ seed: 1, quirks: { requiredScope: 'roster-core.readonly' } });
  });
  afterAll(() => strict.close());
  const allowed = () => strict.clients.find((c) => c.clientId === 'demo-allowed')!;
  const auth = () => ({ Authorization: basicHeader(allowed().clientId, allowed().clientSecret) });

  it.each(['/oauth/token', '/ims/oneroster/v1p1/token', '/ims/oneroster/v1p2/token'])(
    '%s answers 400 invalid_request "scope is required" to a request without a scope',
    async (endpoint) => {
      const body = await expectError(
        await tokenRequest(strict, { endpoint, fields: GRANT, headers: auth() }),
        400,
        'invalid_request',
      );
      expect(body.error_description).toBe('scope is required');
    },
  );

  it('answers invalid_scope to a scope without the required one, or with one the client may not have', async () => {
    for (const scope of [V1P1_ROSTER, 'roster-core.readonly everything']) {
      const body = await expectError(
        await tokenRequest(strict, { fields: { ...GRANT, scope }, headers: auth() }),
        400,
        'invalid_scope',
      );
      expect(body.error_description).toMatch(/scope/i);
    }
  });

  it('issues a token carrying the scope, which then reads as any token does', async () => {
    const res = await tokenRequest(strict, {
      endpoint: '/ims/oneroster/v1p1/token',
      fields: { ...GRANT, scope: `roster-core.readonly ${V1P1_ROSTER}` },
      headers: auth(),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, string>;
    expect(body.scope).toBe(`roster-core.readonly ${V1P1_ROSTER}`);
    const read = await fetch(`${strict.baseUrl}/ims/oneroster/v1p1/students?limit=1`, {
      headers: { Authorization: `Bearer ${body.access_token}` },
    });
    expect(read.status).toBe(200);
  });
});
