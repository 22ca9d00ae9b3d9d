import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { sandboxOptions } from '../../src/commands/sandbox.js';
import { UsageError } from '../../src/errors.js';
import { demoClients } from '../../src/sandbox/clients.js';
import { DEFAULT_REQUIRED_SCOPE, parseQuirks, QUIRK_DOCS } from '../../src/sandbox/quirks.js';
import { startSandbox } from '../../src/sandbox/server.js';
import { runCli, startCli, until } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { bearer, getToken } from './helpers.js';

describe('sandbox --quirks', () => {
  it('parses every documented quirk, with and without values', () => {
    expect(parseQuirks('wrappers, endless-pages')).toEqual({ pathWrappers: true, endlessPages: true });
    expect(parseQuirks('scope-required')).toEqual({ requiredScope: DEFAULT_REQUIRED_SCOPE });
    expect(
      parseQuirks('scope-required=https://purl.imsglobal.org/spec/or/v1p1/scope/roster.readonly'),
    ).toEqual({
      requiredScope: 'https://purl.imsglobal.org/spec/or/v1p1/scope/roster.readonly',
    });
    expect(parseQuirks('gateway-503')).toEqual({ gateway503: { rate: 1 } });
    expect(parseQuirks('gateway-503-retry-after=0.25')).toEqual({
      gateway503: { rate: 0.25, retryAfterSeconds: 1 },
    });
    expect(parseQuirks('clock=+2h').clockOffsetMs).toBe(2 * 3_600_000);
    expect(parseQuirks('clock=-30m').clockOffsetMs).toBe(-30 * 60_000);
    expect(parseQuirks('clock=+27000d').clockOffsetMs).toBe(27_000 * 86_400_000);
    expect(parseQuirks('')).toEqual({});
    expect(QUIRK_DOCS.map((q) => q.name)).toEqual([
      'wrappers',
      'scope-required',
      'gateway-503',
      'gateway-503-retry-after',
      'clock',
      'endless-pages',
    ]);
  });

  it.each([
    ['wrapper', /unknown quirk "wrapper"/],
    ['wrappers=yes', /wrappers takes no value/],
    ['gateway-503=2', /fraction from 0 to 1/],
    ['clock=2h', /signed offset/],
    ['clock=+40000d', /at most 100 years/],
    ['clock', /signed offset/],
    ['scope-required=a"b', /printable characters/],
  ])('refuses %s as a usage error naming the problem', (list, message) => {
    const parse = () => sandboxOptions({ port: '0', host: '127.0.0.1', quirks: list });
    expect(parse).toThrow(UsageError);
    expect(parse).toThrow(message);
  });
});

describe('sandbox quirk clock', () => {
  it.each([
    ['+2h', 2 * 3_600_000],
    ['+8760h·75', 8760 * 75 * 3_600_000],
    ['-2h', -2 * 3_600_000],
  ])(
    '%s: its Date header and the dateLastModified churn stamps run that far off; tokens still last their lifetime',
    async (_, offset) => {
      let clock = Date.UTC(2026, 10, 23, 9, 0, 0);
      const sandbox = await startSandbox({
        seed: 5,
        now: () => clock,
        tokenTtlSeconds: 60,
        oneroster: { students: 10 },
        quirks: { clockOffsetMs: offset },
      });
      try {
        const token = await getToken(sandbox, 'demo-allowed', '/ims/oneroster/v1p1/token');
        const [change] = sandbox.churn(1);
        expect(change?.dateLastModified).toBe(new Date(clock + offset).toISOString());
        clock += 59_000;
        const res = await fetch(`${sandbox.baseUrl}/ims/oneroster/v1p1/users?limit=1`, {
          headers: bearer(token),
        });
        expect(res.status).toBe(200);
        expect(res.headers.get('date')).toBe(new Date(clock + offset).toUTCString());
        clock += 1_000;
        const late = await fetch(`${sandbox.baseUrl}/ims/oneroster/v1p1/users?limit=1`, {
          headers: bearer(token),
        });
        expect(late.status).toBe(401);
      } finally {
        await sandbox.close();
      }
    },
  );
});

describe('roster sandbox --host', () => {
  it.each(['0.0.0.0', '::', '192.168.1.10'])(
    'refuses %s as a usage error (exit 2) saying why, before listening',
    async (host) => {
      const result = await runCli(['sandbox', '--port', '0', '--host', host], tempDir());
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`Invalid --host "${host}"`);
      expect(result.stderr).toMatch(/loopback only .*demo secrets are public/);
      expect(result.stderr).not.toMatch(/unexpected/i);
      expect(result.stdout).not.toContain('Sandbox listening');
    },
  );
});

describe('roster sandbox on a port in use', () => {
  it('says the port is in use and what to pass, exit 1, no stack or "unexpected failure"', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    try {
      const run = await runCli(['sandbox', '--port', String(port)], tempDir());
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toBe(
        `Error: Port ${port} is in use; pass --port N, or --port 0 for any free port.\n`,
      );
    } finally {
      taken.close();
    }
  });
});

describe('roster sandbox --quirks wrappers', () => {
  it('serves the path-named answers from its own process, and roster reads them', async () => {
    const sandbox = startCli(['sandbox', '--port', '0', '--quiet', '--quirks', 'wrappers'], tempDir(), {
      timeoutMs: 60_000,
    });
    let out = '';
    sandbox.child.stdout?.on('data', (chunk) => (out += chunk));
    try {
      await until(() => /Sandbox listening on \S+/.test(out));
      const baseUrl = /Sandbox listening on (\S+)/.exec(out)?.[1] ?? '';
      // The demo clients' secrets are the same in every sandbox.
      const secret = demoClients().find((c) => c.clientId === 'demo-allowed')?.clientSecret ?? '';
      const token = await fetch(`${baseUrl}/ims/oneroster/v1p1/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `grant_type=client_credentials&client_id=demo-allowed&client_secret=${secret}`,
      }).then((r) => r.json() as Promise<{ access_token: string }>);
      const raw = await fetch(`${baseUrl}/ims/oneroster/v1p1/schools?limit=1`, {
        headers: { authorization: `Bearer ${token.access_token}` },
      }).then((r) => r.json() as Promise<Record<string, unknown>>);
      expect(Object.keys(raw)).toEqual(['schools']);
      const result = await runCli(['--debug', 'roster', 'schools', '--limit', '1', '--json'], tempDir(), {
        env: { ROSTER_BASE_URL: baseUrl, ROSTER_CLIENT_ID: 'demo-allowed', ROSTER_CLIENT_SECRET: secret },
      });
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual(raw.schools);
      expect(result.stderr).toContain(
        '[debug] schools: the records are under "schools", named after the path',
      );
    } finally {
      sandbox.child.kill('SIGINT');
      await sandbox.done;
    }
  });
});
