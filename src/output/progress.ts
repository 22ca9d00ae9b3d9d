// A live one-line progress display on stderr, only when stderr is a terminal (never in pipes, logs or CI
// output). ora loads lazily, on the first run that needs it.
import type { Terminal } from '../io.js';
import { displayText } from './safe-text.js';

export interface Progress {
  update(text: string): void;
  /** Clears the line, so a summary can follow. */
  stop(): void;
}

const SILENT: Progress = { update() {}, stop() {} };

export async function startProgress(ctx: Terminal, text: string): Promise<Progress> {
  // ora measures lines by the stream's width: a terminal that reports none (some ptys say 0) would make
  // it clear lines without end, so no spinner there either.
  const width = (ctx.io.stderr as { columns?: number }).columns;
  if (!ctx.io.stderrIsTTY || !width || width < 20) return SILENT;
  const { default: ora } = await import('ora');
  const spinner = ora({
    text: displayText(text),
    stream: ctx.io.stderr as unknown as NodeJS.WritableStream,
    isEnabled: true,
    color: ctx.color ? 'cyan' : false,
    // ora would otherwise put stdin in raw mode and swallow keys; Ctrl-C must stay a plain SIGINT.
    discardStdin: false,
  }).start();
  let last = 0;
  let pending: string | undefined;
  return {
    update(text) {
      const next = displayText(text);
      // At most ~10 repaints a second: hundreds of rows a second must not flood the terminal.
      const now = Date.now();
      if (now - last < 100) {
        pending = next;
        return;
      }
      last = now;
      pending = undefined;
      spinner.text = next;
    },
    stop() {
      if (pending !== undefined) spinner.text = pending;
      spinner.stop();
    },
  };
}
