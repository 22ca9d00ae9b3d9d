// `roster roster …` as a script runs it, for what only a process of its own shows: the built bundle tunes
// the heap of a long read (once per process). The reads' behaviour is test/commands/roster-reads.test.ts's.
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { demoEnv, useSandbox } from '../helpers/sandbox.js';

const STUDENTS = 2345;
const tests = useSandbox({ oneroster: { students: STUDENTS } });

describe('a long read tunes the heap', () => {
  it('--all loads node:v8 from the built bundle and says so under --debug', async () => {
    const result = await runCli(['--debug', 'roster', 'students', '--all', '--ndjson'], tests.home, {
      env: demoEnv(tests.sandbox),
      timeoutMs: 60_000,
    });
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n')).toHaveLength(STUDENTS);
    expect(result.stderr).toContain('[debug] heap: grows at most 10% past what survived its last collection');
    expect(result.stderr).not.toContain('could not tune');
  });
});
