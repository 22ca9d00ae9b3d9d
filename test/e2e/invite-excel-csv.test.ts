// `invite send --file` with CSVs as Excel writes them (delimiters, encodings, line ends), every problem of a
// file in one pass, and invitations to a school id the district's list does not have (--allow-unlisted-school,
// an allowUnlistedSchool column): the built CLI against the sandbox, counting what reached it.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/context.js';
import { startPty } from '../helpers/pty.js';
import { demoEnv, useSandbox } from '../helpers/sandbox.js';

const fixture = useSandbox();
const sender = ['--sent-by-user-id', 'usr-42'];
const { roster } = fixture;
const sendFile = (file: string, ...more: string[]) =>
  roster(['invite', 'send', '--file', file, ...sender, ...more]);
/** The invitations that reached the server, by e-mail: a bulk send runs several at once, in any order. */
const posts = () =>
  fixture.sandbox.requests
    .filter((r) => r.method === 'POST' && r.path === '/v1/enrollment/invitations')
    .map((r) => JSON.parse(r.body) as { email: string; schoolId: string; studentCount: number })
    .sort((a, b) => a.email.localeCompare(b.email));

const write = (name: string, bytes: Buffer | string) => {
  const file = join(tempDir(), name);
  writeFileSync(file, bytes);
  return file;
};

/** UTF-16 big endian, as Buffer has no encoder for it: the little-endian bytes swapped pairwise. */
const utf16be = (text: string) => Buffer.from(text, 'utf16le').swap16();
const BOM = '\ufeff';

/** The same rows, as each of Excel's "Save as" choices writes them (`tag` keeps each file's addresses apart). */
const rows = (tag: string) => [
  ['email', 'schoolId', 'studentCount', 'studentNames'],
  [`zoe.${tag}@example.org`, 'Alder Elementary School', '2', 'Müller, Zoë; Müller, Jonas'],
  [`jose.${tag}@example.org`, 'org-sch-2', '1', 'José "Pepe" Núñez'],
  [`li.${tag}@example.org`, 'Cedar Elementary School', '3', '李, 小龍'],
];
const quoteFor = (d: string) => (cell: string) =>
  cell.includes(d) || cell.includes('"') ? `"${cell.replace(/"/g, '""')}"` : cell;
const text = (d: string, tag: string) =>
  `${rows(tag)
    .map((r) => r.map(quoteFor(d)).join(d))
    .join('\r\n')}\r\n`;

describe('CSVs as Excel writes them', () => {
  const dryBodies = (stdout: string) =>
    stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { line: number; body: { email: string; schoolId: string } })
      .map((r) => [r.line, r.body.email, r.body.schoolId]);

  it('semicolon + BOM + CRLF, tab in UTF-16LE with BOM, UTF-16BE, comma + BOM: the same rows reach the server', async () => {
    const utf16le = (t: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(t, 'utf16le')]);
    const files: [string, string][] = [
      ['semi', write('semi.csv', BOM + text(';', 'semi'))], // "CSV UTF-8" where the decimal mark is a comma
      ['tab16le', write('unicode.txt', utf16le(text('\t', 'tab16le')))], // "Unicode Text"
      [
        'tab16be',
        write('be.txt', Buffer.concat([Buffer.from([0xfe, 0xff]), utf16be(text('\t', 'tab16be'))])),
      ],
      ['comma', write('comma.csv', BOM + text(',', 'comma'))], // "CSV UTF-8"
      ['plain', write('plain.csv', text(',', 'plain').replace(/\r\n/g, '\n'))],
    ];
    for (const [tag, file] of files) {
      fixture.sandbox.requests.length = 0;
      const sent = await sendFile(file, '--json');
      expect({ tag, code: sent.code }).toEqual({ tag, code: 0 });
      const report = JSON.parse(sent.stdout) as { rows: Record<string, unknown>[] };
      expect(report.rows.map((r) => [r.line, r.email, r.schoolId, r.studentNames])).toEqual([
        [2, `zoe.${tag}@example.org`, 'org-sch-1', 'Müller, Zoë; Müller, Jonas'],
        [3, `jose.${tag}@example.org`, 'org-sch-2', 'José "Pepe" Núñez'],
        [4, `li.${tag}@example.org`, 'org-sch-3', '李, 小龍'],
      ]);
      expect(posts().map((b) => [b.email, b.schoolId, b.studentCount])).toEqual([
        [`jose.${tag}@example.org`, 'org-sch-2', 1],
        [`li.${tag}@example.org`, 'org-sch-3', 3],
        [`zoe.${tag}@example.org`, 'org-sch-1', 2],
      ]);
    }
  });

  it('--delimiter forces one, over what the header suggests', async () => {
    // Forcing the wrong one: the header is one unknown column, with what to do about it.
    const semi = write('semi.csv', BOM + text(';', 'forced'));
    const wrong = await sendFile(semi, '--delimiter', 'comma', '--dry-run');
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('the header holds a semicolon: pass --delimiter semicolon');
    const forced = await sendFile(semi, '--delimiter', 'semicolon', '--dry-run');
    expect(forced.code).toBe(0);
    expect(dryBodies(forced.stdout)).toHaveLength(3);
    // A tab-delimited file is found by its header; `\t` typed as backslash-t forces it too.
    const tabs = write('tabs.txt', 'email\tschoolId\r\nt1@example.org\tBirch Elementary School\r\n');
    expect(dryBodies((await sendFile(tabs, '--dry-run')).stdout)).toEqual([
      [2, 't1@example.org', 'org-sch-2'],
    ]);
    expect(dryBodies((await sendFile(tabs, '--delimiter', '\\t', '--dry-run')).stdout)).toHaveLength(1);
    const bad = await sendFile(semi, '--delimiter', 'pipe');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('Invalid --delimiter "pipe": expected comma, semicolon or tab.');
    const single = await roster(['invite', 'send', '--email', 'a@example.org', '--delimiter', 'tab']);
    expect(single.code).toBe(2);
    expect(single.stderr).toContain('--delimiter go with --file');
    expect(posts()).toHaveLength(0);
  });

  it('a file that is not UTF-8 (Excel\'s plain "CSV" in Windows-1252) is refused, naming the line', async () => {
    const file = write(
      'ansi.csv',
      Buffer.concat([
        Buffer.from('email,schoolId\r\nok@example.org,org-sch-1\r\n'),
        Buffer.from('m\xfcller@example.org,org-sch-1\r\n', 'latin1'),
      ]),
    );
    const result = await sendFile(file);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `Cannot read --file ${file}: line 3 is not UTF-8 text; save it from Excel as "CSV UTF-8 (Comma delimited)" or "Unicode Text".`,
    );
    expect(posts()).toHaveLength(0);
  });

  it('every problem of a file in one pass, with lines: e-mail, unknown and ambiguous schools, a short row', async () => {
    const file = write(
      'bad.csv',
      BOM +
        'email;schoolId;studentCount\r\n' +
        'fine@example.org;Alder Elementary School;1\r\n' +
        'not-an-address;Birch Elementary School;1\r\n' +
        'typo@example.org;Alder Elementery School;1\r\n' +
        'two@example.org;Fir Grove School;1\r\n' +
        'short@example.org;org-sch-1\r\n' +
        'both-bad;Oak Elementary School;x\r\n',
    );
    const result = await sendFile(file, '--json');
    expect(result.code).toBe(2);
    const lines = [...result.stderr.matchAll(/^ {2}line (\d+): (.*)$/gm)].map((m) => [Number(m[1]), m[2]]);
    expect(lines.map(([line]) => line)).toEqual([3, 4, 5, 6, 7]);
    expect(lines[0]?.[1]).toBe('email "not-an-address" is not a valid e-mail address');
    expect(lines[1]?.[1]).toContain(
      'schoolId "Alder Elementery School" is not the name, identifier or sourcedId of a school of this district',
    );
    expect(lines[2]?.[1]).toContain('schoolId "Fir Grove School" matches 2 schools');
    expect(lines[3]?.[1]).toBe('2 fields, but the header has 3');
    // A row bad in several ways has each said.
    expect(lines[4]?.[1]).toContain('email "both-bad" is not a valid e-mail address');
    expect(lines[4]?.[1]).toContain('studentCount must be a positive whole number');
    expect(lines[4]?.[1]).toContain('schoolId "Oak Elementary School" is not the name');
    expect(result.stderr).toContain('5 problems found (listed above); nothing was sent.');
    expect(result.stderr).toContain('pass --allow-unlisted-school ID');
    expect(JSON.parse(result.stdout).problems).toHaveLength(5);
    expect(posts()).toHaveLength(0);
  });

  it('--help lists the columns and the formats', async () => {
    const help = await roster(['invite', 'send', '--help']);
    const flat = help.stdout.replace(/\s+/g, ' ');
    expect(flat).toContain(
      'CSV columns (header names in any case, e.g. school_id): email, schoolId, scopes, interestFormSubmissionId, studentCount, learningCenterId, schoolYearId, sentByUserId (and, not sent: allowUnlistedSchool,',
    );
    expect(flat).toContain('comma, semicolon or tab delimited');
    expect(flat).toContain('--allow-unlisted-school <id>');
    expect(flat).toContain('--delimiter <name>');
  });
});

describe('a school id the district does not list', () => {
  const single = (...more: string[]) =>
    roster([
      'invite',
      'send',
      '--email',
      'new-school@example.org',
      '--school-id',
      'sch-2027',
      ...sender,
      ...more,
    ]);

  it('a single send: refused without the flag (exit 2, the way past it named); sent with it, said on stderr', async () => {
    const refused = await single();
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      'Error: --school-id "sch-2027" is not the name, identifier or sourcedId of a school of this district.',
    );
    expect(refused.stderr).toContain('pass --allow-unlisted-school ID');
    expect(posts()).toHaveLength(0);

    // The flag names the id: another unknown one is still refused.
    const other = await single('--allow-unlisted-school', 'sch-2028');
    expect(other.code).toBe(2);
    expect(posts()).toHaveLength(0);

    const dry = await single('--allow-unlisted-school', 'sch-2027', '--dry-run', '--json');
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ body: { schoolId: 'sch-2027' }, unlistedSchool: true });

    const sent = await single('--allow-unlisted-school', 'sch-2027');
    expect(sent.code).toBe(0);
    expect(sent.stderr).toContain(
      "Warning: --school-id sch-2027 is not in the district's list of schools; sent as given (--allow-unlisted-school).",
    );
    expect(posts().map((b) => b.schoolId)).toEqual(['sch-2027']);
  });

  it('an ambiguous name is never an unlisted id, whatever the flag', async () => {
    const result = await roster([
      'invite',
      'send',
      '--email',
      'amb@example.org',
      '--school-id',
      'Fir Grove School',
      '--allow-unlisted-school',
      'Fir Grove School',
      ...sender,
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('matches 2 schools');
    expect(posts()).toHaveLength(0);
  });

  it('per row: the allowUnlistedSchool column or the flag; the report and summary say which rows', async () => {
    const rows =
      'email,schoolId,allowUnlistedSchool\r\n' +
      'listed@example.org,org-sch-1,\r\n' +
      'marked@example.org,sch-2027,yes\r\n' +
      'flagged@example.org,sch-2028,\r\n' +
      'unmarked@example.org,sch-2029,no\r\n';
    const file = write('unlisted.csv', rows);
    const refused = await sendFile(file);
    expect(refused.code).toBe(2);
    const problems = [...refused.stderr.matchAll(/^ {2}line (\d+): /gm)].map((m) => Number(m[1]));
    expect(problems).toEqual([4, 5]);
    expect(posts()).toHaveLength(0);

    const bad = write(
      'bad-mark.csv',
      'email,schoolId,allowUnlistedSchool\r\nm@example.org,sch-2027,maybe\r\n',
    );
    const badMark = await sendFile(bad);
    expect(badMark.code).toBe(2);
    expect(badMark.stderr).toContain('  line 2: allowUnlistedSchool "maybe" is not yes or no');

    const fixed = write('fixed.csv', rows.replace('sch-2029,no', 'sch-2029,TRUE'));
    const sent = await sendFile(fixed, '--allow-unlisted-school', 'sch-2028', '--json');
    expect(sent.code).toBe(0);
    expect(posts().map((b) => [b.email, b.schoolId])).toEqual([
      ['flagged@example.org', 'sch-2028'],
      ['listed@example.org', 'org-sch-1'],
      ['marked@example.org', 'sch-2027'],
      ['unmarked@example.org', 'sch-2029'],
    ]);
    const report = JSON.parse(sent.stdout) as { rows: { line: number; unlistedSchool?: boolean }[] };
    expect(report.rows.map((r) => [r.line, r.unlistedSchool ?? false])).toEqual([
      [2, false],
      [3, true],
      [4, true],
      [5, true],
    ]);
    expect(sent.stderr).toContain(
      "  Sent to 3 school ids not in the district's list of schools (--allow-unlisted-school): sch-2027 (line 3); sch-2028 (line 4); sch-2029 (line 5).",
    );
  });

  it('a flag id no row uses is warned about (a typo of the one meant?)', async () => {
    const file = write('typo.csv', 'email,schoolId\r\nt@example.org,org-sch-1\r\n');
    const result = await sendFile(file, '--allow-unlisted-school', 'sch-2O27', '--dry-run');
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      'Warning: --allow-unlisted-school sch-2O27: no row of the file has that schoolId.',
    );
  });

  it('failed rows to an unlisted school keep their mark in the failed-rows CSV, to be sent again as they are', async () => {
    fixture.sandbox.injectFault({
      match: (r) => r.method === 'POST' && r.body.includes('sch-2027'),
      status: 400,
      body: { success: false, message: 'Unknown school' },
      times: 1,
    });
    const file = write('fail.csv', 'email,schoolId\r\nf@example.org,sch-2027\r\n');
    const failedCsv = join(tempDir(), 'failed.csv');
    const result = await sendFile(file, '--allow-unlisted-school', 'sch-2027', '--failed-csv', failedCsv);
    expect(result.code).toBe(5);
    expect(readFileSync(failedCsv, 'utf8').split('\r\n')[0]).toContain('sentByUserId,allowUnlistedSchool');
    fixture.sandbox.requests.length = 0;
    const again = await sendFile(failedCsv);
    expect(again.code).toBe(0);
    expect(posts().map((b) => b.schoolId)).toEqual(['sch-2027']);
  });

  it('a single send on a terminal: the unlisted id named and asked about before the usual confirmation', async () => {
    const args = ['invite', 'send', '--email', 'tty1@example.org', '--school-id', 'sch-2027', ...sender];
    const run = startPty(
      [...args, '--allow-unlisted-school', 'sch-2027'],
      fixture.home,
      demoEnv(fixture.sandbox),
    );
    await run.waitFor("This school id is not in the district's list of schools");
    await run.waitFor('Send to this unlisted school id?');
    run.type('n\r');
    const declined = await run.done;
    expect(declined.code).toBe(130);
    expect(declined.stdout).toContain('Cancelled; nothing was sent.');
    expect(posts()).toHaveLength(0);
    const yes = startPty(
      [...args, '--allow-unlisted-school', 'sch-2027'],
      fixture.home,
      demoEnv(fixture.sandbox),
    );
    await yes.waitFor('Send to this unlisted school id?');
    yes.type('y\r');
    await yes.waitFor('Send it to tty1@example.org?');
    yes.type('y\r');
    expect((await yes.done).code).toBe(0);
    expect(posts().map((b) => b.schoolId)).toEqual(['sch-2027']);
  });

  it.each([
    ['Ctrl-C', '\u0003'],
    ['Esc', '\u001b'],
  ])('%s at the unlisted-school question: exit 130, nothing sent', async (_name, key) => {
    const file = write('tty-cancel.csv', 'email,schoolId\r\ntty-cancel@example.org,sch-2027\r\n');
    const args = ['invite', 'send', '--file', file, ...sender, '--allow-unlisted-school', 'sch-2027'];
    const run = startPty(args, fixture.home, demoEnv(fixture.sandbox));
    await run.waitFor('Send to this unlisted school id?');
    run.type(key);
    const result = await run.done;
    expect(result.code).toBe(130);
    expect(result.stdout).toContain('Cancelled; nothing was sent.');
    expect(posts()).toHaveLength(0);
  });

  it('on a terminal the unlisted id is named and confirmed; "no" sends nothing', async () => {
    const file = write('tty.csv', 'email,schoolId\r\ntty@example.org,sch-2027\r\n');
    const args = ['invite', 'send', '--file', file, ...sender, '--allow-unlisted-school', 'sch-2027'];
    const no = startPty(args, fixture.home, demoEnv(fixture.sandbox));
    await no.waitFor("This school id is not in the district's list of schools");
    await no.waitFor('sch-2027: line 2');
    await no.waitFor('Send to this unlisted school id?');
    no.type('n\r');
    const refused = await no.done;
    expect(refused.code).toBe(130);
    expect(refused.stdout).toContain('Cancelled; nothing was sent.');
    expect(posts()).toHaveLength(0);

    const yes = startPty(args, fixture.home, demoEnv(fixture.sandbox));
    await yes.waitFor('Send to this unlisted school id?');
    yes.type('y\r');
    await yes.waitFor('Send 1 invitation?');
    yes.type('y\r');
    expect((await yes.done).code).toBe(0);
    expect(posts().map((b) => b.schoolId)).toEqual(['sch-2027']);
  });
});
