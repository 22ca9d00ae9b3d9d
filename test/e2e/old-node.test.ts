// roster on a Node older than 22.13 (Node 20 is end of life, and has no node:sqlite, where roster keeps the
// state of sending invitations): one clear line and exit 1 before anything runs; `--version` still answers.
// Run with the machine's own Node when it is that old (these machines' system Node is 20), else skipped.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../../bin/roster.js', import.meta.url));

/** The first `node` on the PATH that is older than 22.13 (the machine's own, under test/with-node.mjs). */
function oldNode(): string | undefined {
  for (const candidate of ['/usr/bin/node', '/usr/local/bin/node', '/bin/node']) {
    if (!existsSync(candidate)) continue;
    const version = spawnSync(candidate, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim();
    const [major = 0, minor = 0] = version.split('.').map(Number);
    if (major < 22 || (major === 22 && minor < 13)) return candidate;
  }
  return undefined;
}

const node = oldNode();

describe.runIf(node)(`roster on ${node ? 'an old Node' : 'Node < 22.13 (none here)'}`, () => {
  it('refuses with one line naming the Node it needs and the way out, exit 1, nothing on stdout', () => {
    const run = spawnSync(node as string, [bin, 'invite', 'list'], { encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^roster needs Node 22\.13 or later; this is Node \d+\.\d+\.\d+\.\n/);
    expect(run.stderr).toContain(
      "Install Node 22, 24 or 26 (https://nodejs.org), or download roster's standalone executable",
    );
  });

  it('--version still answers (a script probing for the tool)', () => {
    const run = spawnSync(node as string, [bin, '--version'], { encoding: 'utf8' });
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });
});
