// The adversarial probe of "The field, round 2" §2: a gateway or rate limiter that answers a fault AFTER the
// API created the invitation and e-mailed the family (the sandbox's scripted fault with afterProcessing).
// roster asks the server's own list before a retry and before reporting a row in doubt, so every family
// gets exactly one e-mail across two runs, counted at the sandbox's outbox.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GATEWAY_503_TEXT } from '../../src/sandbox/gateway.js';
import { type Sandbox, type ScriptedFault, startSandbox } from '../../src/sandbox/server.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { demoEnv } from '../helpers/sandbox.js';

type Answer = Pick<ScriptedFault, 'status' | 'headers' | 'body'>;
const CASES: [string, Answer][] = [
  ['503 text/plain', { status: 503, headers: { 'content-type': 'text/plain' }, body: GATEWAY_503_TEXT }],
  [
    "the API's JSON 503 with Retry-After",
    { status: 503, headers: { 'retry-after': '1' }, body: { message: 'Service Unavailable' } },
  ],
  ['429 with Retry-After', { status: 429, headers: { 'retry-after': '1' }, body: { message: 'Slow down' } }],
  ['429', { status: 429, body: { message: 'Too many requests' } }],
];

let sandbox: Sandbox;
let home: string;
beforeAll(async () => {
  sandbox = await startSandbox({ seed: 11 });
});
afterAll(() => sandbox.close());
beforeEach(() => {
  home = tempDir();
  sandbox.requests.length = 0;
  sandbox.clearFaults();
});

const isPost = (r: { method: string; path: string }) =>
  r.method === 'POST' && r.path === '/enrollment/invitations';
const posts = () =>
  sandbox.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/enrollment/invitations'));
const emailsTo = (email: string) => sandbox.outbox.filter((m) => m.to === email).length;
/** Every invitation POST answered `answer` once the sandbox has created the invitation and e-mailed it. */
const afterCreating = (answer: Answer) =>
  sandbox.injectFault({ match: isPost, afterProcessing: true, times: 1_000, ...answer });

describe.each(CASES)('%s, answered after the invitation was created', (name, answer) => {
  const tag = name.replace(/[^a-z0-9]+/gi, '-').toLowerCase();

  it('a bulk send of 10 families, run twice: 10 POSTs in all, one e-mail each, every row sent', async () => {
    afterCreating(answer);
    const emails = Array.from({ length: 10 }, (_, i) => `probe-${tag}-${i}@example.org`);
    const file = join(tempDir(), 'families.csv');
    writeFileSync(file, `email,schoolId\n${emails.map((e) => `${e},org-sch-1`).join('\n')}\n`);
    const args = ['invite', 'send', '--file', file, '--sent-by-user-id', 'usr-1', '--json'];
    const first = await runCli(args, home, { env: demoEnv(sandbox), timeoutMs: 60_000 });
    const second = await runCli(args, home, { env: demoEnv(sandbox), timeoutMs: 60_000 });
    console.log(
      `${name}, bulk: posts ${posts().length}, e-mails ${sandbox.outbox.filter((m) => emails.includes(m.to)).length}, exits ${first.code}/${second.code}`,
    );
    expect(posts()).toHaveLength(10);
    for (const email of emails) expect(emailsTo(email), email).toBe(1);
    expect(first.code).toBe(0);
    expect(second.code).toBe(0);
    const rows = (JSON.parse(first.stdout) as { rows: { result: string }[] }).rows;
    expect(rows.map((r) => r.result)).toEqual(Array(10).fill('sent'));
    expect(first.stderr).not.toMatch(/in doubt|cannot settle/);
  }, 120_000);

  it('a single send: one POST, one e-mail, settled as sent (exit 0); a later file run sends nothing', async () => {
    afterCreating(answer);
    const email = `probe-one-${tag}@example.org`;
    const one = await runCli(
      ['invite', 'send', '--email', email, '--school-id', 'org-sch-1', '--sent-by-user-id', 'usr-1'],
      home,
      { env: demoEnv(sandbox) },
    );
    expect(one.code).toBe(0);
    expect(one.stdout).toMatch(
      new RegExp(
        `^✓ Invitation to ${email.replace(/\./g, '\\.')} was sent: the server lists it \\(created at `,
      ),
    );
    const file = join(tempDir(), 'later.csv');
    writeFileSync(file, `email,schoolId\n${email},org-sch-1\n`);
    const later = await runCli(['invite', 'send', '--file', file, '--sent-by-user-id', 'usr-1'], home, {
      env: demoEnv(sandbox),
    });
    console.log(
      `${name}, single: posts ${posts().length}, e-mails ${emailsTo(email)}, exits ${one.code}/${later.code}`,
    );
    expect(later.code).toBe(0);
    expect(posts()).toHaveLength(1);
    expect(emailsTo(email)).toBe(1);
  });
});
