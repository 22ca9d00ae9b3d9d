// Runs the built CLI on a real pseudo-terminal, as an admin at a terminal would: util-linux `script`
// gives the process a pty for stdin, stdout and stderr; the test types into it and reads the screen.
import { spawn } from 'node:child_process';
import { type CliResult, cliEnv, ROSTER_BIN } from './cli.js';

export interface PtyRun {
  /** Everything the terminal showed so far (stdout and stderr, with the prompts' escape sequences). */
  screen(): string;
  /** Types text (keys: '\r' Enter, '\u001b[B' down arrow). */
  type(text: string): void;
  /** Waits until the screen shows the text (after what was shown before the last wait), or fails. */
  waitFor(text: string | RegExp, timeoutMs?: number): Promise<void>;
  done: Promise<CliResult>;
}

const quote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`;

export interface PtyOptions {
  /** The terminal's width (stty cols), as a window of that size would have it. */
  columns?: number;
  /** A standalone executable to run instead of Node with bin/roster.js. */
  executable?: string;
}

export function startPty(
  args: string[],
  home: string,
  env: Record<string, string | undefined> = {},
  options: PtyOptions = {},
): PtyRun {
  const program = options.executable ? [options.executable] : [process.execPath, ROSTER_BIN];
  const run = [...program, ...args].map(quote).join(' ');
  const command = options.columns ? `stty cols ${options.columns} rows 24 && exec ${run}` : run;
  // -e: script's exit code is the command's; -q: no "Script started" lines; /dev/null: no typescript file.
  const child = spawn('script', ['-q', '-e', '-c', command, '/dev/null'], {
    env: cliEnv(home, { TERM: 'xterm', ...env }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let screen = '';
  let seen = 0;
  child.stdout.on('data', (d) => (screen += d));
  child.stderr.on('data', (d) => (screen += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const done = new Promise<CliResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: screen, stderr: '' });
    });
  });
  return {
    screen: () => screen,
    type: (text) => child.stdin.write(text),
    async waitFor(text, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const rest = screen.slice(seen);
        const index = typeof text === 'string' ? rest.indexOf(text) : rest.search(text);
        if (index >= 0) {
          seen += index + 1;
          return;
        }
        if (Date.now() > deadline || child.exitCode !== null) {
          throw new Error(`the terminal never showed ${String(text)}; it showed:\n${screen}`);
        }
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    done,
  };
}
