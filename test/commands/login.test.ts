// `roster login` run() against the sandbox with the fake Context: what is asked, what is verified,
// what is saved where, and that nothing is saved when verification fails.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { secretAccount } from '../../src/auth/secret-store.js';
import { type LoginOptions, run } from '../../src/commands/login.js';
import { run as runToken } from '../../src/commands/token.js';
import type { Prompter } from '../../src/prompter.js';
import { type GlobalFlags, resolveSettings } from '../../src/settings.js';
import { type FakeContext, fakeContext, withSettings } from '../helpers/context.js';
import { failure } from '../helpers/errors.js';
import { useSandbox } from '../helpers/sandbox.js';

const fixture = useSandbox();
const secretOf = (id: string) =>
  fixture.sandbox.clients.find((c) => c.clientId === id)?.clientSecret as string;
const tokenRequests = () => fixture.sandbox.requests.filter((r) => r.path.endsWith('/token'));

async function login(f: FakeContext, options: LoginOptions, flags: GlobalFlags = {}) {
  const settings = await resolveSettings(flags, f.ctx.env, f.ctx.paths.configDir);
  const result = await run(options, withSettings(f.ctx, settings));
  if (!result) throw new Error('login was declined');
  return result;
}

function fakePrompter(answers: {
  baseUrl?: string;
  clientId?: string;
  secret?: string;
  /** Answers to yes/no questions, in order. */
  confirms?: boolean[];
}) {
  const asked: string[] = [];
  const confirms = [...(answers.confirms ?? [])];
  const prompter: Prompter = {
    async input(message) {
      asked.push(message);
      if (/base url/i.test(message)) return answers.baseUrl ?? '';
      if (/client id/i.test(message)) return answers.clientId ?? '';
      throw new Error(`unexpected prompt ${message}`);
    },
    async password(message) {
      asked.push(message);
      return answers.secret ?? '';
    },
    async confirm(message) {
      asked.push(message);
      const answer = confirms.shift();
      if (answer === undefined) throw new Error(`unexpected confirmation ${message}`);
      return answer;
    },
    async search(message) {
      throw new Error(`unexpected prompt ${message}`);
    },
  };
  return { prompter, asked };
}

const configText = (f: FakeContext) => readFileSync(join(f.ctx.paths.configDir, 'config.json'), 'utf8');

/** Every file under the fake home, for "the secret is in no file" checks. */
function allFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

describe('login on a terminal', () => {
  it('asks for the base URL, client id and secret, verifies, then saves the profile and the secret', async () => {
    const { prompter, asked } = fakePrompter({
      baseUrl: `${fixture.sandbox.baseUrl}/`,
      clientId: 'demo-allowed',
      secret: secretOf('demo-allowed'),
    });
    const f = fakeContext({ tty: true, prompter });
    const result = await login(f, {});
    expect(asked).toHaveLength(3);
    expect(result).toMatchObject({
      profile: 'default',
      baseUrl: fixture.sandbox.baseUrl,
      clientId: 'demo-allowed',
    });
    expect(result.storedIn).toBe('the test keychain');

    const config = JSON.parse(configText(f));
    expect(config).toEqual({
      defaultProfile: 'default',
      profiles: {
        default: {
          baseUrl: fixture.sandbox.baseUrl,
          clientId: 'demo-allowed',
          clientAuth: 'basic',
          oneroster: '1.1',
          secretStorage: 'keychain',
        },
      },
    });
    expect(f.keychain.secrets.get(secretAccount('demo-allowed', fixture.sandbox.baseUrl))).toBe(
      secretOf('demo-allowed'),
    );
    for (const file of allFiles(f.home))
      expect(readFileSync(file, 'utf8'), file).not.toContain(secretOf('demo-allowed'));
    expect(tokenRequests()).toHaveLength(1);

    // The verified token is cached: the next command needs no token request.
    const token = await runToken(
      {},
      withSettings(f.ctx, await resolveSettings({}, f.ctx.env, f.ctx.paths.configDir)),
    );
    expect(token.access_token).toMatch(/\S{16,}/);
    expect(tokenRequests()).toHaveLength(1);
    expect(f.stdout()).toBe('');
  });

  it('trims the base URL typed at the prompt', async () => {
    const { prompter } = fakePrompter({
      baseUrl: ` ${fixture.sandbox.baseUrl} `,
      clientId: 'demo-allowed',
      secret: secretOf('demo-allowed'),
    });
    const f = fakeContext({ tty: true, prompter });
    expect((await login(f, {})).baseUrl).toBe(fixture.sandbox.baseUrl);
  });

  it('asks only for what flags and the saved profile do not give', async () => {
    const { prompter, asked } = fakePrompter({ secret: secretOf('demo-allowed') });
    const f = fakeContext({ tty: true, prompter });
    await login(f, { clientId: 'demo-allowed' }, { baseUrl: fixture.sandbox.baseUrl });
    expect(asked).toEqual(['Client secret:']);
  });
});

describe('login without a terminal', () => {
  it('names every missing flag and sends nothing', async () => {
    const f = fakeContext();
    const error = await failure(login(f, {}));
    expect(error.code).toBe('usage');
    expect(error.message).toBe(
      'Missing --base-url, --client-id, --client-secret-stdin (pipe the secret on stdin): there is no terminal to ask on.',
    );
    expect(fixture.sandbox.requests).toHaveLength(0);
    expect(existsSync(join(f.ctx.paths.configDir, 'config.json'))).toBe(false);

    const onlySecret = await failure(
      login(fakeContext({ stdin: 's3cret-value' }), { clientSecretStdin: true }),
    );
    expect(onlySecret.message).toMatch(/^Missing --base-url, --client-id: /);
    expect(fixture.sandbox.requests).toHaveLength(0);
  });

  it('reads the secret from stdin, trimming one trailing newline', async () => {
    for (const ending of ['\n', '\r\n', '']) {
      const f = fakeContext({ stdin: `${secretOf('demo-special')}${ending}` });
      await login(
        f,
        { clientId: 'demo-special', clientSecretStdin: true },
        { baseUrl: fixture.sandbox.baseUrl },
      );
      expect(f.keychain.secrets.get(secretAccount('demo-special', fixture.sandbox.baseUrl))).toBe(
        secretOf('demo-special'),
      );
    }
  });

  it('refuses an empty or multi-line secret on stdin before any request', async () => {
    const cases: [string, RegExp][] = [
      ['', /stdin was empty/],
      ['\n', /stdin was empty/],
      ['line1\nline2', /single line/],
      ['secret\n\n', /single line/],
    ];
    for (const [stdin, message] of cases) {
      const error = await failure(
        login(
          fakeContext({ stdin }),
          { clientId: 'demo-allowed', clientSecretStdin: true },
          { baseUrl: fixture.sandbox.baseUrl },
        ),
      );
      expect(error.code, JSON.stringify(stdin)).toBe('usage');
      expect(error.message).toMatch(message);
    }
    expect(fixture.sandbox.requests).toHaveLength(0);
  });

  it('refuses --client-secret-stdin when stdin is a terminal', async () => {
    const { prompter } = fakePrompter({});
    const error = await failure(login(fakeContext({ tty: true, prompter }), { clientSecretStdin: true }));
    expect(error.code).toBe('usage');
    expect(error.message).toMatch(/stdin is a terminal/);
  });
});

describe('login verification', () => {
  it('saves nothing when the token endpoint refuses the secret', async () => {
    const f = fakeContext({ stdin: 'wrong-secret-value\n' });
    const error = await failure(
      login(f, { clientId: 'demo-allowed', clientSecretStdin: true }, { baseUrl: fixture.sandbox.baseUrl }),
    );
    expect(error.code).toBe('auth');
    expect(error.message).toMatch(
      /^The token endpoint refused the request \(HTTP 401\): .+ \(invalid_client\)$/,
    );
    expect(error.message).not.toContain('wrong-secret-value');
    expect(f.keychain.secrets.size).toBe(0);
    expect(allFiles(f.home)).toEqual([]);
  });

  it.each(['basic', 'post'])('works with a secret full of special characters over %s', async (clientAuth) => {
    const f = fakeContext({ stdin: secretOf('demo-special') });
    await login(
      f,
      { clientId: 'demo-special', clientSecretStdin: true },
      { baseUrl: fixture.sandbox.baseUrl, clientAuth },
    );
    expect(JSON.parse(configText(f)).profiles.default.clientAuth).toBe(clientAuth);
    const [request] = tokenRequests();
    if (clientAuth === 'basic') expect(request?.headers.authorization).toMatch(/^Basic /);
    else expect(request?.headers.authorization).toBeUndefined();
  });

  it('caches the verified token under the scope it was requested with', async () => {
    const f = fakeContext({ stdin: secretOf('demo-allowed') });
    await login(
      f,
      { clientId: 'demo-allowed', clientSecretStdin: true, scope: 'attendance' },
      { baseUrl: fixture.sandbox.baseUrl },
    );
    expect(JSON.parse(configText(f)).profiles.default.scope).toBe('attendance');
    expect(new URLSearchParams(tokenRequests()[0]?.body).get('scope')).toBe('attendance');
    const token = await runToken(
      {},
      withSettings(f.ctx, await resolveSettings({}, f.ctx.env, f.ctx.paths.configDir)),
    );
    expect(token.scope).toBe('attendance');
    expect(tokenRequests()).toHaveLength(1);
  });

  it('refuses to run with environment credentials set', async () => {
    const f = fakeContext({ env: { ROSTER_CLIENT_ID: 'demo-allowed', ROSTER_CLIENT_SECRET: 'x-secret' } });
    const error = await failure(login(f, {}, { baseUrl: fixture.sandbox.baseUrl }));
    expect(error.code).toBe('usage');
    expect(error.message).toMatch(/ROSTER_CLIENT_ID and ROSTER_CLIENT_SECRET are set/);
    expect(fixture.sandbox.requests).toHaveLength(0);
  });

  it('with --insecure-storage keeps the secret in a 0600 file and warns', async () => {
    const f = fakeContext({ stdin: secretOf('demo-allowed') });
    const result = await login(
      f,
      { clientId: 'demo-allowed', clientSecretStdin: true, insecureStorage: true },
      { baseUrl: fixture.sandbox.baseUrl },
    );
    expect(result.storedIn).toMatch(/credentials\.json \(mode 0600\)/);
    expect(f.keychain.secrets.size).toBe(0);
    expect(f.stderr()).toMatch(/^Warning: storing the client secret in a plain file/);
    expect(f.stderr()).not.toContain(secretOf('demo-allowed'));
    expect(JSON.parse(configText(f)).profiles.default.secretStorage).toBe('file');
    expect(configText(f)).not.toContain(secretOf('demo-allowed'));
  });
});

describe('login when the keychain cannot be reached', () => {
  it('in a script: the keychain error (exit 4), before any request, nothing saved', async () => {
    const f = fakeContext({ stdin: secretOf('demo-allowed') });
    f.keychain.unreachable = true;
    const error = await failure(
      login(f, { clientId: 'demo-allowed', clientSecretStdin: true }, { baseUrl: fixture.sandbox.baseUrl }),
    );
    expect(error.code).toBe('auth');
    expect(error.message).toBe('The test keychain cannot be reached.');
    expect(fixture.sandbox.requests).toHaveLength(0);
    expect(allFiles(f.home)).toEqual([]);
  });

  it('on a terminal: says why before any question, then the file if accepted', async () => {
    const { prompter, asked } = fakePrompter({
      baseUrl: fixture.sandbox.baseUrl,
      clientId: 'demo-allowed',
      secret: secretOf('demo-allowed'),
      confirms: [true],
    });
    const f = fakeContext({ tty: true, prompter });
    f.keychain.unreachable = true;
    const result = await login(f, {});
    expect(asked[0]).toBe('Keep the client secret in a file only you can read instead?');
    expect(f.stderr()).toBe('The test keychain cannot be reached.\n');
    expect(result.storedIn).toMatch(/credentials\.json \(mode 0600\)/);
    expect(JSON.parse(configText(f)).profiles.default.secretStorage).toBe('file');
  });

  it('on a terminal, declined: exit 4 naming the environment route, nothing asked or sent', async () => {
    const { prompter, asked } = fakePrompter({ confirms: [false] });
    const f = fakeContext({ tty: true, prompter });
    f.keychain.unreachable = true;
    const error = await failure(login(f, {}));
    expect(error.code).toBe('auth');
    expect(error.hint).toMatch(/ROSTER_CLIENT_ID and ROSTER_CLIENT_SECRET/);
    expect(asked).toHaveLength(1);
    expect(fixture.sandbox.requests).toHaveLength(0);
  });
});

describe('login again on a saved profile', () => {
  /** A script's login into f's home: the secret piped on stdin, no terminal. */
  async function scripted(f: FakeContext, clientId: string, flags: GlobalFlags = {}) {
    const settings = await resolveSettings(
      { baseUrl: fixture.sandbox.baseUrl, ...flags },
      f.ctx.env,
      f.ctx.paths.configDir,
    );
    const stdin = fakeContext({ stdin: secretOf(clientId) }).ctx.io.stdin;
    const io = { ...f.ctx.io, stdin, stdinIsTTY: false, stdoutIsTTY: false };
    return run(
      { clientId, clientSecretStdin: true },
      withSettings({ ...f.ctx, io, interactive: false }, settings),
    );
  }
  async function savedProfile(f: FakeContext) {
    await scripted(f, 'demo-allowed');
    fixture.sandbox.requests.length = 0;
  }

  it('in a script, with another client id: replaces it and removes the replaced secret', async () => {
    const f = fakeContext();
    await savedProfile(f);
    const result = await scripted(f, 'demo-special');
    expect(result?.replaced).toEqual({ baseUrl: fixture.sandbox.baseUrl, clientId: 'demo-allowed' });
    expect([...f.keychain.secrets.keys()]).toEqual([secretAccount('demo-special', fixture.sandbox.baseUrl)]);
  });

  it('keeps the replaced secret while another profile still uses it', async () => {
    const f = fakeContext();
    await savedProfile(f);
    await scripted(f, 'demo-allowed', { profile: 'east' });
    await scripted(f, 'demo-special');
    expect(f.keychain.secrets.has(secretAccount('demo-allowed', fixture.sandbox.baseUrl))).toBe(true);
  });

  it('on a terminal, "no" is a cancel (exit 130) and changes nothing', async () => {
    const { prompter, asked } = fakePrompter({ confirms: [false] });
    const f = fakeContext({ tty: true, prompter });
    await savedProfile(f);
    const before = configText(f);
    const settings = await resolveSettings({}, f.ctx.env, f.ctx.paths.configDir);
    await expect(run({}, withSettings(f.ctx, settings))).rejects.toMatchObject({
      code: 'interrupted',
      message: 'Cancelled; nothing was saved.',
    });
    expect(asked).toEqual(['Log in again and replace its base URL, client id and secret?']);
    expect(f.stderr()).toContain(
      `Profile "default" is logged in to ${fixture.sandbox.baseUrl} as demo-allowed.`,
    );
    expect(configText(f)).toBe(before);
    expect(fixture.sandbox.requests).toHaveLength(0);
  });
});
