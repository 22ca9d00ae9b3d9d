// When the output cannot be written: a full disk under stdout is one line and exit 1 (not a stack trace); a
// stdout closed early (`| head`, `| true`) ends a streaming read at once with exit 0 (saving nothing), and
// any other command finishes with its own exit code (rows failed, a check failed, a file refused); a stderr
// closed early (`2>&1 | head -1`) leaves the exit code the command's own. The built CLI in a real process,
// its stdout on Linux's /dev/full or a stream's reading end closed by the test.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, existsSync, openSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/server.js';
import { cliEnv, ROSTER_BIN } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { json, startHostile } from '../helpers/hostile.js';
import { demoEnv, useSandbox } from '../helpers/sandbox.js';

const fixture = useSandbox({ oneroster: { students: 300 } });

/** Where the CLI's stdout goes: a file descriptor, a socket, a pipe read to its end, or one closed at once. */
type Stdout = number | Socket | 'pipe' | 'closed';

/** Runs the CLI with `stdout` as given ('closed': a pipe whose reading end is closed at once), and stderr piped (or closed so). */
function run(args: string[], env: Record<string, string>, stdout: Stdout, closeStderr = false) {
  const child = spawn(process.execPath, [ROSTER_BIN, ...args], {
    env: cliEnv(fixture.home, env),
    stdio: ['ignore', stdout === 'closed' ? 'pipe' : stdout, 'pipe'],
  });
  let stderr = '';
  if (closeStderr) child.stderr?.destroy();
  else child.stderr?.on('data', (d) => (stderr += d));
  if (stdout === 'closed') child.stdout?.destroy();
  else child.stdout?.resume();
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  return new Promise<{ code: number | null; stderr: string }>((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    }),
  );
}

describe.skipIf(!existsSync('/dev/full'))('stdout on a full disk', () => {
  it.each([
    ['roster students --all --ndjson', ['roster', 'students', '--all', '--ndjson']],
    ['roster students --limit 1 --json', ['roster', 'students', '--limit', '1', '--json']],
  ])('%s: one line naming ENOSPC, exit 1', async (_, args) => {
    const full = openSync('/dev/full', 'w');
    try {
      const result = await run(args, demoEnv(fixture.sandbox), full);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        'Error: could not write the output: ENOSPC: no space left on device, write.\n',
      );
    } finally {
      closeSync(full);
    }
  });

  it('a bulk send finishes and keeps its exit 5 for rows in doubt, the write failure said once', async () => {
    const full = openSync('/dev/full', 'w');
    try {
      const result = await inDoubtSend(5, ['--json'], full);
      expect(result.code).toBe(5);
      expect(result.posts).toBe(5);
      expect(result.stderr.match(/could not write the output/g)).toEqual(['could not write the output']);
      expect(result.stderr).toContain('Error: Not every invitation is confirmed sent: 5 in doubt.');
    } finally {
      closeSync(full);
    }
  });

  it('a command that succeeded otherwise exits 1: its output is lost', async () => {
    const full = openSync('/dev/full', 'w');
    try {
      const result = await run(['status', '--json'], demoEnv(fixture.sandbox), full);
      expect(result).toEqual({
        code: 1,
        stderr: 'Error: could not write the output: ENOSPC: no space left on device, write.\n',
      });
    } finally {
      closeSync(full);
    }
  });
});

describe('stdout a TCP connection the reader closes', () => {
  it('a read ends with exit 0, as for a closed pipe (ECONNRESET is the reader gone too)', async () => {
    // The reader takes a little, then closes: roster's next writes meet its reset.
    const server = createServer((socket) => {
      let seen = 0;
      socket.on('data', (chunk) => {
        seen += chunk.length;
        if (seen > 1024) socket.destroy();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    // Pages of a thousand: more than the connection buffers, so roster is still writing when the reset comes.
    const district = await startSandbox({ oneroster: { students: 3000 } });
    try {
      // bash opens the connection as roster's stdout: no other process holds it (and takes its error).
      const port = (server.address() as AddressInfo).port;
      const child = spawn(
        'bash',
        [
          '-c',
          `exec "$0" "$@" > /dev/tcp/127.0.0.1/${port}`,
          process.execPath,
          ROSTER_BIN,
          ...['roster', 'students', '--all', '--ndjson'],
        ],
        { env: cliEnv(fixture.home, demoEnv(district)), stdio: ['ignore', 'ignore', 'pipe'] },
      );
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      const [code] = await once(child, 'close');
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    } finally {
      await district.close();
      server.close();
    }
  });
});

/**
 * `invite send --file` of `rows` invitations to a server that answers every POST 500 (each row in doubt),
 * with stdout and stderr as `run` takes them: the run's result and the POSTs the server saw.
 */
async function inDoubtSend(rows: number, extra: string[], stdout: Stdout, closeStderr = false) {
  const server = await startHostile(
    (req, res) =>
      req.method === 'POST' ? json(res, 500, { error: 'upstream failed' }) : res.writeHead(404).end(),
    { schools: [{ sourcedId: 's1', name: 'Alder' }] },
  );
  try {
    const file = join(tempDir(), 'invites.csv');
    writeFileSync(
      file,
      `email,schoolId\n${Array.from({ length: rows }, (_, i) => `p${i}@example.org,s1`).join('\n')}\n`,
    );
    const env = { ROSTER_BASE_URL: server.baseUrl, ROSTER_TOKEN: 'a-ready-token-for-the-hostile-server' };
    const args = ['invite', 'send', '--file', file, '--sent-by-user-id', 'u1', '--yes', ...extra];
    const result = await run(args, env, stdout, closeStderr);
    return { ...result, posts: server.requests.filter((r) => r.method === 'POST').length };
  } finally {
    await server.close();
  }
}

describe('stderr closed early', () => {
  it('a bulk send with rows in doubt still exits 5', async () => {
    const result = await inDoubtSend(20, [], 'pipe', true);
    expect(result.code).toBe(5);
    expect(result.posts).toBe(20);
  });
});

describe('stdout closed early', () => {
  it('a read stops with exit 0 and says nothing: the reader chose to stop', async () => {
    const result = await run(['roster', 'students', '--all', '--ndjson'], demoEnv(fixture.sandbox), 'closed');
    expect(result).toEqual({ code: 0, stderr: '' });
  });

  it('a bulk send with rows in doubt still exits 5, its summary on stderr', async () => {
    const result = await inDoubtSend(5, ['--json'], 'closed');
    expect(result.code).toBe(5);
    expect(result.stderr).toContain('Error: Not every invitation is confirmed sent: 5 in doubt.');
    expect(result.posts).toBe(5);
  });

  it('a bulk send whose file is refused, with --json, still exits 2 and lists the problem on stderr', async () => {
    const file = join(tempDir(), 'unsigned.csv');
    writeFileSync(file, 'email,schoolId\np1@example.org,org-sch-1\n');
    const result = await run(
      ['invite', 'send', '--file', file, '--json', '--yes'],
      demoEnv(fixture.sandbox),
      'closed',
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('line 1: no sentByUserId column and no --sent-by-user-id given');
  });

  it('changes --since last stops at once, exit 0, and saves no mark: the next run reads everything again', async () => {
    const state = tempDir();
    const env = { ...demoEnv(fixture.sandbox), XDG_STATE_HOME: state };
    const args = ['roster', 'changes', 'users', '--since', 'last', '--ndjson'];
    const cut = await run(args, env, 'closed');
    expect(cut.code).toBe(0);
    const next = await run(args, env, 'pipe');
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).toContain('this first --since last run reads every record');
  });

  it('a failed doctor check exits as it does when its output is read', async () => {
    const server = await startHostile((_req, res) => res.writeHead(404).end());
    try {
      const env = { ROSTER_BASE_URL: server.baseUrl, ROSTER_CLIENT_ID: 'c', ROSTER_CLIENT_SECRET: 's' };
      const args = ['doctor', '--json', '--only', 'token-oauth'];
      const read = await run(args, env, 'pipe');
      expect(read.code).not.toBe(0);
      expect(await run(args, env, 'closed')).toEqual(read);
    } finally {
      await server.close();
    }
  });
});
