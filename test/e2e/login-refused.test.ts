// A wrong secret typed into `roster login` on a terminal: the error says to check the client id and
// secret, and does not send the user to `roster login`, the command they are in; nothing is saved.
import { existsSync, readFileSync } from 'node:fs';
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

describe('roster login at a base URL that answers 404', () => {
  it('on a terminal: says so and asks for the URL again, keeping the client id and secret', async () => {
    const run = startPty(['login', '--insecure-storage'], fixture.home);
    await run.waitFor('Base URL of the service');
    // The origin without /v1: the token endpoint answers 404 there.
    run.type(`${fixture.sandbox.origin}${ENTER}`);
    await run.waitFor('Client ID:');
    run.type(`demo-allowed${ENTER}`);
    await run.waitFor('Client secret:');
    run.type(`riverside-secret-2024${ENTER}`);
    await run.waitFor('(HTTP 404)');
    await run.waitFor('Base URL of the service');
    // The URL typed before is the default: clear it, then type the right one.
    run.type(`${'\u007f'.repeat(fixture.sandbox.origin.length + 5)}${fixture.sandbox.baseUrl}${ENTER}`);
    const result = await run.done;
    expect(result.code, result.stdout).toBe(0);
    // The error, then the URL asked again, and neither the client id nor the secret after it.
    const again = result.stdout.slice(result.stdout.lastIndexOf('Base URL of the service'));
    expect(result.stdout.indexOf('(HTTP 404)')).toBeLessThan(
      result.stdout.lastIndexOf('Base URL of the service'),
    );
    expect(again).not.toContain('Client ID:');
    expect(again).not.toContain('Client secret:');
    const config = JSON.parse(readFileSync(join(fixture.home, '.config', 'roster', 'config.json'), 'utf8'));
    expect(config.profiles.default).toMatchObject({
      baseUrl: fixture.sandbox.baseUrl,
      clientId: 'demo-allowed',
    });
  });
});
