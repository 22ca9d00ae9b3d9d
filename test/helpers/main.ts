// A run of roster in this process, as bin/roster.js makes one in its own: main() with argv and a fake
// Context (test/helpers/context.ts), its exit code and what it printed. With an HttpMock as the transport
// (test/helpers/http-mock.ts), a behaviour test of a command's output and exit code needs no process,
// socket or build.
import { main } from '../../src/main.js';
import { type FakeContext, type FakeContextOptions, fakeContext } from './context.js';

export interface InProcessRun extends Omit<FakeContext, 'stdout' | 'stderr'> {
  code: number;
  stdout: string;
  stderr: string;
}

export async function rosterInProcess(
  argv: string[],
  options: FakeContextOptions = {},
): Promise<InProcessRun> {
  const f = fakeContext(options);
  const code = await main(argv, f.ctx);
  return { ...f, code, stdout: f.stdout(), stderr: f.stderr() };
}
