// `roster sandbox`: the local stand-in for the service, for rehearsals, offline scripts and our tests.
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { RosterError, UsageError } from '../errors.js';
import { isLoopbackHost } from '../sandbox/http.js';
import type { LinkStyle } from '../sandbox/oneroster/paging.js';
import type { AgentsSide } from '../sandbox/oneroster/records.js';
import { parseQuirks, QUIRK_DOCS, type Quirks } from '../sandbox/quirks.js';
import type { Sandbox } from '../sandbox/server.js';
import { printable } from '../values.js';
import { choice, examples } from './common.js';

// Spelled here, not imported: the sandbox's modules load only when it runs.
const AGENT_SIDES: readonly AgentsSide[] = ['both', 'students', 'guardians'];
const LINK_STYLES: readonly LinkStyle[] = ['angle', 'bare', 'none'];

export interface SandboxCommandOptions {
  port: string;
  host: string;
  students?: string;
  schools?: string;
  agents?: AgentsSide;
  refuse?: string;
  tokenTtl?: string;
  latency?: string;
  jitter?: string;
  failRate?: string;
  failStatus?: string;
  dropRate?: string;
  rateLimit?: string;
  pageCap?: string;
  link?: LinkStyle;
  outbox?: string;
  churn?: string;
  quirks?: string;
  quiet?: boolean;
  defects?: boolean;
  familyTraps?: boolean;
  without?: string;
}

function number(
  flag: string,
  value: string | undefined,
  min: number,
  max: number,
  integer = true,
): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < min || n > max || (integer && !Number.isInteger(n))) {
    throw new UsageError(
      `Invalid ${flag} "${value.slice(0, 40)}": expected ${integer ? 'a whole number' : 'a number'} from ${min} to ${max}.`,
    );
  }
  return n;
}

export function sandboxOptions(o: SandboxCommandOptions) {
  const rate = (v: string | undefined) => (v?.endsWith('/s') ? v.slice(0, -2) : v);
  // The demo clients' secrets are public: a sandbox reachable from the network would hand them out.
  if (!isLoopbackHost(o.host)) {
    throw new UsageError(
      `Invalid --host "${printable(o.host, 60)}": the sandbox listens on loopback only (127.0.0.1, ::1, localhost), because its demo secrets are public.`,
      'To reach it from another machine, tunnel to it (e.g. ssh -L 4010:127.0.0.1:4010).',
    );
  }
  const refused = o.refuse === undefined ? [] : o.refuse.split(',').map((s) => s.trim());
  const unknown = refused.find((r) => r !== 'fields');
  if (unknown !== undefined) {
    throw new UsageError(`Invalid --refuse "${unknown.slice(0, 20)}": expected fields.`);
  }
  let quirks: Quirks | undefined;
  try {
    quirks = o.quirks === undefined ? undefined : parseQuirks(o.quirks);
  } catch (err) {
    throw new UsageError(`Invalid --quirks: ${(err as Error).message}.`);
  }
  return {
    host: o.host,
    quirks,
    port: number('--port', o.port, 0, 65535),
    tokenTtlSeconds: number('--token-ttl', o.tokenTtl, 1, 86_400),
    latencyMs: number('--latency', o.latency, 0, 60_000),
    jitterMs: number('--jitter', o.jitter, 0, 60_000),
    failRate: number('--fail-rate', o.failRate, 0, 1, false),
    failStatus: number('--fail-status', o.failStatus, 400, 599),
    dropRate: number('--drop-rate', o.dropRate, 0, 1, false),
    rateLimit: number('--rate-limit', rate(o.rateLimit), 1, 100_000),
    outboxDir: o.outbox,
    churnPerMinute: number('--churn', o.churn, 0, 100_000),
    oneroster: {
      students: number('--students', o.students, 0, 200_000),
      schools: number('--schools', o.schools, 1, 100),
      agents: o.agents,
      ...(refused.includes('fields') ? { refuseFields: true } : {}),
      pageCap: number('--page-cap', o.pageCap, 1, 100_000),
      link: o.link,
      ...(o.defects ? { defects: true } : {}),
      ...(o.familyTraps ? { familyTraps: true } : {}),
      ...(o.without !== undefined && {
        without: o.without
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      }),
    },
  };
}

/** `roster sandbox`: the sandbox started and listening (the caller closes it). */
export async function run(options: SandboxCommandOptions, ctx: Context): Promise<Sandbox> {
  const parsed = sandboxOptions(options);
  const { startSandbox } = await import('../sandbox/server.js');
  try {
    return await startSandbox({
      ...parsed,
      record: false,
      log: options.quiet ? undefined : (line) => ctx.log.info(line),
    });
  } catch (error) {
    // The sandbox's own check of --without's names: bad input, nothing started.
    if (error instanceof RangeError) throw new UsageError(`Invalid --without: ${error.message}.`);
    throw listenError(error, parsed.port ?? 4010) ?? error;
  }
}

/** A port the sandbox cannot listen on, said with what to pass instead (it was an "unexpected failure"). */
function listenError(error: unknown, port: number): RosterError | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  const instead = 'pass --port N, or --port 0 for any free port';
  if (code === 'EADDRINUSE') return new RosterError('failure', `Port ${port} is in use; ${instead}`);
  if (code === 'EACCES')
    return new RosterError('failure', `Port ${port} needs privileges this user lacks; ${instead}`);
  return undefined;
}

/** The flags that shape the server and its district: where it listens, how big, which links, its tokens. */
function addDistrictOptions(command: Command): void {
  command
    .option('--port <n>', 'port to listen on', '4010')
    .option('--host <address>', 'loopback address to listen on', '127.0.0.1')
    .option('--students <n>', 'students in the demo district (default 1200, up to 200000)')
    .option('--schools <n>', 'teaching schools in the demo district (default 5, up to 100)')
    .option(
      '--agents <side>',
      'OneRoster: which records carry student-guardian agents: both (default), students or guardians',
      choice('--agents', AGENT_SIDES),
    )
    .option(
      '--refuse <what>',
      'OneRoster 1.2: answer 400 to these query parameters, as some servers do: fields',
    )
    .option('--token-ttl <seconds>', 'access token lifetime', undefined);
}

/** The flags that make it behave as real deployments, networks and districts do: slow, failing, changing. */
function addBehaviourOptions(command: Command): void {
  command
    .option('--latency <ms>', 'delay every response')
    .option('--jitter <ms>', 'random extra delay up to this much')
    .option('--fail-rate <p>', 'answer this fraction of resource requests with --fail-status')
    .option('--fail-status <code>', 'status of injected failures (default 503)')
    .option('--drop-rate <p>', 'close this fraction of connections mid-response')
    .option('--rate-limit <n/s>', 'requests per second per client before 429')
    .option('--page-cap <n>', 'OneRoster: silently clamp limit to this many rows')
    .option(
      '--link <style>',
      'OneRoster Link header: angle (default), bare or none',
      choice('--link', LINK_STYLES),
    )
    .option('--outbox <dir>', 'also write invitation e-mails as .eml files here')
    .option(
      '--churn <n>',
      'OneRoster: change n records a minute (edits, new students with their families and enrollments, tobedeleted); POST /__sandbox/churn?n=K makes K at once',
    )
    .option(
      '--quirks <list>',
      `behave as real deployments do (comma-separated): ${QUIRK_DOCS.map((q) => (q.value ? `${q.name}[=${q.value}]` : q.name)).join(', ')}; see docs/sandbox.md`,
    )
    .option(
      '--family-traps',
      'OneRoster: the families real districts have that invite plan cannot reach (no guardian, no or a bad e-mail, a link the API does not return, tobedeleted) and ~1% of users tobedeleted; without it the district is clean: roster roster audit finds nothing',
    )
    .option(
      '--defects',
      'OneRoster: plant one of each data error roster roster audit reports, on known records (see docs/sandbox.md)',
    )
    .option(
      '--without <collections>',
      'OneRoster: answer 404 (unknown endpoint) for these collections, as a server that serves part of OneRoster does (comma-separated, e.g. academicSessions)',
    )
    .option('--quiet', 'do not log requests');
}

/** Prints the sandbox's address, clients and a first command, and serves until Ctrl-C. */
async function serveUntilInterrupted(sandbox: Sandbox, ctx: Context): Promise<void> {
  const lines = [
    `Sandbox listening on ${sandbox.baseUrl}`,
    '',
    'Demo clients (client id / secret / what it shows):',
    ...sandbox.clients.map((c) => `  ${c.clientId}  ${JSON.stringify(c.clientSecret)}  ${c.label}`),
    '',
    'Try:',
    `  export ROSTER_BASE_URL=${sandbox.baseUrl}`,
    `  export ROSTER_CLIENT_ID=${sandbox.clients[0]?.clientId}`,
    `  export ROSTER_CLIENT_SECRET=${JSON.stringify(sandbox.clients[0]?.clientSecret)}`,
    '  roster attendance check',
    '',
    'Press Ctrl-C to stop.',
  ];
  ctx.io.stdout.write(`${lines.join('\n')}\n`);
  const interrupted = ctx.trapInterrupt();
  await new Promise<void>((resolve) =>
    interrupted.addEventListener('abort', () => resolve(), { once: true }),
  );
  await sandbox.close();
}

export function register(program: Command, ctx: Context): void {
  const command = program
    .command('sandbox')
    .summary('run a local stand-in for the service with demo data (loopback only)')
    .description(
      'Run a local stand-in for the service with demo data, on loopback only. Its OneRoster district is clean ' +
        '(roster roster audit finds nothing, roster doctor passes) unless --family-traps or --defects say ' +
        "otherwise; its academic sessions are the school year containing today by the sandbox's clock " +
        '(July 1 to June 30, e.g. as-2026-27, its terms and grading periods inside it).',
    );
  addDistrictOptions(command);
  addBehaviourOptions(command);
  command.action(async (options: SandboxCommandOptions) =>
    serveUntilInterrupted(await run(options, ctx), ctx),
  );
  examples(command, [
    '# On a terminal',
    'roster sandbox',
    'roster sandbox --port 8080 --students 5000 --latency 50',
    'roster sandbox --fail-rate 0.1 --drop-rate 0.05 --rate-limit 20/s',
    'roster sandbox --churn 30   # then: roster roster changes --since last',
    'roster sandbox --agents students --refuse fields   # links on one side only; a stricter 1.2 server',
    'roster sandbox --family-traps   # families invite plan cannot reach; then: roster invite plan --all-schools',
    'roster sandbox --defects        # then: roster roster audit (exit 1), roster doctor',
    'roster sandbox --without academicSessions   # a server that serves part of OneRoster',
    'roster sandbox --students 50000 --schools 25',
    "roster sandbox --quirks wrappers,scope-required,clock=+2h   # rehearse a vendor's server",
    '# In a script (a rehearsal against the sandbox, stopped afterwards)',
    'roster sandbox --quiet & pid=$!; sleep 1; ROSTER_BASE_URL=http://127.0.0.1:4010/v1 ROSTER_CLIENT_ID=demo-allowed ROSTER_CLIENT_SECRET=riverside-secret-2024 roster doctor; kill $pid',
  ]);
}
