// `roster invite plan` against a OneRoster server on 127.0.0.1 serving what a real SIS holds by mistake and
// the sandbox never does: a student record naming 320,000 agents (a 16 MB page), a staff address entered
// as the guardian of 10,000 students, e-mails and ids a spreadsheet would run as formulas. The built CLI,
// real HTTP; what reached the server is counted.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import {
  type ScriptedRequest,
  type ScriptedServer,
  startScriptedServer,
} from '../helpers/scripted-server.js';

const V11 = '/ims/oneroster/v1p1';
const ref = (sourcedId: string, type = 'user') => ({ sourcedId, type, href: `/users/${sourcedId}` });

interface District {
  schools: { sourcedId: string; name: string }[];
  /** Students served by GET …/schools/{id}/students (every school alike). */
  students: object[];
  /** Everyone served by GET …/users. */
  users: object[];
}

const student = (id: string, school: string, agents: string[], extra = {}) => ({
  sourcedId: id,
  status: 'active',
  givenName: `Kid ${id}`,
  familyName: 'Doe',
  role: 'student',
  orgs: [ref(school, 'org')],
  grades: ['03'],
  agents: agents.map((a) => ref(a)),
  ...extra,
});
const parent = (id: string, email: string, children: string[] = []) => ({
  sourcedId: id,
  status: 'active',
  givenName: `Parent ${id}`,
  familyName: 'Doe',
  role: 'parent',
  email,
  orgs: [ref('district', 'org')],
  agents: children.map((c) => ref(c)),
});

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A OneRoster 1.1 district and the invitation API; every list fits on its first page. */
async function serve(district: District): Promise<ScriptedServer> {
  // Serialized once: the pages are large, and every request gets the same bytes.
  const pages = {
    schools: Buffer.from(
      JSON.stringify({
        orgs: district.schools.map((s) => ({ ...s, status: 'active', type: 'school' })),
      }),
    ),
    students: Buffer.from(JSON.stringify({ users: district.students })),
    users: Buffer.from(JSON.stringify({ users: district.users })),
  };
  const json = { 'content-type': 'application/json' };
  const page = (request: ScriptedRequest, body: Buffer) =>
    Number(request.query.get('offset') ?? 0) > 0
      ? { body: { users: [], orgs: [] } }
      : { headers: json, body };
  server = await startScriptedServer((request) => {
    const path = decodeURIComponent(request.path);
    if (path.endsWith('/token'))
      return { body: { access_token: 'tok-1', token_type: 'bearer', expires_in: 3600 } };
    if (path.endsWith('/enrollment/invitations'))
      return request.method === 'POST'
        ? { status: 201, body: { success: true, message: 'Invitation sent' } }
        : { status: 404, body: { message: 'no list here' } };
    if (path.endsWith(`${V11}/schools`)) return page(request, pages.schools);
    if (/\/schools\/.+\/students$/.test(path)) return page(request, pages.students);
    if (path.endsWith(`${V11}/users`)) return page(request, pages.users);
    return { status: 404, body: { message: 'not found' } };
  });
  return server;
}

const env = (sb: ScriptedServer) => ({
  ROSTER_BASE_URL: sb.baseUrl,
  ROSTER_CLIENT_ID: 'client-1',
  ROSTER_CLIENT_SECRET: 'secret-1',
});
const plan = (sb: ScriptedServer, home: string, args: string[]) =>
  runCli(['invite', 'plan', '--oneroster', '1.1', ...args], home, { env: env(sb), timeoutMs: 55_000 });
const posts = (sb: ScriptedServer) =>
  sb.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/enrollment/invitations'));

describe('a student record naming 320,000 agents', () => {
  it('is planned in linear time: one invitation, within the test timeout (295 s of CPU when quadratic)', async () => {
    const agents = Array.from({ length: 320_000 }, (_, i) => `gdn-${i}`);
    const sb = await serve({
      schools: [{ sourcedId: 'sch-1', name: 'Alder' }],
      students: [student('stu-big', 'sch-1', agents)],
      users: [parent('gdn-0', 'family@example.org'), parent('gdn-7', '')],
    });
    const result = await plan(sb, tempDir(), ['--school', 'sch-1', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const body = JSON.parse(result.stdout);
    expect(body.invitations).toEqual([
      expect.objectContaining({ email: 'family@example.org', schoolId: 'sch-1', studentCount: 1 }),
    ]);
    expect(body.uncovered).toEqual([]);
    // The page really was that large.
    const studentsRead = sb.requests.filter((r) => r.path.endsWith('/students'));
    expect(studentsRead.length).toBeGreaterThan(0);
    // Twice the default timeout: this machine's CPU is shared, and the quadratic version needs 295 s.
  }, 60_000);
});

describe('an e-mail linked to more children at one school than --max-children', () => {
  const STAFF = 10_000;
  const district = (): District => {
    const kids = Array.from({ length: STAFF }, (_, i) => `stu-${i}`);
    return {
      schools: [{ sourcedId: 'sch-1', name: 'Alder' }],
      students: [
        ...kids.map((id) => student(id, 'sch-1', [])),
        student('twin-1', 'sch-1', ['mum']),
        student('twin-2', 'sch-1', ['mum']),
      ],
      users: [
        // The office's address entered as the guardian of every student.
        parent('office', 'Office@Alder.example.org', kids),
        parent('mum', 'mum@example.org'),
      ],
    };
  };

  it('is warned about with its count, left out of the plan, and its children listed uncovered with that reason', async () => {
    const sb = await serve(district());
    const home = tempDir();
    const uncovered = join(home, 'uncovered.csv');
    const out = join(home, 'plan.csv');
    const result = await plan(sb, home, [
      '--school',
      'sch-1',
      '--out',
      out,
      '--uncovered-csv',
      uncovered,
      '--json',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      'Warning: 1 e-mail is linked to more than 12 children at one school, and left out of the plan (a staff or school address? check the SIS, or raise --max-children): Office@Alder.example.org (10000 children at Alder).',
    );
    expect(result.stderr).toContain(
      'Alder: 10002 students in scope: 2 covered by 1 invitation, 10000 without a guardian e-mail; 0 already invited; 1 e-mail with too many children left out (--max-children)',
    );
    const body = JSON.parse(result.stdout);
    expect(body.invitations).toEqual([
      expect.objectContaining({ email: 'mum@example.org', studentCount: 2 }),
    ]);
    expect(body.tooManyChildren).toEqual([
      { email: 'Office@Alder.example.org', schoolId: 'sch-1', children: STAFF },
    ]);
    expect(body.skipped).toContainEqual({
      email: 'Office@Alder.example.org',
      schoolId: 'sch-1',
      reason: '10000 children at this school, more than --max-children 12',
    });
    expect(body.uncovered).toHaveLength(STAFF);
    expect(body.uncovered[0].reason).toBe('guardian e-mail with too many children (--max-children)');
    expect(readFileSync(out, 'utf8')).not.toContain('ffice@');
    const rows = readFileSync(uncovered, 'utf8').split('\r\n');
    expect(rows).toHaveLength(STAFF + 2);
    expect(rows[1]).toBe('stu-0,Kid stu-0 Doe,guardian e-mail with too many children (--max-children)');
  });

  it('is planned when --max-children is raised above its count', async () => {
    const sb = await serve(district());
    const result = await plan(sb, tempDir(), ['--school', 'sch-1', '--max-children', '10000', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toContain('Warning: 1 e-mail');
    const body = JSON.parse(result.stdout);
    expect(body.invitations).toContainEqual(
      expect.objectContaining({ email: 'Office@Alder.example.org', studentCount: STAFF }),
    );
    expect(body.uncovered).toEqual([]);
  });

  it.each(['0', '-3', '2.5', 'lots', ''])(
    '--max-children %j is a usage error before any request',
    async (n) => {
      const sb = await serve(district());
      const result = await plan(sb, tempDir(), ['--school', 'sch-1', '--max-children', n]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('Invalid --max-children');
      expect(sb.requests).toEqual([]);
    },
  );
});

describe('e-mails and ids a spreadsheet would run as formulas', () => {
  const SCHOOL = "+sch|' /C calc'!A0";
  const district = (): District => ({
    schools: [{ sourcedId: SCHOOL, name: 'Alder' }],
    students: [
      student("+cmd|' /C calc'!A0", SCHOOL, ['g-1']),
      student('-2+3', SCHOOL, [], { givenName: '@SUM(1)', familyName: '' }),
      student('stu-plain', SCHOOL, ['g-2']),
    ],
    users: [parent('g-1', '=1+1@example.org'), parent('g-2', 'home@example.org')],
  });

  it('never reach the plan or uncovered CSV live; invite send --file of that plan sends the true address', async () => {
    const sb = await serve(district());
    const home = tempDir();
    const out = join(home, 'plan.csv');
    const uncovered = join(home, 'uncovered.csv');
    const made = await plan(sb, home, ['--school', SCHOOL, '--out', out, '--uncovered-csv', uncovered]);
    expect(made.code, made.stderr).toBe(0);
    expect(made.stderr).toContain(
      'Alder: 3 students in scope: 2 covered by 2 invitations, 1 without a guardian e-mail; 0 already invited',
    );
    const lines = readFileSync(out, 'utf8').split('\r\n');
    expect(lines[0]).toBe('\ufeffemail,schoolId,studentCount,guardianNames,studentIds');
    expect(lines.slice(1, 3).sort()).toEqual([
      `'=1+1@example.org,'+sch|' /C calc'!A0,1,Parent g-1 Doe,'+cmd|' /C calc'!A0`,
      `home@example.org,'+sch|' /C calc'!A0,1,Parent g-2 Doe,stu-plain`,
    ]);
    expect(readFileSync(uncovered, 'utf8')).toBe(
      "\ufeffsourcedId,name,reason\r\n'-2+3,'@SUM(1),no guardian linked\r\n",
    );
    // No cell of either file starts with what a spreadsheet runs.
    for (const file of [out, uncovered])
      for (const line of readFileSync(file, 'utf8').split('\r\n'))
        for (const cell of line.split(',')) expect(cell).not.toMatch(/^[=+\-@\t\r]/);

    const sent = await runCli(
      ['invite', 'send', '--file', out, '--sent-by-user-id', 'usr-1', '--json'],
      home,
      {
        env: env(sb),
        timeoutMs: 25_000,
      },
    );
    expect(sent.code, sent.stderr).toBe(0);
    const bodies = posts(sb).map((p) => JSON.parse(p.body) as { email: string; schoolId: string });
    expect(bodies.map((b) => [b.email, b.schoolId]).sort()).toEqual([
      ['=1+1@example.org', SCHOOL],
      ['home@example.org', SCHOOL],
    ]);
    const report = JSON.parse(sent.stdout) as { rows: { email: string; studentIds?: string }[] };
    expect(report.rows.find((r) => r.email === '=1+1@example.org')?.studentIds).toBe("+cmd|' /C calc'!A0");
  });
});

describe('real addresses that start with a quote, a plus or a dash', () => {
  // RFC 5322 allows ' + - in a local part. The plan escapes a cell a spreadsheet would run with a leading ',
  // and `invite send --file` takes one off: a value that itself starts with ' before = + - @ must be escaped
  // too, or it comes back one quote short and the invitation goes to someone else.
  const SCHOOL = 'sch-q';
  const addresses = ["'+quote@example.org", '+1@example.org', '-dash@example.org', "''=two@example.org"];
  const district = (): District => ({
    schools: [{ sourcedId: SCHOOL, name: 'Quince' }],
    students: addresses.map((_, i) => student(`stu-${i}`, SCHOOL, [`g-${i}`])),
    users: addresses.map((email, i) => parent(`g-${i}`, email)),
  });

  it('are planned and sent exactly as the server gave them: nobody else is e-mailed', async () => {
    const sb = await serve(district());
    const home = tempDir();
    const out = join(home, 'plan.csv');
    const made = await plan(sb, home, ['--school', SCHOOL, '--out', out]);
    expect(made.code, made.stderr).toBe(0);
    for (const line of readFileSync(out, 'utf8').split('\r\n'))
      for (const cell of line.split(',')) expect(cell).not.toMatch(/^[=+\-@\t\r]/);

    const sent = await runCli(
      ['invite', 'send', '--file', out, '--sent-by-user-id', 'usr-1', '--json'],
      home,
      { env: env(sb), timeoutMs: 25_000 },
    );
    expect(sent.code, sent.stderr).toBe(0);
    const emails = posts(sb).map((p) => (JSON.parse(p.body) as { email: string }).email);
    expect(emails.sort()).toEqual([...addresses].sort());
  });
});

describe('names with terminal escapes', () => {
  // OSC 52 (write the clipboard), ESC[2J (clear the screen), a C1 CSI, BEL: `cat plan.csv` would obey each.
  const HOSTILE = '\u001b]52;c;cm0gLXJmIH4K\u0007\u001b[2J\u009b31m';
  const SHOWN = '\\u001b]52;c;cm0gLXJmIH4K\\u0007\\u001b[2J\\u009b31m';
  const district = (): District => ({
    schools: [{ sourcedId: 'sch-1', name: 'Alder' }],
    students: [
      student('stu-1', 'sch-1', ['g-1']),
      student('stu-2', 'sch-1', [], { givenName: `Kid${HOSTILE}`, familyName: 'Doe' }),
    ],
    users: [{ ...parent('g-1', 'home@example.org'), givenName: `Mum${HOSTILE}` }],
  });

  it('reach the plan and uncovered CSV shown escaped, as on the terminal, never as raw controls', async () => {
    const sb = await serve(district());
    const home = tempDir();
    const out = join(home, 'plan.csv');
    const uncovered = join(home, 'uncovered.csv');
    const made = await plan(sb, home, ['--school', 'sch-1', '--out', out, '--uncovered-csv', uncovered]);
    expect(made.code, made.stderr).toBe(0);
    const planText = readFileSync(out, 'utf8');
    const uncoveredText = readFileSync(uncovered, 'utf8');
    expect(planText.split('\r\n')[1]).toBe(`home@example.org,sch-1,1,Mum${SHOWN} Doe,stu-1`);
    expect(uncoveredText).toBe(`\ufeffsourcedId,name,reason\r\nstu-2,Kid${SHOWN} Doe,no guardian linked\r\n`);
    for (const text of [planText, uncoveredText]) {
      expect(text.replace(/\r\n/g, '')).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    }
  });
});
