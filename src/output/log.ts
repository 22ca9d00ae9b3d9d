// What every layer writes to stderr through: messages, warnings and --debug traces, each with every known
// secret redacted and no control character left raw. A foundation, so the API and auth layers can log
// without knowing about the command context.
import type { IO } from '../io.js';
import type { Redactor } from '../redact.js';
import { displayLines } from './safe-text.js';

export interface Logger {
  /** Whether --debug is on. */
  debugEnabled: boolean;
  debug(line: string): void;
  /** A note, hint or warning on stderr (never stdout). */
  info(line: string): void;
  warn(line: string): void;
}

/** Every message, warning, error and trace: secrets redacted, then no control character left raw. */
export function createLogger(stderr: IO['stderr'], secrets: Redactor, debugEnabled = false): Logger {
  const write = (line: string) => stderr.write(`${displayLines(secrets.redact(line))}\n`);
  return {
    debugEnabled,
    debug(line) {
      if (this.debugEnabled) write(`[debug] ${line}`);
    },
    info: write,
    warn: (line) => write(`Warning: ${line}`),
  };
}

/**
 * stdout with every secret the process knows redacted: a server may echo a token or the client secret into
 * a label or a record field, and stdout goes to files and pipes as much as stderr does.
 */
export function redactedOutput(stdout: IO['stdout'], secrets: Redactor): IO['stdout'] {
  return {
    write: (chunk) => stdout.write(secrets.redactEchoes(chunk)),
    once: (event, listener) => stdout.once?.(event, listener),
  };
}
