// A server that serves new records forever (the sandbox's endless-pages quirk: every page full, with a next
// link, of records never served before) is read up to --max-records / ROSTER_MAX_RECORDS, then the read
// stops with an error that names the ceiling and how to raise it (exit 1). Counted at the server.
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/server.js';
import { type CliOptions, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { demoEnv, useSandbox } from '../helpers/sandbox.js';

const fixture = useSandbox({ quirks: { endlessPages: true }, oneroster: { students: 120 } });

const roster = (args: string[], env: Record<string, string> = {}, options: CliOptions = {}) =>
  runCli(args, fixture.home, { env: demoEnv(fixture.sandbox, 'demo-allowed', env), ...options });
const reads = (path: string) =>
  fixture.sandbox.requests.filter((r) => r.method === 'GET' && r.path.endsWith(path));
const lines = (text: string) => text.split('\n').filter((line) => line !== '');

describe('a list that never ends', () => {
  it('roster students --all stops at ROSTER_MAX_RECORDS: exactly that many written, one page more asked, exit 1', async () => {
    const result = await roster(['roster', 'students', '--all', '--page-size', '100', '--ndjson'], {
      ROSTER_MAX_RECORDS: '500',
    });
    expect(result.code).toBe(1);
    const ids = lines(result.stdout).map((line) => JSON.parse(line).sourcedId);
    expect(ids).toHaveLength(500);
    expect(new Set(ids).size).toBe(500); // every one new: the server went past its 120 students
    // Five full pages, then the sixth shows the list goes on.
    expect(reads('/students')).toHaveLength(6);
    expect(result.stderr).toContain(
      'Reading students: stopped at 500 records, the ceiling of one read, and the server still serves more',
    );
    expect(result.stderr).toMatch(/raise the ceiling with --max-records N or ROSTER_MAX_RECORDS=N/);
  });

  it('--max-records wins over the variable', async () => {
    const result = await roster(
      ['roster', 'students', '--all', '--page-size', '100', '--json', '--max-records', '200'],
      { ROSTER_MAX_RECORDS: '500' },
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('stopped at 200 records');
    expect(reads('/students')).toHaveLength(3);
    // The JSON array is left open: an incomplete read cannot pass for a complete one.
    expect(() => JSON.parse(result.stdout)).toThrow();
  });

  it('a list exactly as long as the ceiling is complete (the read ends on the empty page after it)', async () => {
    const sandboxEnds = await startSandbox({ oneroster: { students: 120 } });
    try {
      const result = await runCli(
        ['roster', 'students', '--all', '--page-size', '60', '--ndjson', '--max-records', '120'],
        fixture.home,
        { env: demoEnv(sandboxEnds) },
      );
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(lines(result.stdout)).toHaveLength(120);
    } finally {
      await sandboxEnds.close();
    }
  });

  it('roster invite list --all stops at the ceiling too: exit 1, the message, pages counted', async () => {
    const result = await roster(['invite', 'list', '--all', '--per-page', '100', '--ndjson'], {
      ROSTER_MAX_RECORDS: '300',
    });
    expect(result.code).toBe(1);
    expect(lines(result.stdout)).toHaveLength(300);
    expect(reads('/enrollment/invitations')).toHaveLength(4);
    expect(result.stderr).toContain('Reading invitations: stopped at 300 records');
    expect(result.stderr).not.toMatch(/repeats/);
  });

  it('roster roster export stops at the first collection that reaches it, exit 1', async () => {
    const out = tempDir();
    const result = await roster(['roster', 'export', '--out', out, '--page-size', '100'], {
      ROSTER_MAX_RECORDS: '250',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/stopped at 250 records, the ceiling of one read/);
    const pages = fixture.sandbox.requests.filter(
      (r) => r.method === 'GET' && r.path.includes('/ims/oneroster/'),
    );
    expect(pages).toHaveLength(3);
  });

  it('roster roster audit stops at it too (it read up to the default ten million before), exit 1', async () => {
    const result = await roster(['roster', 'audit', '--check', 'org-cycle', '--page-size', '100'], {
      ROSTER_MAX_RECORDS: '250',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/Reading orgs: stopped at 250 records, the ceiling of one read/);
    expect(reads('/orgs')).toHaveLength(3);
  });

  it('invite plan: the students read stops at the ceiling, and so do the schools and invitations it checks', async () => {
    const result = await roster(['invite', 'plan', '--school', 'org-sch-1'], { ROSTER_MAX_RECORDS: '300' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'Error: Reading the students of org-sch-1: stopped at 300 records, the ceiling of one read',
    );
    // The schools directory and the server's invitation list are checks: each stops at the ceiling too
    // and the plan says what it could not check.
    expect(result.stderr).toMatch(/could not read the district's schools .*stopped at 300 records/);
    expect(result.stdout).toBe('');
    for (const path of ['/schools', '/enrollment/invitations']) {
      expect(reads(path).length, path).toBeLessThanOrEqual(301);
    }
    expect(fixture.sandbox.requests.filter((r) => r.method === 'POST' && !r.path.endsWith('/token'))).toEqual(
      [],
    );
  });

  it.each([
    ['0', 'ROSTER_MAX_RECORDS'],
    ['ten', 'ROSTER_MAX_RECORDS'],
    ['1e6', 'ROSTER_MAX_RECORDS'],
  ])('ROSTER_MAX_RECORDS=%s is a usage error naming %s, nothing sent', async (value, source) => {
    const result = await roster(['roster', 'students', '--all'], { ROSTER_MAX_RECORDS: value });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`Invalid record ceiling "${value}" from ${source}`);
    expect(fixture.sandbox.requests).toHaveLength(0);
  });
});
