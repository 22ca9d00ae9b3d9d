// The README's sample CSV (docs/sample-invitations.csv) works as the README says: sent as written with
// `invite send --file docs/sample-invitations.csv --yes`, from the checkout, against the sandbox. Each row
// reaches the API once, its school name or identifier sent as the school's sourcedId, the school not yet in
// the district's list sent as given (its row says allowUnlistedSchool), and that column never sent.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { demoEnv } from '../helpers/sandbox.js';

const ROOT = join(import.meta.dirname, '..', '..');
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());

describe('docs/sample-invitations.csv', () => {
  it('is the file the README shows inline', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const shown = /\(docs\/sample-invitations\.csv\):\n\n```csv\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(shown).toBe(readFileSync(join(ROOT, 'docs', 'sample-invitations.csv'), 'utf8'));
  });

  it('is sent as the README shows: exit 0, one invitation per row, schools resolved to sourcedIds', async () => {
    const result = await runCli(
      ['invite', 'send', '--file', 'docs/sample-invitations.csv', '--yes'],
      tempDir(),
      { env: demoEnv(sandbox), cwd: ROOT },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('Sent 4 of 4 invitations from docs/sample-invitations.csv.');

    const posted = sandbox.requests
      .filter((r) => r.method === 'POST' && r.path === '/v1/enrollment/invitations')
      .map((r) => JSON.parse(r.body))
      .sort((a, b) => a.email.localeCompare(b.email));
    expect(posted).toEqual([
      {
        email: 'j.chen@example.org',
        schoolId: 'org-sch-2',
        studentCount: 1,
        schoolYearId: 'as-2026-27',
        sentByUserId: 'adm-001',
        scopes: ['fillEnrollment'],
      },
      {
        email: 'maria.lopez@example.org',
        schoolId: 'org-sch-1',
        studentCount: 2,
        schoolYearId: 'as-2026-27',
        sentByUserId: 'adm-001',
        scopes: ['fillEnrollment'],
      },
      {
        email: 'new.family@example.org',
        schoolId: 'sch-2027',
        studentCount: 1,
        schoolYearId: 'as-2027-28',
        sentByUserId: 'adm-001',
        scopes: ['fillEnrollment'],
      },
      {
        email: 'sam.okafor@example.org',
        schoolId: 'org-sch-3',
        studentCount: 1,
        schoolYearId: 'as-2026-27',
        sentByUserId: 'adm-001',
        scopes: ['fillEnrollment'],
      },
    ]);
    expect(sandbox.outbox.map((m) => m.to).sort()).toEqual([
      'j.chen@example.org',
      'maria.lopez@example.org',
      'new.family@example.org',
      'sam.okafor@example.org',
    ]);
  });
});
