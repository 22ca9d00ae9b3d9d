// A gateway between roster and the API (issue 19, point 4): a load balancer that answers 503 text/plain
// after the API already sent the e-mail (the sandbox's gateway-503 quirks), and the other answers that do not
// prove the API left a POST alone (a hostile server on loopback). The built CLI in real processes; e-mails
// counted in the sandbox's outbox and invitations, POSTs counted where they arrived.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GATEWAY_503_TEXT } from '../../src/sandbox/gateway.js';
import { parseQuirks } from '../../src/sandbox/quirks.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { type Hostile, json, startHostile } from '../helpers/hostile.js';
import { demoEnv } from '../helpers/sandbox.js';

const SEED = 7; // with gateway-503=0.5: 4 of the first 10 invitations get the gateway's 503

let home: string;
beforeEach(() => {
  home = tempDir();
});

const figures = (name: string, values: Record<string, number>) =>
  console.log(
    `${name}: ${Object.entries(values)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
  );

/** A CSV of `count` rows with addresses unique to this test. */
function csv(tag: string, count: number, school = (i: number) => `org-sch-${(i % 5) + 1}`) {
  const emails = Array.from({ length: count }, (_, i) => `${tag}-${i}@example.org`);
  const file = join(tempDir(), `${tag}.csv`);
  writeFileSync(file, `email,schoolId\n${emails.map((e, i) => `${e},${school(i)}`).join('\n')}\n`);
  return { file, emails };
}

interface ReportRow {
  line: number;
  email: string;
  result: string;
  reason?: string;
  status?: number;
}
/**
 * The server's invitation list out of use (a district's server without it: 404), so that roster cannot
 * settle a doubt by it and keeps its own rule: what these tests of rows in doubt rehearse.
 */
const withoutList = (sandbox: Sandbox) =>
  sandbox.injectFault({
    match: (r) => r.method === 'GET' && r.path === '/enrollment/invitations',
    status: 404,
    body: { message: 'No such endpoint' },
    times: 1_000,
  });
/** The one line roster says when the list cannot settle a doubt, here because it answers 404. */
const LIST_UNUSABLE =
  /^Warning: roster cannot settle invitations in doubt by the server's list \(its list could not be read: [^\n]*HTTP 404[^\n]*\); they are judged by roster's own rules, as before\.\n/;

const reportRows = (stdout: string) => (JSON.parse(stdout) as { rows: ReportRow[] }).rows;
const byResult = (rows: ReportRow[], result: string) =>
  rows
    .filter((r) => r.result === result)
    .map((r) => r.email)
    .sort();

describe('a gateway answering 503 text/plain after the API sent the invitation (sandbox --quirks)', () => {
  let sandbox: Sandbox;
  const env = () => demoEnv(sandbox);
  const posts = () =>
    sandbox.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/enrollment/invitations'));
  const emailsTo = (email: string) => sandbox.outbox.filter((m) => m.to === email).length;
  const invitationsTo = (email: string) => sandbox.invitations().filter((i) => i.email === email).length;

  afterAll(() => sandbox?.close());

  it("gateway-503-retry-after: one `--email` send posts exactly once; the server's list settles it as sent (exit 0)", async () => {
    sandbox = await startSandbox({ seed: SEED, quirks: parseQuirks('gateway-503-retry-after') });
    const result = await runCli(
      [
        'invite',
        'send',
        '--email',
        'gw-settled@example.org',
        '--school-id',
        'org-sch-1',
        '--sent-by-user-id',
        'usr-1',
      ],
      home,
      { env: env() },
    );
    figures('--email under gateway-503-retry-after, the list settling it', {
      posts: posts().length,
      emails: emailsTo('gw-settled@example.org'),
      exit: result.code ?? -1,
    });
    expect(result.code).toBe(0);
    expect(posts()).toHaveLength(1);
    expect(emailsTo('gw-settled@example.org')).toBe(1);
    const [created] = sandbox.invitations().filter((i) => i.email === 'gw-settled@example.org');
    expect(result.stdout).toBe(
      `✓ Invitation to gw-settled@example.org was sent: the server lists it (created at ${created?.createdAt}); it was not sent again.\n`,
    );
    expect(result.stderr).toBe('');
    // The list was asked for that e-mail, as `invite list --email` asks it.
    const reads = sandbox.requests.filter(
      (r) => r.method === 'GET' && r.path.endsWith('/enrollment/invitations'),
    );
    expect(reads.map((r) => new URLSearchParams(r.rawQuery).get('email'))).toEqual([
      'gw-settled@example.org',
    ]);
  });

  it('gateway-503-retry-after without a list to ask: one `--email` send posts exactly once, says it is in doubt and how to check, exit 5', async () => {
    sandbox.requests.length = 0;
    withoutList(sandbox);
    const result = await runCli(
      [
        'invite',
        'send',
        '--email',
        'gw-one@example.org',
        '--school-id',
        'org-sch-1',
        '--sent-by-user-id',
        'usr-1',
      ],
      home,
      { env: env() },
    );
    figures('--email under gateway-503-retry-after', {
      posts: posts().length,
      emails: emailsTo('gw-one@example.org'),
      exit: result.code ?? -1,
    });
    expect(result.stdout).toBe('');
    expect(result.code).toBe(5);
    // The gateway asked to come back in a second; the API had already acted: roster did not come back.
    expect(posts()).toHaveLength(1);
    expect(posts()[0]?.status).toBe(503);
    expect(emailsTo('gw-one@example.org')).toBe(1);
    expect(invitationsTo('gw-one@example.org')).toBe(1);
    expect(result.stderr).toMatch(LIST_UNUSABLE);
    expect(result.stderr.replace(LIST_UNUSABLE, '')).toBe(
      `Error: Invitation to gw-one@example.org: the outcome is unknown (in doubt). The server answered HTTP 503 with a text/plain body "${GATEWAY_503_TEXT}", not the API's own error: a gateway in front of the API answers so even after the API acted; it was not sent again. Check with \`roster invite list --email gw-one@example.org --school-id org-sch-1\` before sending it again.\n`,
    );

    // The check it names finds the invitation the API recorded.
    sandbox.clearFaults();
    const check = await runCli(
      ['invite', 'list', '--email', 'gw-one@example.org', '--school-id', 'org-sch-1', '--json'],
      home,
      { env: env() },
    );
    expect(check.code).toBe(0);
    expect(JSON.parse(check.stdout).data.map((i: { email: string }) => i.email)).toEqual([
      'gw-one@example.org',
    ]);
  });

  it('gateway-503-retry-after: a `--email` send left in doubt is in doubt for a later file run too: no second e-mail', async () => {
    sandbox?.close();
    sandbox = await startSandbox({ seed: SEED, quirks: parseQuirks('gateway-503-retry-after') });
    withoutList(sandbox);
    const one = await runCli(
      [
        'invite',
        'send',
        '--email',
        'gw-later@example.org',
        '--school-id',
        'org-sch-1',
        '--sent-by-user-id',
        'usr-1',
      ],
      home,
      { env: env() },
    );
    expect(one.code).toBe(5);
    expect(emailsTo('gw-later@example.org')).toBe(1);

    // The campaign's file, made later, has the same family: roster must not send it blind.
    const file = join(tempDir(), 'later.csv');
    writeFileSync(file, 'email,schoolId\ngw-later@example.org,org-sch-1\n');
    sandbox.requests.length = 0;
    const run = await runCli(
      ['invite', 'send', '--file', file, '--sent-by-user-id', 'usr-1', '--json'],
      home,
      {
        env: env(),
      },
    );
    figures('a file run after an in-doubt --email send', {
      posts: posts().length,
      emails: emailsTo('gw-later@example.org'),
      exit: run.code ?? -1,
    });
    expect(posts()).toHaveLength(0);
    expect(emailsTo('gw-later@example.org')).toBe(1);
    expect(run.code).toBe(5);
    const [row] = reportRows(run.stdout);
    expect(row?.result).toBe('in-doubt');
    expect(row?.reason).toContain(
      'another run (`roster invite send --email`) could not tell whether it was sent',
    );
  });

  it('gateway-503 without a list to ask: a 10-row file run 3 times e-mails each address once, lists the rows in doubt (exit 5); --resend-in-doubt sends exactly those again', async () => {
    await sandbox?.close();
    sandbox = await startSandbox({ seed: SEED, quirks: parseQuirks('gateway-503=0.5') });
    withoutList(sandbox);
    const { file, emails } = csv('gw-bulk', 10);
    const args = ['invite', 'send', '--file', file, '--sent-by-user-id', 'usr-1', '--json'];

    const runs = [];
    for (let run = 1; run <= 3; run++) {
      const before = posts().length;
      const result = await runCli(args, home, { env: env(), timeoutMs: 60_000 });
      const rows = reportRows(result.stdout);
      runs.push({ result, rows, posts: posts().length - before });
      figures(`10 rows, gateway-503=0.5, run ${run}`, {
        posts: posts().length - before,
        inDoubt: byResult(rows, 'in-doubt').length,
        maxEmailsPerAddress: Math.max(...emails.map(emailsTo)),
        exit: result.code ?? -1,
      });
    }

    // Run 1 posted every row once; the API sent every e-mail; 4 answers were the gateway's 503.
    const [first, second, third] = runs;
    const inDoubt = byResult(first!.rows, 'in-doubt');
    expect(first!.posts).toBe(10);
    expect(inDoubt).toHaveLength(4);
    expect(posts().filter((r) => r.status === 503)).toHaveLength(4);
    expect(byResult(first!.rows, 'sent')).toEqual(emails.filter((e) => !inDoubt.includes(e)).sort());
    expect(byResult(first!.rows, 'failed')).toEqual([]);
    for (const row of first!.rows.filter((r) => r.result === 'in-doubt')) {
      expect(row.status).toBe(503);
      expect(row.reason).toContain(`503 with a text/plain body "${GATEWAY_503_TEXT}"`);
    }
    // Runs 2 and 3 sent nothing: sent rows skipped, rows in doubt listed with how to check them.
    for (const { result, rows, posts: n } of runs) {
      expect(result.code).toBe(5);
      expect(byResult(rows, 'in-doubt')).toEqual(inDoubt);
      expect(result.stderr).toContain('In doubt: 4 (may have been sent; not sent again):');
      for (const email of inDoubt) expect(result.stderr).toContain(`roster invite list --email ${email} `);
      expect(result.stderr).toContain('To send them again anyway, re-run with --resend-in-doubt.');
      if (result !== first!.result) expect(n).toBe(0);
    }
    expect(second!.posts + third!.posts).toBe(0);
    for (const email of emails) {
      expect(emailsTo(email), email).toBe(1);
      expect(invitationsTo(email), email).toBe(1);
    }

    // On purpose only: --resend-in-doubt posts exactly the rows in doubt, once each.
    const before = posts().length;
    const resend = await runCli([...args, '--resend-in-doubt'], home, { env: env(), timeoutMs: 60_000 });
    const resent = posts()
      .slice(before)
      .map((r) => JSON.parse(r.body).email as string)
      .sort();
    figures('--resend-in-doubt', { posts: resent.length, exit: resend.code ?? -1 });
    expect(resent).toEqual(inDoubt);
    for (const email of emails) expect(emailsTo(email), email).toBe(inDoubt.includes(email) ? 2 : 1);
    const after = reportRows(resend.stdout);
    // Under the same gateway some of them may be in doubt again: still never more than the one re-send.
    expect(
      byResult(after, 'in-doubt').length + byResult(after, 'sent').filter((e) => inDoubt.includes(e)).length,
    ).toBe(4);
    expect(resend.code).toBe(byResult(after, 'in-doubt').length > 0 ? 5 : 0);
  }, 120_000);
});

describe('answers that prove nothing was done are still "not sent" (the API without a gateway)', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ seed: SEED });
  });
  afterAll(() => sandbox.close());
  beforeEach(() => {
    sandbox.requests.length = 0;
    sandbox.clearFaults();
  });
  const posts = () =>
    sandbox.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/enrollment/invitations'));
  const isPost = (r: { method: string; path: string }) =>
    r.method === 'POST' && r.path === '/enrollment/invitations';

  it('a 429 (any body) with Retry-After is retried and sent once; without it, not sent', async () => {
    sandbox.injectFault({
      match: isPost,
      status: 429,
      headers: { 'Retry-After': '0', 'Content-Type': 'text/plain' },
      body: 'slow down',
    });
    const retried = await runCli(
      [
        'invite',
        'send',
        '--email',
        'rate-1@example.org',
        '--school-id',
        'org-sch-1',
        '--sent-by-user-id',
        'u1',
      ],
      home,
      { env: demoEnv(sandbox) },
    );
    expect(retried.code).toBe(0);
    expect(posts().map((r) => r.status)).toEqual([429, 201]);
    expect(sandbox.outbox.filter((m) => m.to === 'rate-1@example.org')).toHaveLength(1);

    sandbox.requests.length = 0;
    sandbox.injectFault({ match: isPost, status: 429, body: { message: 'Too many invitations today' } });
    const refused = await runCli(
      [
        'invite',
        'send',
        '--email',
        'rate-2@example.org',
        '--school-id',
        'org-sch-1',
        '--sent-by-user-id',
        'u1',
      ],
      home,
      { env: demoEnv(sandbox) },
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      'Error: Invitation to rate-2@example.org failed (HTTP 429): Too many invitations today.\n',
    );
    expect(posts()).toHaveLength(1);
    expect(sandbox.outbox.filter((m) => m.to === 'rate-2@example.org')).toHaveLength(0);
  });

  it("in a bulk run, a 429 and the API's own 400/409/422 are failed (not sent), and the re-run sends them", async () => {
    const { file, emails } = csv('refused', 6);
    const [rate, bad, conflict, closed] = emails;
    const answers: [string, number, unknown][] = [
      [rate!, 429, { message: 'Too many requests' }],
      [bad!, 400, { message: 'schoolId is unknown' }],
      [conflict!, 409, { message: 'An invitation is being sent to this address' }],
      [closed!, 422, { message: 'The school is closed' }],
    ];
    for (const [email, status, body] of answers)
      sandbox.injectFault({ match: (r) => isPost(r) && r.body.toString().includes(email), status, body });
    const args = ['invite', 'send', '--file', file, '--sent-by-user-id', 'u1', '--json'];
    const first = await runCli(args, home, { env: demoEnv(sandbox) });
    expect(first.code).toBe(5);
    const rows = reportRows(first.stdout);
    expect(byResult(rows, 'failed')).toEqual([rate!, bad!, conflict!, closed!].sort());
    expect(byResult(rows, 'in-doubt')).toEqual([]);
    expect(
      rows
        .filter((r) => r.result === 'failed')
        .map((r) => r.status)
        .sort(),
    ).toEqual([400, 409, 422, 429]);
    expect(first.stderr).toContain('Failed: 4 (not sent; a re-run retries them):');

    sandbox.requests.length = 0;
    const second = await runCli(args, home, { env: demoEnv(sandbox) });
    expect(second.code).toBe(0);
    expect(
      posts()
        .map((r) => JSON.parse(r.body).email)
        .sort(),
    ).toEqual([rate!, bad!, conflict!, closed!].sort());
    for (const email of emails)
      expect(
        sandbox.outbox.filter((m) => m.to === email),
        email,
      ).toHaveLength(1);
  });
});

describe("answers that are not the API's leave a POST in doubt (a hostile server on loopback)", () => {
  let server: Hostile;
  beforeAll(async () => {
    server = await startHostile(undefined, { schools: [{ sourcedId: 's1', name: 'Hostile Elementary' }] });
  });
  afterAll(() => server.close());
  beforeEach(() => {
    server.requests.length = 0;
  });
  const env = { ROSTER_BASE_URL: '', ROSTER_TOKEN: 'a-ready-token-for-the-hostile-server' };
  const roster = (args: string[]) =>
    runCli(args, home, { env: { ...env, ROSTER_BASE_URL: server.baseUrl }, timeoutMs: 60_000 });
  const posts = () => server.requests.filter((r) => r.method === 'POST');

  const answers: [string, Parameters<Hostile['handle']>[0], RegExp][] = [
    [
      'an HTML 502',
      (_, res) =>
        res
          .writeHead(502, { 'content-type': 'text/html' })
          .end('<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>'),
      /HTTP 502 with an HTML page "502 Bad Gateway" \(a proxy or gateway\?\), not the API's own error/,
    ],
    [
      "someone else's JSON 500",
      (_, res) =>
        json(res, 500, { timestamp: '2026-01-01T00:00:00Z', status: 500, error: 'Internal Server Error' }),
      /HTTP 500 with an application\/json body "Internal Server Error", not the API's own error/,
    ],
    [
      "someone else's JSON 503 with Retry-After",
      (_, res) => json(res, 503, { error: 'no healthy upstream' }, { 'retry-after': '0' }),
      /HTTP 503 with an application\/json body "no healthy upstream", not the API's own error/,
    ],
    [
      // AWS API Gateway answers so when its integration fails or times out, after passing the request on:
      // the spec's error shape, so only Retry-After (which such gateways never add) makes a 503 "not sent".
      'a gateway\'s 503 in the API\'s own shape, {"message":"Service Unavailable"}, without Retry-After',
      (_, res) => json(res, 503, { message: 'Service Unavailable' }),
      /HTTP 503 with an application\/json body "Service Unavailable" and no Retry-After: gateways \(AWS API Gateway, Kong\) answer in the API's words/,
    ],
    [
      "the API's own 500",
      (_, res) => json(res, 500, { message: 'mail relay timed out' }),
      /The API answered HTTP 500 \(mail relay timed out\): it failed, maybe after acting on the request/,
    ],
    [
      'a connection reset after the body was written',
      (_, res) => res.socket?.destroy(),
      /may have reached the server \(Request to .* failed: socket hang up\)/,
    ],
  ];

  it.each(answers)('%s: one POST, in doubt, how to check, exit 5', async (_, handler, why) => {
    server.handle(handler);
    const result = await roster([
      'invite',
      'send',
      '--email',
      'doubt@example.org',
      '--school-id',
      's1',
      '--sent-by-user-id',
      'u1',
    ]);
    expect(result.stdout).toBe('');
    expect(result.code).toBe(5);
    // The hostile server answers the list's read the same way: it cannot settle the doubt, which it says.
    expect(result.stderr).toMatch(
      /^Warning: roster cannot settle invitations in doubt by the server's list \(its list could not be read: .*\); they are judged by roster's own rules, as before\.\nError: Invitation to doubt@example\.org: the outcome is unknown/,
    );
    expect(result.stderr).toMatch(why);
    expect(result.stderr).toContain('roster invite list --email doubt@example.org --school-id s1');
    expect(posts()).toHaveLength(1);
  });

  it.each(answers)(
    '%s in a bulk run: every row in doubt, none stopped, none sent again by a re-run',
    async (_, handler) => {
      server.handle(handler);
      const { file, emails } = csv('hostile', 3, () => 's1');
      const args = [
        'invite',
        'send',
        '--file',
        file,
        '--sent-by-user-id',
        'u1',
        '--concurrency',
        '1',
        '--json',
      ];
      const first = await roster(args);
      expect(first.code).toBe(5);
      expect(byResult(reportRows(first.stdout), 'in-doubt')).toEqual([...emails].sort());
      expect(posts()).toHaveLength(3);

      server.requests.length = 0;
      server.handle((req, res) =>
        req.method === 'GET'
          ? // The list a re-run asks before it lists a row in doubt: this API lists none.
            json(res, 200, { data: [], meta: { totalPages: 0 } })
          : json(res, 201, { success: true, message: `Invitation sent to ${JSON.parse(req.body).email}` }),
      );
      const again = await roster(args);
      expect(again.code).toBe(5);
      expect(byResult(reportRows(again.stdout), 'in-doubt')).toEqual([...emails].sort());
      expect(posts()).toHaveLength(0);
    },
  );

  it("a 403 page that is not the API's is in doubt and stops a bulk run at its first row (every row would meet it)", async () => {
    server.handle((_, res) =>
      res.writeHead(403, { 'content-type': 'text/html' }).end('<html><title>Access denied</title></html>'),
    );
    const { file, emails } = csv('waf', 3, () => 's1');
    const result = await roster([
      'invite',
      'send',
      '--file',
      file,
      '--sent-by-user-id',
      'u1',
      '--concurrency',
      '1',
      '--json',
    ]);
    expect(result.code).toBe(5);
    const rows = reportRows(result.stdout);
    expect(byResult(rows, 'in-doubt')).toEqual([emails[0]!]);
    expect(byResult(rows, 'not-started')).toEqual(emails.slice(1).sort());
    expect(result.stderr).toMatch(/Stopped sending: .*HTTP 403 with an HTML page "Access denied"/);
    expect(posts()).toHaveLength(1);
  });
});
