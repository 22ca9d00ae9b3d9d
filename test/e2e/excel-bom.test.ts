// CSV files roster writes for office staff open in Excel by a double-click: they start with a UTF-8 BOM
// (invite plan --out and --uncovered-csv, the failed rows, audit --csv-dir, --csv --excel), so that
// "Zoë Åkesson" is not read in the machine's ANSI code page; roster reads its own files back; OneRoster's
// files (export, --csv without --excel) keep the standard's bytes. Opened in LibreOffice headless where it
// is installed (CI installs libreoffice-calc): the header cell stays "email" and Åkesson survives.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/context.js';
import { useSandbox } from '../helpers/sandbox.js';

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const startsWithBom = (path: string) => readFileSync(path).subarray(0, 3).equals(BOM);
const SOFFICE = ['soffice', 'libreoffice'].find((name) => spawnSync('which', [name]).status === 0);

describe('CSV files for office staff start with a UTF-8 BOM', () => {
  const tests = useSandbox();

  it('invite plan --out and --uncovered-csv: a BOM, and invite send --file reads the plan back', async () => {
    const dir = tempDir();
    const out = join(dir, 'roundup.csv');
    const uncovered = join(dir, 'fix-in-sis.csv');
    const made = await tests.roster(
      ['invite', 'plan', '--school', 'org-sch-1', '--out', out, '--uncovered-csv', uncovered, '--json'],
      { timeoutMs: 60_000 },
    );
    expect(made.code).toBe(0);
    expect(startsWithBom(out)).toBe(true);
    expect(startsWithBom(uncovered)).toBe(true);
    const planned: { email: string }[] = JSON.parse(made.stdout).invitations;
    expect(planned.length).toBeGreaterThan(0);
    // The header is read as a header, not as a column named "\ufeffemail": every row's e-mail is sent.
    const dry = await tests.roster([
      'invite',
      'send',
      '--file',
      out,
      '--sent-by-user-id',
      'adm-001',
      '--dry-run',
    ]);
    expect(dry.code).toBe(0);
    const requests = dry.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(requests.map((r) => r.body.email).sort()).toEqual(planned.map((p) => p.email).sort());
  }, 60_000);

  it('the failed rows written to send again: a BOM, and the file is sent again as it is', async () => {
    const dir = tempDir();
    const file = join(dir, 'invites.csv');
    const failed = join(dir, 'failed.csv');
    writeFileSync(file, 'email,schoolId,guardianNames\nzoe@example.org,org-sch-1,Zoë Åkesson\n');
    tests.sandbox.injectFault({
      match: (req) => req.method === 'POST' && req.body.includes('zoe@example.org'),
      status: 400,
      body: { message: 'Refused' },
    });
    const args = ['invite', 'send', '--file', file, '--sent-by-user-id', 'adm-001', '--failed-csv', failed];
    expect((await tests.roster(args)).code).toBe(5);
    expect(startsWithBom(failed)).toBe(true);
    expect(readFileSync(failed, 'utf8')).toContain('Zoë Åkesson');
    const again = await tests.roster(['invite', 'send', '--file', failed, '--json']);
    expect(again.code).toBe(0);
    const report = JSON.parse(again.stdout);
    expect(report.counts).toMatchObject({ total: 1, sent: 1 });
    expect(report.rows[0]).toMatchObject({ email: 'zoe@example.org', guardianNames: 'Zoë Åkesson' });
  }, 60_000);

  it('--csv --excel starts with a BOM; --csv alone keeps the binding bytes', async () => {
    const excel = await tests.roster(['roster', 'students', '--csv', '--excel', '--limit', '3']);
    expect(excel.code).toBe(0);
    expect(excel.stdout.startsWith('\ufeffsourcedId,')).toBe(true);
    expect(excel.stdout).toContain('Zoë');
    const plain = await tests.roster(['roster', 'students', '--csv', '--limit', '3']);
    expect(plain.stdout.startsWith('sourcedId,')).toBe(true);
    const misplaced = await tests.roster(['roster', 'students', '--excel']);
    expect(misplaced.code).toBe(2);
    expect(misplaced.stderr).toContain('--excel goes with --csv.');
    expect(tests.sandbox.requests.filter((r) => r.path.includes('/students')).length).toBe(2);
  });

  it('roster export keeps the OneRoster CSV bytes: no BOM', async () => {
    const out = join(tempDir(), 'export');
    const result = await tests.roster(['roster', 'export', '--out', out], { timeoutMs: 60_000 });
    expect(result.code).toBe(0);
    const files = readdirSync(out).filter((name) => name.endsWith('.csv'));
    expect(files).toContain('users.csv');
    for (const name of files) expect(startsWithBom(join(out, name))).toBe(false);
  }, 60_000);
});

describe('a plan opened in LibreOffice headless, read as UTF-8 (as Excel reads it once the BOM says so)', () => {
  const tests = useSandbox();
  if (!SOFFICE) it.skip('skipped: no soffice on this machine (CI installs libreoffice-calc)', () => {});
  it.runIf(SOFFICE)(
    'the BOM is no stray character of the header cell, and Åkesson survives',
    async () => {
      const dir = tempDir();
      const out = join(dir, 'plan.csv');
      const made = await tests.roster(['invite', 'plan', '--school', 'org-sch-1', '--out', out]);
      expect(made.code).toBe(0);
      expect(startsWithBom(out)).toBe(true);
      // CSV:44,34,76: comma, double quote, UTF-8. LibreOffice headless does not choose the charset by the
      // BOM (told Windows-1252 it shows ZoÃ« with or without one), so it cannot stand in for Excel's choice.
      const converted = spawnSync(
        SOFFICE as string,
        ['--headless', '--infilter=CSV:44,34,76', '--convert-to', 'html', '--outdir', dir, out],
        { env: { ...process.env, HOME: dir }, timeout: 120_000, encoding: 'utf8' },
      );
      expect(converted.status).toBe(0);
      const html = readFileSync(join(dir, 'plan.html'), 'utf8');
      expect(html).not.toContain('\ufeff');
      expect(html).toMatch(/<td[^>]*>email<\/td>/);
      expect(html).toContain('Åkesson');
      expect(html).not.toContain('Ã');
    },
    180_000,
  );
});
