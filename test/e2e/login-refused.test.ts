// A wrong secret typed into `roster login` on a terminal: the error says to check the client id and
// secret, and does not send the user to `roster login`, the command they are in; nothing is saved.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startPty } from '../helpers/pty.js';
import { useSandbox } from '../helpers/sandbox.js';

const ENTER = '\r';
const fixture = useSandbox();

describe('roster login refused by the token endpoint', () => {
  it('on a terminal: says to check the id and secret, never "run roster login"; nothing saved', async () => {
    const run = startPty(['login', '--insecure-storage'], fixture.home);
    await run.waitFor('Base URL of the service');
    run.type(`${fixture.sandbox.baseUrl}${ENTER}`);
    await run.waitFor('Client ID:');
    run.type(`demo-allowed${ENTER}`);
    await run.waitFor('Client secret:');
    run.type(`not-the-secret${ENTER}`);
    await run.waitFor('nothing was saved');
    const result = await run.done;
    expect(result.code).toBe(4);
    const after = result.stdout.slice(result.stdout.indexOf('Error:'));
    expect(after).toContain('(invalid_client)');
    expect(after).toContain('Check the client id and secret with the district');
    expect(after).not.toContain('roster login');
    expect(after).not.toContain('not-the-secret');
    expect(existsSync(join(fixture.home, '.config', 'roster', 'config.json'))).toBe(false);
  });
});
