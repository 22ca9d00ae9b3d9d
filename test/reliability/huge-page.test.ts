// One page of 300,000 records (a server that ignores `limit`, or serves a district in one answer): every
// read takes it whole. Spreading a server-sized array into a call (push(...items), Math.max(...widths))
// overflows the call stack at about 120,000 arguments; roster uses loops.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { type ScriptedServer, startScriptedServer } from '../helpers/scripted-server.js';

const COUNT = 300_000;
const id = (i: number) => `s-${String(i).padStart(6, '0')}`;

let server: ScriptedServer;
let users: string;
let invitations: string;
beforeAll(async () => {
  // Built once as text: the server answers every read with the same page.
  const records: string[] = [];
  for (let i = 0; i < COUNT; i++) records.push(`{"sourcedId":"${id(i)}","givenName":"G${i}"}`);
  users = `{"users":[${records.join(',')}]}`;
  records.length = 0;
  for (let i = 0; i < COUNT; i++) records.push(`{"id":"inv-${i}","email":"p${i}@example.org"}`);
  invitations = `{"data":[${records.join(',')}],"meta":{"page":1,"totalPages":1,"total":${COUNT}}}`;
  server = await startScriptedServer((request) => {
    if (request.path.endsWith('/token'))
      return { body: { access_token: 'tok-1', token_type: 'bearer', expires_in: 3600 } };
    const body = request.path.endsWith('/enrollment/invitations') ? invitations : users;
    // A second page is empty: the read ends there.
    const first = !request.query.get('offset') || request.query.get('offset') === '0';
    return {
      headers: { 'Content-Type': 'application/json' },
      body: first || body === invitations ? body : '{"users":[]}',
    };
  });
});
afterAll(() => server.close());

const roster = (args: string[]) =>
  runCli(args, tempDir(), {
    env: { ROSTER_BASE_URL: server.baseUrl, ROSTER_CLIENT_ID: 'c', ROSTER_CLIENT_SECRET: 'secret-1' },
    timeoutMs: 120_000,
  });

const lines = (text: string) => text.split('\n').filter((line) => line !== '');

describe('one page of 300,000 records', () => {
  it.each([
    [['--json'], (out: string) => (JSON.parse(out) as unknown[]).length],
    [[] as string[], (out: string) => lines(out).length - 1], // tab-separated: the default on a pipe
  ])('roster students --all %j: every record, exit 0', { timeout: 120_000 }, async (flags, count) => {
    const result = await roster(['roster', 'students', '--all', ...flags]);
    expect(result.stderr).not.toMatch(/call stack|unexpected/i);
    expect(result.code).toBe(0);
    expect(count(result.stdout)).toBe(COUNT);
  });

  it.each([
    [[] as string[], (out: string) => lines(out).length - 1],
    [['--all'], (out: string) => lines(out).length - 1],
    [['--all', '--json'], (out: string) => (JSON.parse(out) as { data: unknown[] }).data.length],
    [['--all', '--ndjson'], (out: string) => lines(out).length],
  ])('roster invite list %j: every invitation, exit 0', { timeout: 120_000 }, async (flags, count) => {
    const result = await roster(['invite', 'list', ...flags]);
    expect(result.stderr).not.toMatch(/call stack|unexpected/i);
    expect(result.code).toBe(0);
    expect(count(result.stdout)).toBe(COUNT);
  });
});
