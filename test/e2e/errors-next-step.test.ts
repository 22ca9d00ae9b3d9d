// Errors that say what to do: a sandbox port in use names --port, a profile that is not the default is
// named in the login it needs, and a certificate for another host name is not "fixed" by NODE_EXTRA_CA_CERTS.

import { mkdirSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { makeTestPki, type TestPki } from '../helpers/tls.js';

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

describe('a profile named by --profile', () => {
  it('status and a command name --profile nosuch in the login they need, and the profiles saved', async () => {
    const home = tempDir();
    const status = await runCli(['--profile', 'nosuch', 'status'], home);
    expect(status.code).toBe(4);
    expect(status.stderr).toContain(
      'Error: Profile "nosuch" has no credentials. Run `roster login --profile nosuch`, or set ROSTER_CLIENT_ID and ROSTER_CLIENT_SECRET.',
    );
    const check = await runCli(['attendance', 'check'], home, { env: { ROSTER_PROFILE: 'nosuch' } });
    expect(check.code).toBe(4);
    expect(check.stderr).toContain('Run `roster login --profile nosuch`, or pass --base-url');
    const plain = await runCli(['status'], home);
    expect(plain.stderr).toContain('Run `roster login`, or set ROSTER_CLIENT_ID');
  });

  it('a profile never saved (a typo) lists the saved ones', async () => {
    const home = tempDir();
    mkdirSync(join(home, '.config', 'roster'), { recursive: true });
    writeFileSync(
      join(home, '.config', 'roster', 'config.json'),
      JSON.stringify({ profiles: { east: { baseUrl: 'https://e.example/v1' }, west: {} } }),
    );
    const typo = await runCli(['--profile', 'esat', 'status'], home);
    expect(typo.code).toBe(4);
    expect(typo.stderr).toContain(
      'Run `roster login --profile esat`, or set ROSTER_CLIENT_ID and ROSTER_CLIENT_SECRET. No profile "esat" is saved; saved profiles: east, west.',
    );
  });
});

describe('an e-mail refused for a letter outside ASCII', () => {
  it('names the letter, its code point and why, exit 2, nothing sent', async () => {
    const sandbox = await startSandbox();
    try {
      const env = {
        ROSTER_BASE_URL: sandbox.baseUrl,
        ROSTER_CLIENT_ID: 'demo-allowed',
        ROSTER_CLIENT_SECRET: 'riverside-secret-2024',
      };
      const send = ['invite', 'send', '--school-id', 'org-sch-1', '--sent-by-user-id', 'adm-001', '--yes'];
      const name = await runCli([...send, '--email', 'zoë@example.org'], tempDir(), { env });
      expect(name.code).toBe(2);
      expect(name.stderr).toContain(
        'Error: Invalid invitation: --email "zoë@example.org" contains "ë" (U+00EB), which is not ASCII: mail systems do not all deliver to international addresses, so the name must be plain ASCII; ask the family for an address in plain letters (a-z, 0-9 . _ + -). Nothing was sent.',
      );
      const domain = await runCli([...send, '--email', 'parent@école.example'], tempDir(), { env });
      expect(domain.code).toBe(2);
      expect(domain.stderr).toContain('contains "é" (U+00E9), which is not ASCII');
      expect(domain.stderr).toContain(
        'the domain must be plain ASCII; write the domain in its ASCII (xn--) form',
      );
      expect(sandbox.requests).toEqual([]);
    } finally {
      await sandbox.close();
    }
  });
});

describe('a certificate for another host name', () => {
  let pki: TestPki;
  let sandbox: Sandbox;
  beforeAll(async () => {
    pki = makeTestPki('DNS:api.district.example');
    sandbox = await startSandbox({ tls: { key: pki.key, cert: pki.cert } });
  });
  afterAll(() => sandbox.close());

  it('says to use the name it was issued for, never NODE_EXTRA_CA_CERTS, even with the CA trusted', async () => {
    const env = {
      ROSTER_BASE_URL: sandbox.baseUrl,
      ROSTER_CLIENT_ID: 'demo-allowed',
      ROSTER_CLIENT_SECRET: 'riverside-secret-2024',
      NODE_EXTRA_CA_CERTS: pki.caFile,
    };
    const run = await runCli(['attendance', 'check'], tempDir(), { env });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^Error: The certificate of 127\.0\.0\.1:\d+ is not trusted: /);
    expect(run.stderr).toContain('The certificate is for another host name: use the name it was issued for');
    expect(run.stderr).not.toContain('NODE_EXTRA_CA_CERTS');
    expect(sandbox.requests).toHaveLength(0);

    const doctor = await runCli(['doctor', '--only', 'reachable'], tempDir(), { env });
    expect(doctor.code).toBe(1);
    expect(doctor.stdout + doctor.stderr).toContain('api.district.example');
    expect(doctor.stdout + doctor.stderr).not.toContain('NODE_EXTRA_CA_CERTS');
  });
});
