// `roster roster changes` run() against a fake OneRoster service: the table a terminal shows, the summary,
// and what it does with servers that send no Date header or ignore the filter.
import { describe, expect, it } from 'vitest';
import { parseChangesOptions, readChangesTo, summaryLines } from '../../src/commands/roster/changes.js';
import type { PageResponse } from '../../src/oneroster/pager.js';
import type { OneRosterService } from '../../src/oneroster/service.js';
import type { Settings } from '../../src/settings.js';
import { fakeContext } from '../helpers/context.js';

const NOW = Date.parse('2026-11-23T09:00:00Z');
const SERVER_DATE = 'Mon, 23 Nov 2026 09:00:00 GMT';
const settings = { profileName: 'default', clientId: 'c' } as Settings;

const RECORDS: Record<string, Record<string, unknown>[]> = {
  users: [
    {
      sourcedId: 'stu-1',
      status: 'active',
      dateLastModified: '2026-11-23T08:10:00.000Z',
      givenName: 'Zoë',
      familyName: 'Åkesson',
    },
    {
      sourcedId: 'stu-2',
      status: 'tobedeleted',
      dateLastModified: '2026-11-23T08:20:00.000Z',
      givenName: 'José',
      familyName: 'García',
    },
    {
      sourcedId: 'stu-old',
      status: 'active',
      dateLastModified: '2026-10-01T00:00:00.000Z',
      givenName: 'Old',
      familyName: 'Record',
    },
  ],
  enrollments: [
    {
      sourcedId: 'enr-1',
      status: 'active',
      dateLastModified: '2026-11-23T08:30:00.000Z',
      role: 'student',
      user: { sourcedId: 'stu-1' },
      class: { sourcedId: 'cls-1' },
    },
  ],
};

function service(date: string | undefined, queries: string[] = []): OneRosterService {
  return {
    version: '1.1',
    baseUrl: 'https://or.example.org/v1',
    prefix: '/ims/oneroster/v1p1',
    send: async (path, query): Promise<PageResponse> => {
      queries.push(`${path}?${query}`);
      const name = path.split('/').pop() ?? '';
      const offset = Number(new URLSearchParams(query).get('offset') ?? 0);
      const list = offset > 0 ? [] : (RECORDS[name] ?? []);
      return {
        status: 200,
        headers: { 'content-type': 'application/json', ...(date && { date }) },
        body: JSON.stringify({ [name]: list }),
        url: `https://or.example.org/v1${path}?${query}`,
      };
    },
  };
}

describe('roster roster changes on a terminal', () => {
  it('shows a table per collection with changes and a summary per collection; leaves out what did not change', async () => {
    const { ctx, stdout, stderr } = fakeContext({ tty: true });
    const options = parseChangesOptions(
      ['users', 'enrollments'],
      { since: '2026-11-23T08:00:00Z' },
      true,
      NOW,
    );
    const tz = process.env.TZ;
    process.env.TZ = 'America/Chicago'; // the terminal shows local time
    try {
      const results = await readChangesTo(options, service(SERVER_DATE), settings, ctx);
      expect(stdout()).toBe(
        [
          'collection  sourcedId  status       dateLastModified      name',
          'users       stu-1      active       2026-11-23 02:10 CST  Zoë Åkesson',
          'users       stu-2      tobedeleted  2026-11-23 02:20 CST  José García',
          '',
          'collection   sourcedId  status  dateLastModified      name',
          'enrollments  enr-1      active  2026-11-23 02:30 CST  student stu-1 in cls-1',
          '',
        ].join('\n'),
      );
      // stu-old came back though it did not change after the moment: the server ignored the filter.
      expect(stderr()).toContain('the server sent 1 users not changed since 2026-11-23T08:00:00Z');
      // The summary in local time for a terminal, ISO 8601 UTC for a log.
      expect(summaryLines(results, options.since, true)[0]).toBe('Changed since 2026-11-23 02:00 CST:');
      expect(summaryLines(results, options.since)).toEqual([
        'Changed since 2026-11-23T08:00:00Z:',
        'users: 1 changed, 1 to be deleted',
        'enrollments: 1 changed, 0 to be deleted',
      ]);
    } finally {
      if (tz === undefined) delete process.env.TZ;
      else process.env.TZ = tz;
    }
  });

  it('--json: one array of {collection, record}, the records as the server sent them', async () => {
    const { ctx, stdout } = fakeContext();
    const options = parseChangesOptions(
      ['enrollments', 'users'],
      { since: '2026-11-23T08:00:00Z', json: true },
      false,
      NOW,
    );
    await readChangesTo(options, service(SERVER_DATE), settings, ctx);
    const parsed = JSON.parse(stdout()) as { collection: string; record: { sourcedId: string } }[];
    expect(parsed.map((p) => `${p.collection}/${p.record.sourcedId}`)).toEqual([
      'enrollments/enr-1',
      'users/stu-1',
      'users/stu-2',
    ]);
    expect(parsed[0]?.record).toEqual(RECORDS.enrollments?.[0]);
  });

  it('prints no table when nothing changed: the summary says so', async () => {
    const { ctx, stdout } = fakeContext({ tty: true });
    const options = parseChangesOptions(['classes'], { since: '1h' }, true, NOW);
    const results = await readChangesTo(options, service(SERVER_DATE), settings, ctx);
    expect(stdout()).toBe('');
    expect(summaryLines(results, options.since).at(-1)).toBe('classes: 0 changed, 0 to be deleted');
  });

  it('without a Date header, --since last saves the newest stamp read (or the local clock, if earlier) less the overlap, and says so', async () => {
    const { ctx, stderr } = fakeContext();
    const queries: string[] = [];
    const options = parseChangesOptions(['users'], { since: 'last' }, false, NOW);
    await readChangesTo(options, service(undefined, queries), settings, ctx);
    expect(stderr()).toContain(
      "the server sent no Date header reading users: this machine's clock stands in for the server's (the next --since last starts from the newest dateLastModified read or this machine's clock, whichever is earlier, less 5 minutes)",
    );
    await readChangesTo(options, service(undefined, queries), settings, ctx);
    expect(decodeURIComponent(queries.at(-1) ?? '')).toContain("dateLastModified>'2026-11-23T08:15:00Z'");
  });

  it('an unreadable Date, or one of 1970, is no clock: the local one stands in', async () => {
    for (const [date, said] of [
      ['yesterday-ish', 'a Date header roster cannot read'],
      ['Thu, 01 Jan 1970 00:00:00 GMT', 'a Date header of 1970-01-01T00:00:00Z'],
    ]) {
      const { ctx, stderr } = fakeContext();
      const options = parseChangesOptions(['users'], { since: 'last' }, false, NOW);
      await readChangesTo(options, service(date), settings, ctx);
      expect(stderr()).toContain(`the server sent ${said} reading users: this machine's clock stands in`);
    }
  });

  it("warns when the server's clock is far from this machine's; the moment is the earlier of it and the newest stamp", async () => {
    const { ctx, stderr } = fakeContext();
    const queries: string[] = [];
    const options = parseChangesOptions(['users'], { since: 'last' }, false, NOW);
    // Behind the records it serves: its clock, the earlier, is the moment; the records ahead of it are named.
    await readChangesTo(options, service('Mon, 01 Jan 2024 00:00:00 GMT', queries), settings, ctx);
    expect(stderr()).toMatch(/the server's clock is \d+ days behind this machine's \(reading users\)/);
    expect(stderr()).toContain(
      'the server sent users stamped 2026-11-23T08:20:00Z, after its own clock: the next --since last starts from its clock',
    );
    await readChangesTo(options, service(SERVER_DATE, queries), settings, ctx);
    expect(decodeURIComponent(queries.at(-1) ?? '')).toContain("dateLastModified>'2023-12-31T23:55:00Z'");

    // Ahead (in 2099): the newest record read, the earlier, is the moment, and the changes are still reported.
    const ahead = fakeContext();
    const first = await readChangesTo(
      options,
      service('Thu, 01 Jan 2099 00:00:00 GMT', queries),
      settings,
      ahead.ctx,
    );
    expect(ahead.stderr()).toMatch(/the server's clock is \d+ days ahead of this machine's/);
    expect(first[0]?.changed).toBeGreaterThan(0);
    await readChangesTo(options, service('Thu, 01 Jan 2099 00:00:00 GMT', queries), settings, ahead.ctx);
    expect(decodeURIComponent(queries.at(-1) ?? '')).toContain("dateLastModified>'2026-11-23T08:15:00Z'");
  });
});
