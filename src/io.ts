// The terminal as roster sees it: three streams and what they are connected to.
export interface OutputStream {
  write(chunk: string): boolean;
  once?(event: 'drain', listener: () => void): unknown;
}

export interface IO {
  /** Data and results: every registered secret is redacted from it (see redactedOutput). */
  stdout: OutputStream;
  /** stdout as is, for the one output that is a secret on purpose (`roster token`); default stdout. */
  tokenOut?: OutputStream;
  stderr: OutputStream;
  stdin: NodeJS.ReadableStream;
  stdinIsTTY: boolean;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  /** Width of the terminal, or 80 when stdout is not one. */
  columns: number;
}

/** Writes to a stream and waits when it asks us to, so large exports do not pile up in memory. */
export async function writeWithBackpressure(stream: OutputStream, chunk: string): Promise<void> {
  if (stream.write(chunk) || !stream.once) return;
  await new Promise<void>((resolve) => stream.once?.('drain', resolve));
}

export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

/** What output needs of a command's context: the streams and whether to colour them. */
export interface Terminal {
  io: IO;
  /** Colour on stdout/stderr (off for NO_COLOR, --no-color and pipes). */
  color: boolean;
}
