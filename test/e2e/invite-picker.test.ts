// `roster invite send` on a real terminal (a pseudo-terminal): without --school-id the admin picks the
// school from the district's schools, typing to search, and the invitation goes to that school.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { tempDir } from '../helpers/context.js';
import { startPty } from '../helpers/pty.js';
import { demoEnv } from '../helpers/sandbox.js';

let sandbox: Sandbox;
let home: string;
const ENTER = '\r';
const DOWN = '\u001b[B';

beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());
beforeEach(() => {
  home = tempDir();
  sandbox.requests.length = 0;
});

const posted = () =>
  sandbox.requests
    .filter((r) => r.method === 'POST' && r.path === '/v1/enrollment/invitations')
    .map((r) => JSON.parse(r.body) as { email: string; schoolId: string });
const pty = (email: string) =>
  startPty(['invite', 'send', '--email', email, '--sent-by-user-id', 'usr-1'], home, demoEnv(sandbox));

describe('invite send on a terminal, without --school-id', () => {
  it('offers the schools, narrows them as the admin types, and sends to the one picked', async () => {
    const run = pty('picked@example.org');
    await run.waitFor('School (type to search by name, identifier or sourcedId)');
    await run.waitFor('Alder Elementary School  ·  360001000001  ·  org-sch-1');
    await run.waitFor('Fir Grove School  ·  360001000007  ·  org-sch-7');
    run.type('cedar');
    await run.waitFor('Use "cedar" as typed');
    expect(run.screen().slice(run.screen().lastIndexOf('cedar'))).not.toContain('Alder');
    run.type(ENTER);
    await run.waitFor('schoolId:                 "org-sch-3" (Cedar Elementary School)');
    await run.waitFor('Send it to picked@example.org?');
    run.type(`y${ENTER}`);
    const result = await run.done;
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('✓ Invitation sent to picked@example.org');
    expect(posted()).toEqual([
      expect.objectContaining({ email: 'picked@example.org', schoolId: 'org-sch-3' }),
    ]);
  });

  it('typed text that names two schools is refused with both and asked again; nothing is sent until a school is picked', async () => {
    const run = pty('again@example.org');
    await run.waitFor('School (type');
    run.type('fir grove school');
    await run.waitFor('Use "fir grove school" as typed');
    // The two campuses, then the text itself: take the text.
    run.type(`${DOWN}${DOWN}${ENTER}`);
    await run.waitFor('"fir grove school" matches 2 schools');
    expect(posted()).toEqual([]);
    await run.waitFor('School (type');
    run.type('360001000007');
    await run.waitFor('Use "360001000007" as typed');
    run.type(ENTER);
    await run.waitFor('Send it to again@example.org?');
    run.type(`y${ENTER}`);
    expect((await run.done).code).toBe(0);
    expect(posted()).toEqual([
      expect.objectContaining({ email: 'again@example.org', schoolId: 'org-sch-7' }),
    ]);
  });
});
