// Runs roster commands in-process (main + a fake Context) against an in-process sandbox.
import { main } from '../../src/main.js';
import type { Prompter } from '../../src/prompter.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import { fakeContext } from '../helpers/context.js';
import { demoEnv } from '../helpers/sandbox.js';

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
  home: string;
}

export function envFor(sandbox: Sandbox, extra: Record<string, string> = {}): Record<string, string> {
  return demoEnv(sandbox, 'demo-allowed', extra);
}

export interface RunOptions {
  prompter?: Prompter;
  tty?: boolean;
  /** Reuse a HOME (state and cache) from an earlier run, as the same user re-running a command. */
  home?: string;
  signal?: AbortSignal;
  env?: Record<string, string>;
  /** Terminal width (default 100). */
  columns?: number;
}

export async function roster(sandbox: Sandbox, args: string[], options: RunOptions = {}): Promise<Run> {
  const fake = fakeContext({
    env: envFor(sandbox, options.env),
    tty: options.tty,
    prompter: options.prompter,
  });
  if (options.home) {
    const { home } = options;
    fake.ctx.paths = { configDir: `${home}/config`, cacheDir: `${home}/cache`, stateDir: `${home}/state` };
  }
  if (options.columns) fake.ctx.io.columns = options.columns;
  if (options.signal) {
    const signal = options.signal;
    fake.ctx.trapInterrupt = () => signal;
  }
  const code = await main(args, fake.ctx);
  return { code, stdout: fake.stdout(), stderr: fake.stderr(), home: options.home ?? fake.home };
}

/** A prompter that answers from a script and records what it was asked. */
export function scriptedPrompter(answers: {
  inputs?: string[];
  confirm?: boolean;
  /** Typed into a search prompt: the first choice it offers for the text is taken. */
  searches?: string[];
}): Prompter & { asked: string[]; offered: string[][] } {
  const inputs = [...(answers.inputs ?? [])];
  const searches = [...(answers.searches ?? [])];
  const offered: string[][] = [];
  const asked: string[] = [];
  return {
    asked,
    offered,
    input: async (message, options) => {
      asked.push(message);
      const value = inputs.shift() ?? '';
      const valid = options?.validate?.(value);
      if (valid !== undefined && valid !== true) throw new Error(`prompt refused ${value}: ${valid}`);
      return value;
    },
    password: async () => '',
    search: async (message, choices) => {
      asked.push(message);
      const offer = choices(searches.shift() ?? '');
      offered.push(offer.map((c) => c.name));
      if (!offer[0]) throw new Error(`nothing offered for ${message}`);
      return offer[0].value;
    },
    confirm: async (message) => {
      asked.push(message);
      return answers.confirm ?? false;
    },
  };
}

export const posts = (sandbox: Sandbox) =>
  sandbox.requests.filter((r) => r.method === 'POST' && r.path === '/v1/enrollment/invitations');

/** How many e-mails each address got. */
export function deliveries(sandbox: Sandbox): Map<string, number> {
  const counts = new Map<string, number>();
  for (const mail of sandbox.outbox) counts.set(mail.to, (counts.get(mail.to) ?? 0) + 1);
  return counts;
}

export function csvOf(count: number, start = 0, extra = ''): string {
  const rows = Array.from(
    { length: count },
    (_, i) => `parent${start + i}@example.org,org-sch-${((start + i) % 3) + 1},${1 + (i % 2)}${extra}`,
  );
  return `email,schoolId,studentCount\n${rows.join('\n')}\n`;
}
