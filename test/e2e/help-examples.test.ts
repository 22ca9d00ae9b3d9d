// Every example a command's --help and the README show runs against the sandbox without a usage error:
// each `roster …` line of every "Examples:" section and of the README, run as written by bash (pipes, redirections, `|| exit $?`) in a
// folder holding the files the examples name, with `roster` on the PATH as the built CLI, logged in to a
// sandbox as the profiles "default" (with a saved sentByUserId) and "east". The ids they use (org-sch-1,
// adm-001) are the sandbox's. roster's own exit codes are recorded by the shim: none may be 2.
import { spawn } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv, ROSTER_BIN, runCli } from '../helpers/cli.js';
import { everyCommandsHelp } from '../helpers/help.js';
import { insecureLogin, useSandbox } from '../helpers/sandbox.js';

/** The `roster …` lines of a help's "Examples:" section (comments and prose left out). */
function examplesOf(help: string): string[] {
  const start = help.indexOf('\nExamples:\n');
  if (start < 0) return [];
  const lines: string[] = [];
  for (const line of help.slice(start + 11).split('\n')) {
    if (!line.startsWith('  ')) break;
    if (line.trim().startsWith('roster ')) lines.push(line.trim());
  }
  return lines;
}

/**
 * The README's examples: its command table's (`roster …` in backquotes) and the `roster …` lines of its
 * sh blocks, without their comments.
 */
function readmeExamples(): string[] {
  const readme = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');
  const table = [...readme.matchAll(/\| `(roster [^`]+)` \|$/gm)].map((m) => m[1] as string);
  const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) =>
    (m[1] as string)
      .split('\n')
      .filter((line) => line.startsWith('roster '))
      .map((line) => line.replace(/\s+#.*$/, '').trim()),
  );
  return [...table, ...blocks];
}

/**
 * Examples that start a server that runs until Ctrl-C: stopped once it says it listens (its options were
 * taken), or after 3 s; a usage error ends it at once.
 */
const RUNS_UNTIL_STOPPED = /^roster sandbox\b/;
/**
 * Examples of what a person does at a terminal, which asks (login asks for the secret, forget --file
 * before it forgets): run on a pseudo-terminal (util-linux `script`) until the question, then stopped.
 */
const ASKS_ON_A_TERMINAL = /^roster (login|invite forget --file)\b/;
/**
 * What such a run shows once it is past its options: the sandbox listening, or a question ("? …"). Only a
 * line of one command stops there: in `roster sandbox & …; roster doctor` the rest runs as before.
 */
const UNDER_WAY = /Sandbox listening on |(^|[\r\n])\? \S/;
const oneCommand = (example: string) => !/[;&|]/.test(example);

const INVITES =
  'email,schoolId,studentCount\nexample1@example.org,org-sch-1,1\nexample2@example.org,Birch Elementary School,2\n';

// Some 600 runs of roster (4–5 minutes here): CI runs them in one suite, not again on every Node
// (ROSTER_TEST_EXAMPLES=0 in .ci/run's other suites); `npm test` runs them.
describe.skipIf(process.env.ROSTER_TEST_EXAMPLES === '0')(
  'every example in every command’s help and in the README runs against the sandbox',
  () => {
    const tests = useSandbox();

    it('without a usage error (exit 2)', async () => {
      const commands = await everyCommandsHelp();
      const readme = readmeExamples();
      expect(readme.length).toBeGreaterThan(30);
      const examples = [...new Set([...commands.flatMap((c) => examplesOf(c.help)), ...readme])];
      expect(examples.length).toBeGreaterThan(90);
      const { home, sandbox } = tests;
      for (const profile of [[], ['--profile', 'east']]) {
        const login = insecureLogin(sandbox, profile);
        expect((await runCli(login.args, home, { input: login.input })).code).toBe(0);
      }
      expect((await runCli(['config', 'set', 'sentByUserId', 'adm-001'], home)).code).toBe(0);
      // Each example starts from these profiles: one's logout or `profiles use` is not the next one's state.
      const config = join(home, '.config', 'roster');
      const saved = join(home, 'config-saved');
      cpSync(config, saved, { recursive: true });
      // The files the examples name, in the folder they run in.
      const work = join(home, 'work');
      mkdirSync(join(home, '.config', 'fish', 'completions'), { recursive: true });
      mkdirSync(work);
      for (const name of ['invites.csv', 'roundup.csv', 'reenrol.csv', 'reenrol-2025.csv'])
        writeFileSync(join(work, name), INVITES);
      writeFileSync(join(work, 'invites-excel.csv'), INVITES.replace(/,/g, ';'));
      mkdirSync(join(work, 'docs'));
      cpSync(
        join(import.meta.dirname, '..', '..', 'docs', 'sample-invitations.csv'),
        join(work, 'docs', 'sample-invitations.csv'),
      );
      // `roster` on the PATH: the built CLI, recording each of its exit codes.
      const bin = join(home, 'bin');
      const codes = join(home, 'codes');
      mkdirSync(bin);
      writeFileSync(
        join(bin, 'roster'),
        `#!/bin/sh\n"${process.execPath}" "${ROSTER_BIN}" "$@"\nrc=$?\necho "$rc" >> "${codes}"\nexit $rc\n`,
      );
      chmodSync(join(bin, 'roster'), 0o755);
      const env = cliEnv(home, { PATH: `${bin}:${process.env.PATH}`, DISTRICT: 'east' });

      const usage: string[] = [];
      for (const example of examples) {
        writeFileSync(codes, '');
        rmSync(config, { recursive: true, force: true });
        cpSync(saved, config, { recursive: true });
        const asks = ASKS_ON_A_TERMINAL.test(example);
        const line = asks ? `script -q -e -c ${shellQuote(example)} /dev/null` : example;
        const waits = RUNS_UNTIL_STOPPED.test(example) || asks;
        const { stderr } = await runShell(
          line,
          work,
          env,
          waits ? 3000 : 60_000,
          waits && oneCommand(example) ? UNDER_WAY : undefined,
        );
        const exits = readFileSync(codes, 'utf8').trim().split('\n').filter(Boolean);
        if (exits.includes('2')) usage.push(`${example}\n    ${stderr.trim().split('\n').join('\n    ')}`);
      }
      expect(usage).toEqual([]);
      expect(existsSync(join(work, 'report.json'))).toBe(true);
    }, 900_000);
  },
);

const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/**
 * Runs a line with bash in `cwd`; a run still going after `stopAfterMs`, or once its output shows `underWay`,
 * is stopped (its whole group).
 */
function runShell(
  line: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
  stopAfterMs: number,
  underWay?: RegExp,
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', line], {
      cwd,
      env,
      detached: true,
      // stdin a pipe left open: a question on a pseudo-terminal waits for an answer until the run is stopped.
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    let shown = '';
    // The whole group, even once bash has ended: `roster sandbox &` leaves the sandbox running in it.
    const stop = () => {
      if (!child.pid) return;
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        // the group has ended already
      }
    };
    const watch = (d: Buffer) => {
      shown += d.toString().replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');
      if (underWay?.test(shown)) stop();
    };
    child.stdout.on('data', watch);
    child.stderr.on('data', (d: Buffer) => {
      stderr += d;
      watch(d);
    });
    const timer = setTimeout(stop, stopAfterMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}
