// `roster roster …` as a script runs it, for what only a process of its own shows: the built bundle tunes
// the heap of a long read (once per process), and the exit codes of the audit and of changes as scripts
// read them. The behaviour is test/commands/roster-reads.test.ts's, roster-audit.test.ts's and
// roster-changes.test.ts's.
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

describe('roster roster audit', () => {
  it('exit 0 with --fail-on never; 1 when --fail-on warning meets a warning (no school year in 2099)', async () => {
    const audit = ['roster', 'audit', '--check', 'no-current-school-year', '--json'];
    const run = (args: string[]) =>
      runCli([...audit, ...args], tests.home, { env: demoEnv(tests.sandbox), timeoutMs: 60_000 });
    const ok = await run(['--fail-on', 'never']);
    expect(ok.code, ok.stderr).toBe(0);
    const strict = await run(['--fail-on', 'warning', '--date', '2099-01-01']);
    expect(strict.code).toBe(1);
    expect(JSON.parse(strict.stdout)).toMatchObject({ success: false });
  });
});

describe('roster roster changes', () => {
  it('exit 0 for a window read; 2 for a moment in the future, before any request', async () => {
    const run = (since: string) =>
      runCli(['roster', 'changes', 'users', '--since', since, '--ndjson'], tests.home, {
        env: demoEnv(tests.sandbox),
      });
    const read = await run('1h');
    expect(read.code, read.stderr).toBe(0);
    tests.sandbox.requests.length = 0;
    const future = await run('2999-01-01');
    expect(future.code).toBe(2);
    expect(tests.sandbox.requests).toEqual([]);
  });
});
