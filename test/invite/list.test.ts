// `roster invite list`, in-process against the sandbox.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { roster } from './helpers.js';

let sandbox: Sandbox;
/** The invitation list's reads (a --school-id is first checked against the district's schools). */
const invitationGets = () =>
  sandbox.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/enrollment/invitations'));
const send = (email: string, school: string) =>
  roster(sandbox, ['invite', 'send', '--email', email, '--school-id', school, '--sent-by-user-id', 'usr-1']);

beforeAll(async () => {
  sandbox = await startSandbox({ seed: 3 });
  for (let i = 0; i < 5; i++) expect((await send(`list${i}@example.org`, 'org-sch-1')).code).toBe(0);
  expect((await send('other@example.org', 'org-sch-2')).code).toBe(0);
});
afterAll(() => sandbox.close());
beforeEach(() => {
  sandbox.requests.length = 0;
});

describe('invite list', () => {
  it('--json prints the server body unchanged; named flags become the sandbox query parameters', async () => {
    const run = await roster(sandbox, [
      'invite',
      'list',
      '--school-id',
      'org-sch-1',
      '--per-page',
      '2',
      '--page',
      '2',
      '--json',
    ]);
    expect(run.code).toBe(0);
    const body = JSON.parse(run.stdout);
    expect(body.meta).toEqual({ page: 2, perPage: 2, total: 5, totalPages: 3 });
    expect(body.data.map((r: { email: string }) => r.email)).toEqual([
      'list2@example.org',
      'list3@example.org',
    ]);
    const [get] = invitationGets();
    expect(new URLSearchParams(get?.rawQuery)).toEqual(
      new URLSearchParams('schoolId=org-sch-1&page=2&perPage=2'),
    );
  });

  it('--all follows meta.totalPages; --json then holds every page and the last meta', async () => {
    const run = await roster(sandbox, [
      'invite',
      'list',
      '--school-id',
      'org-sch-1',
      '--per-page',
      '2',
      '--all',
      '--json',
    ]);
    expect(run.code).toBe(0);
    const body = JSON.parse(run.stdout);
    expect(body.data).toHaveLength(5);
    expect(body.meta).toEqual({ page: 3, perPage: 2, total: 5, totalPages: 3 });
    expect(invitationGets()).toHaveLength(3);
  });

  it('--ndjson prints one record per line', async () => {
    const run = await roster(sandbox, [
      'invite',
      'list',
      '--school-id',
      'org-sch-1',
      '--per-page',
      '2',
      '--all',
      '--ndjson',
    ]);
    const lines = run.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((r) => r.email)).toEqual([0, 1, 2, 3, 4].map((i) => `list${i}@example.org`));
  });

  it('a pipe gets tab-separated columns taken from the records, arrays compacted; more pages are hinted on stderr', async () => {
    const run = await roster(sandbox, ['invite', 'list', '--school-id', 'org-sch-1', '--per-page', '2']);
    const [header, first] = run.stdout.split('\n');
    const json = JSON.parse(
      (await roster(sandbox, ['invite', 'list', '--school-id', 'org-sch-1', '--json'])).stdout,
    );
    expect(header?.split('\t')).toEqual(Object.keys(json.data[0]));
    expect(first).toContain('list0@example.org\torg-sch-1');
    expect(first).toContain('\tfillEnrollment\t');
    expect(run.stderr).toBe('Page 1 of 3 (5 invitations): use --page 2 or --all for more.\n');
  });

  it('a terminal gets the columns an admin reads first, each whole, within 80 columns; --json has every field', async () => {
    const run = await roster(sandbox, ['invite', 'list', '--email', 'other@example.org'], {
      tty: true,
      columns: 80,
    });
    expect(run.code).toBe(0);
    const [header, row, more] = run.stdout.split('\n');
    // gh's style: no borders, a chosen few columns; only the school's name gives way (…) at 80 columns.
    expect(run.stdout).not.toMatch(/[│┌─]/);
    expect(header).toMatch(/^email +school +students +status +created$/);
    expect(row).toMatch(
      /^other@example\.org +Birch Elementary \S*… +1 +sent +\d{4}-\d\d-\d\d \d\d:\d\d \S+$/,
    );
    expect(more).toBe('');
    for (const line of run.stdout.trimEnd().split('\n')) expect(line.length).toBeLessThanOrEqual(80);
    for (const hidden of ['inv_', 'fillEnrollment', 'usr-1', 'sentByUserId', 'learningCenterId']) {
      expect(run.stdout).not.toContain(hidden);
    }
    // The same on a wide terminal: the table is a summary, not the record.
    const wide = await roster(sandbox, ['invite', 'list', '--email', 'other@example.org'], {
      tty: true,
      columns: 200,
    });
    expect(wide.stdout.split('\n')[0]).toMatch(/^email +school +students +status +created$/);
    expect(wide.stdout.split('\n')[1]).toMatch(/^other@example\.org +Birch Elementary School +1 +sent /);
    const json = await roster(sandbox, ['invite', 'list', '--email', 'other@example.org', '--json']);
    expect(JSON.parse(json.stdout).data[0]).toMatchObject({
      id: expect.stringMatching(/^inv_/),
      scopes: ['fillEnrollment'],
      sentByUserId: 'usr-1',
    });
    const help = await roster(sandbox, ['invite', 'list', '--help']);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain('--json, --ndjson or a pipe give every field');
  });

  it('--param passes any other parameter through', async () => {
    await roster(sandbox, ['invite', 'list', '--param', 'status=sent', '--param', 'x=a=b']);
    const get = sandbox.requests.find((r) => r.method === 'GET');
    expect(new URLSearchParams(get?.rawQuery).get('status')).toBe('sent');
    expect(new URLSearchParams(get?.rawQuery).get('x')).toBe('a=b');
  });

  it('an empty list: a note on stderr, exit 0', async () => {
    const run = await roster(sandbox, ['invite', 'list', '--email', 'nobody@example.org']);
    expect(run).toMatchObject({ code: 0, stdout: '', stderr: 'No invitations found.\n' });
  });

  it.each([
    [['--page', '0']],
    [['--per-page', 'ten']],
    [['--param', 'novalue']],
    [['--json', '--ndjson']],
    [['--page', '2', '--param', 'page=3']],
  ])('%j: exit 2 and no request', async (args) => {
    const run = await roster(sandbox, ['invite', 'list', ...args]);
    expect(run.code).toBe(2);
    expect(sandbox.requests).toHaveLength(0);
  });
});
