// `roster roster <collection>`: flags to options, and run() against a fake OneRoster service.
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { errorFromResponse } from '../../src/api/errors.js';
import {
  parseReadOptions,
  type ReadFlags,
  type ReadOptions,
  readFrom,
  register,
  showRead,
} from '../../src/commands/roster/read.js';
import type { Context } from '../../src/context.js';
import { UsageError } from '../../src/errors.js';
import { COLLECTIONS, type Collection } from '../../src/oneroster/collections.js';
import type { PageResponse } from '../../src/oneroster/pager.js';
import type { OneRosterService } from '../../src/oneroster/service.js';
import { fakeContext } from '../helpers/context.js';
import { BASE, fakeServer } from './fake-server.js';

/** The read as the command does it: the result read through the service, then rendered. */
const readVia = async (options: ReadOptions, svc: OneRosterService, ctx: Context) =>
  showRead(ctx, options, await readFrom(options, svc, ctx));

const collection = (name: string) => {
  const found = COLLECTIONS.find((c) => c.name === name);
  if (!found) throw new Error(name);
  return found;
};
const students = collection('students');
/** Flags as typed on the command line. */
type TypedFlags = Partial<Record<keyof ReadFlags, string | boolean>>;

/** The typed flags through the argParsers `roster roster <collection>` declares, as commander applies them. */
function declared(of: Collection, typed: TypedFlags): ReadFlags {
  const group = new Command('roster');
  register(group, fakeContext().ctx, of);
  const options = group.commands[0]?.options ?? [];
  return Object.fromEntries(
    Object.entries(typed).map(([name, value]) => {
      const option = options.find((o) => o.attributeName() === name);
      return [
        name,
        typeof value === 'string' && option?.parseArg ? option.parseArg(value, undefined) : value,
      ];
    }),
  ) as ReadFlags;
}
const parse = (flags: TypedFlags, id?: string, tty = false) =>
  parseReadOptions(students, id, declared(students, flags), tty);

describe('parseReadOptions', () => {
  it('defaults: a table on a terminal, TSV in a pipe, page size 1000 and concurrency 4 with --all', () => {
    expect(parse({}, undefined, true).format).toBe('table');
    expect(parse({}).format).toBe('tsv');
    expect(parse({}).query).toEqual({});
    expect(parse({ all: true })).toMatchObject({ all: true, concurrency: 4, query: { limit: 1000 } });
    expect(parse({ all: true, pageSize: '50', concurrency: '8' })).toMatchObject({
      concurrency: 8,
      query: { limit: 50 },
    });
  });

  it('builds the query from the flags', () => {
    expect(
      parse({
        limit: '5',
        offset: '10',
        sort: 'familyName',
        orderBy: 'desc',
        filter: "givenName='Zoë'",
        fields: 'sourcedId,givenName',
        csv: true,
      }),
    ).toMatchObject({
      format: 'csv',
      query: {
        limit: 5,
        offset: 10,
        sort: 'familyName',
        orderBy: 'desc',
        filter: "givenName='Zoë'",
        fields: ['sourcedId', 'givenName'],
      },
    });
  });

  it.each([
    [{ json: true, csv: true }, /Choose one of --json, --csv/],
    [{ all: true, limit: '5' }, /with --all use --page-size/],
    [{ pageSize: '5' }, /--page-size goes with --all/],
    [{ concurrency: '2' }, /--concurrency goes with --all/],
    [{ all: true, concurrency: '9' }, /Invalid --concurrency "9"/],
    [{ all: true, pageSize: '0' }, /Invalid --page-size/],
    [{ orderBy: 'up', sort: 'x' }, /Invalid --order-by/],
    [{ orderBy: 'asc' }, /--order-by needs --sort/],
    [{ filter: '' }, /--filter is empty/],
    [{ school: '' }, /Invalid --school/],
  ] as [TypedFlags, RegExp][])('refuses %o as a usage error', (flags, message) => {
    expect(() => parse(flags)).toThrow(UsageError);
    expect(() => parse(flags)).toThrow(message);
  });

  it('accepts the nested reads of the table, alone or school + class, and nothing else', () => {
    expect(parse({ school: 'sch-1', class: 'cls-1' }).parents).toEqual({ school: 'sch-1', class: 'cls-1' });
    expect(() =>
      parseReadOptions(collection('classes'), undefined, { school: 'a', term: 'b' }, false),
    ).toThrow(/--school and --term cannot be combined for classes/);
  });

  it('a single read takes --fields and output flags, not list flags', () => {
    expect(parse({ fields: 'sourcedId', json: true }, 'stu-1')).toMatchObject({
      id: 'stu-1',
      format: 'json',
    });
    expect(() => parse({ all: true, filter: "a='b'" }, 'stu-1')).toThrow(
      '--filter, --all cannot be used when reading one student by sourcedId.',
    );
    expect(() => parse({ school: 's' }, 'stu-1')).toThrow(/--school cannot be used/);
    expect(() => parse({}, '..')).toThrow(/Invalid the sourcedId/);
  });
});

function service(
  send: (path: string, query: string, what: string) => Promise<PageResponse>,
): OneRosterService {
  return { version: '1.1', baseUrl: BASE, prefix: '/ims/oneroster/v1p1', send };
}

const answer = (status: number, body: unknown): PageResponse => ({
  status,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
  url: `${BASE}/x`,
});

describe('run', () => {
  it('streams every page as NDJSON and reads nested paths with encoded ids', async () => {
    const fake = fakeServer(250, { cap: 40 });
    const paths: string[] = [];
    const { ctx, stdout, stderr } = fakeContext();
    const summary = await readVia(
      parse({ all: true, ndjson: true, school: "sch 1/'x'" }),
      service((path, query) => {
        paths.push(path);
        return fake.send(path, query);
      }),
      ctx,
    );
    expect(summary).toEqual({ records: 250, total: 250, pages: 7, repeats: 0 });
    expect(
      stdout()
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).sourcedId),
    ).toHaveLength(250);
    expect(paths[0]).toBe('/ims/oneroster/v1p1/schools/sch%201%2F%27x%27/students');
    expect(stderr()).toBe('');
  });

  it('tells on a terminal that there are more pages', async () => {
    const fake = fakeServer(250);
    const { ctx, stdout, stderr } = fakeContext({ tty: true });
    await readVia(parse({ limit: '2' }, undefined, true), service(fake.send), ctx);
    expect(stdout()).toBe(
      'sourcedId  givenName  familyName  grades  email  status\nstu-0      N0\nstu-1      N1\n',
    );
    expect(stderr()).toBe(
      'Showing 2 of 250 students. Use --all for every page, or --offset 2 for the next.\n',
    );
  });

  it('prints a single read, and says which record was not found on a 404', async () => {
    const { ctx, stdout } = fakeContext();
    const calls: string[] = [];
    const svc = service(async (path, query, what) => {
      calls.push(`${path}?${query} (${what})`);
      if (path.endsWith('/nobody')) {
        throw errorFromResponse(
          answer(404, { imsx_codeMajor: 'failure', imsx_description: "Student 'nobody' not found" }),
          what,
        );
      }
      return answer(200, { user: { sourcedId: 'stu-1', givenName: 'Zoë', orgs: [{ sourcedId: 'o1' }] } });
    });
    await readVia(parse({ json: true, fields: 'sourcedId,givenName' }, 'stu-1'), svc, ctx);
    expect(JSON.parse(stdout())).toEqual({
      sourcedId: 'stu-1',
      givenName: 'Zoë',
      orgs: [{ sourcedId: 'o1' }],
    });
    expect(calls[0]).toBe(
      '/ims/oneroster/v1p1/students/stu-1?fields=sourcedId%2CgivenName (Reading student "stu-1")',
    );

    const error = await readVia(parse({}, 'nobody'), svc, ctx).catch((e) => e);
    expect(error.status).toBe(404);
    expect(error.message).toBe('Student "nobody" not found (HTTP 404: Student \'nobody\' not found)');
  });

  it('a single read without its wrapper key is an error', async () => {
    const { ctx } = fakeContext();
    const error = await readVia(
      parse({}, 'stu-1'),
      service(async () => answer(200, { users: [] })),
      ctx,
    ).catch((e) => e);
    expect(error.code).toBe('unexpected');
    expect(error.message).toBe(
      'Reading student "stu-1": the server answered HTTP 200 without a "user" or "student" record (keys: users)',
    );
  });

  it("shows the server's imsx_description for a bad filter, with a hint", async () => {
    const { ctx } = fakeContext();
    const svc = service(async (_path, _query, what) => {
      throw errorFromResponse(
        answer(400, {
          imsx_codeMajor: 'failure',
          imsx_severity: 'error',
          imsx_description: "Invalid filter field: 'nope'",
          imsx_CodeMinor: { imsx_codeMinorField: [{ imsx_codeMinorFieldValue: 'invalid_filter_field' }] },
        }),
        what,
      );
    });
    const error = await readVia(parse({ filter: "nope='x'" }), svc, ctx).catch((e) => e);
    expect(error.code).toBe('api');
    expect(error.message).toBe("Reading students failed (HTTP 400): Invalid filter field: 'nope'");
    expect(error.hint).toMatch(/Check --filter/);
  });
});
