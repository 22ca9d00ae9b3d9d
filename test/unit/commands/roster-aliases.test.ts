// `roster students`, the name admins type first, is `roster roster students`: every OneRoster collection
// no top-level command is named after answers at the top level (same flags, same requests, same output),
// `roster --help` says so on its `roster` line, and an unknown command that names a collection however it
// is spelt (`student`, `academicSessions`) says what to type. Each run is in this process; the API an
// HttpMock.
import { describe, expect, it } from 'vitest';
import { TOP_LEVEL_NAMES } from '../../../src/commands/roster/index.js';
import { COLLECTION_ALIASES, TOP_LEVEL_COMMANDS } from '../../../src/main.js';
import { COLLECTIONS } from '../../../src/oneroster/collections.js';
import { json, useHttpMock } from '../../helpers/http-mock.js';
import { rosterInProcess } from '../../helpers/main.js';
import { CLIENT, DISTRICT, tokenEndpoints } from '../../helpers/mock-district.js';

const mock = useHttpMock();
const env = { ROSTER_BASE_URL: DISTRICT, ROSTER_CLIENT_ID: CLIENT.id, ROSTER_CLIENT_SECRET: CLIENT.secret };
const roster = (argv: string[]) => rosterInProcess(argv, { env, transport: mock.http });
const paths = () =>
  mock.http.requests.filter((r) => !r.url.endsWith('/token')).map((r) => new URL(r.url).pathname);
const students = Array.from({ length: 3 }, (_, i) => ({
  sourcedId: `stu-00000${i + 1}`,
  status: 'active',
  givenName: 'Zoë',
  familyName: `Åkesson${i}`,
  role: 'student',
}));
const session = { sourcedId: 'as-2026-27', status: 'active', title: '2026-27', type: 'schoolYear' };

describe('the OneRoster collections at the top level', () => {
  it('are every collection no top-level command is named after, in both lists roster keeps', () => {
    const free = COLLECTIONS.map((c) => c.name).filter((name) => !TOP_LEVEL_COMMANDS.includes(name));
    expect(COLLECTION_ALIASES).toEqual(free);
    expect(TOP_LEVEL_NAMES).toEqual(TOP_LEVEL_COMMANDS);
  });

  it('roster students prints what roster roster students prints, from the same request', async () => {
    tokenEndpoints(mock.http);
    mock.http.register(
      { method: 'GET', path: '/v1/ims/oneroster/v1p1/students' },
      json({ users: students }),
      {
        times: 2,
      },
    );
    const long = await roster(['roster', 'students', '--limit', '3', '--json']);
    const longPaths = paths();
    const short = await roster(['students', '--limit', '3', '--json']);
    expect(long.code).toBe(0);
    expect([short.code, short.stdout, short.stderr]).toEqual([long.code, long.stdout, long.stderr]);
    expect(JSON.parse(short.stdout)).toHaveLength(3);
    expect(paths()).toEqual([...longPaths, ...longPaths]);
    expect(mock.http.requests.at(-1)?.url).toBe(mock.http.requests.at(1)?.url);
  });

  it('takes a sourcedId, nested-read flags and global flags after it', async () => {
    tokenEndpoints(mock.http);
    mock.http
      .register(
        { method: 'GET', path: '/v1/ims/oneroster/v1p2/academicSessions' },
        json({ academicSessions: [session] }),
      )
      .register(
        { method: 'GET', path: '/v1/ims/oneroster/v1p1/academicSessions/as-2026-27' },
        json({ academicSession: session }),
      );
    const one = await roster(['academic-sessions', '--oneroster', '1.2', '--json']);
    expect(one.code, one.stderr).toBe(0);
    expect(paths()).toEqual(['/v1/ims/oneroster/v1p2/academicSessions']);
    const [first] = JSON.parse(one.stdout) as { sourcedId: string }[];
    const single = await roster(['academic-sessions', first?.sourcedId ?? '', '--json']);
    expect(single.code, single.stderr).toBe(0);
    expect(JSON.parse(single.stdout)).toMatchObject({ sourcedId: first?.sourcedId });
  });

  it('refuses bad flags as roster roster does, before anything is sent', async () => {
    const run = await roster(['students', '--limit', '3', '--all']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--limit is the size of the one page read without --all');
    expect(mock.http.requests).toEqual([]);
  });

  it('are listed in help as aliases', async () => {
    const top = await roster(['--help']);
    expect(top.stdout).toMatch(/roster +OneRoster reads: [^\n]*\n[^\n]*also roster students/);
    const own = await roster(['students', '--help']);
    expect(own.code).toBe(0);
    expect(own.stdout).toContain('Usage: roster students [options] [sourcedId]');
    expect(own.stdout).toContain('Alias of roster roster students.');
    const long = await roster(['roster', 'students', '--help']);
    expect(long.stdout.replace(/\s+/g, ' ')).toContain('Also: roster students.');
  });
});

describe('an unknown command that is a OneRoster collection', () => {
  it.each([
    [['student'], 'students'],
    [['Students'], 'students'],
    [['academicSessions'], 'academic-sessions'],
    [['grading', 'periods'], undefined], // only the first word is the command
    [['roster', 'student'], 'students'],
    [['invite', 'students'], 'students'],
    [['gradingPeriod'], 'grading-periods'],
  ])('roster %s says what to type', async (args, name) => {
    const run = await roster(args);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`unknown command '${args.at(name ? -1 : 0)}'`);
    if (name)
      expect(run.stderr).toContain(
        `That is the OneRoster collection ${name}: type roster ${name} (or roster roster ${name}).\n`,
      );
    else expect(run.stderr).not.toContain('OneRoster collection');
    expect(mock.http.requests).toEqual([]);
  });

  it('never echoes the word typed in its hint, and says nothing for a word that is no collection', async () => {
    const run = await roster(['studnts\u001b[31m']);
    expect(run.code).toBe(2);
    expect(run.stderr).not.toContain('That is');
    expect(run.stderr).not.toContain('\u001b');
  });
});
