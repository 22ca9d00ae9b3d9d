// `roster status`: which profile is active, where its settings and secret come from, and whether a
// cached token is valid. Prints no secret; touches the keychain only to say whether it holds one.
import type { Command } from 'commander';
import { profileAccount, storeFor } from '../auth/credentials.js';
import type { Context } from '../context.js';
import { AuthError, RosterError } from '../errors.js';
import { printFields, printJson } from '../output/render.js';
import { localTime } from '../output/time.js';
import { Session } from '../session.js';
import type { Settings } from '../settings.js';
import { examples, loadSettings } from './common.js';

export interface StatusReport {
  profile: string;
  configFile: string;
  baseUrl: string | null;
  clientId: string | null;
  clientAuth: string;
  oneroster: string;
  /** environment, keychain, file, token (ROSTER_TOKEN), or none. */
  secretSource: 'environment' | 'keychain' | 'file' | 'token' | 'none';
  token: { endpoint: string; valid: boolean; expiresAt: string | null };
}

export async function run(settings: Settings, ctx: Context): Promise<StatusReport> {
  const report: StatusReport = {
    profile: settings.profileName,
    configFile: settings.configFile,
    baseUrl: settings.baseUrl ?? null,
    clientId: settings.envCredentials?.clientId ?? settings.clientId ?? null,
    clientAuth: settings.clientAuth,
    oneroster: settings.oneroster,
    secretSource: await secretSource(settings, ctx),
    token: { endpoint: '', valid: false, expiresAt: null },
  };
  if (settings.baseUrl && report.clientId) {
    const session = new Session(ctx, settings);
    const source = session.tokenSource('general');
    const cached = await session.tokens.peek(source);
    report.token = {
      endpoint: source.key.endpoint,
      valid: cached ? session.tokens.isFresh(cached) : false,
      expiresAt: cached ? new Date(cached.expiresAt).toISOString() : null,
    };
  }
  return report;
}

async function secretSource(settings: Settings, ctx: Context): Promise<StatusReport['secretSource']> {
  if (settings.envCredentials) return 'environment';
  if (settings.envToken) return 'token';
  const account = profileAccount(settings);
  if (!account) return 'none';
  try {
    const found = await (await storeFor(ctx, settings)).get(account);
    return found ? (settings.profile.secretStorage === 'file' ? 'file' : 'keychain') : 'none';
  } catch (error) {
    if (error instanceof RosterError) ctx.log.warn(error.message);
    return 'none';
  }
}

export function register(program: Command, ctx: Context): void {
  const command = program
    .command('status')
    .summary('show the active profile, where its secret comes from, and the cached token')
    .option('--json', 'print the report as JSON')
    .action(async (options: { json?: boolean }, cmd: Command) => {
      const report = await run(await loadSettings(ctx, cmd), ctx);
      if (options.json) printJson(ctx, report);
      else
        printFields(ctx, [
          ['Profile', report.profile],
          ['Config file', report.configFile],
          ['Base URL', report.baseUrl ?? '(not set)'],
          ['Client ID', report.clientId ?? '(not set)'],
          ['Client auth', report.clientAuth],
          ['OneRoster', report.oneroster],
          ['Secret from', report.secretSource],
          ['Token', describeToken(report, ctx.now(), ctx.io.stdoutIsTTY)],
        ]);
      if (report.secretSource === 'none') {
        throw new AuthError(
          `Profile "${report.profile}" has no credentials.`,
          'Run `roster login`, or set ROSTER_CLIENT_ID and ROSTER_CLIENT_SECRET.',
        );
      }
    });
  examples(command, [
    '# On a terminal',
    'roster status',
    '# In a script',
    'roster status --profile east --json | jq -r .token.valid',
  ]);
}

/** On a terminal the expiry is local time with its zone; a pipe keeps ISO 8601 UTC, as --json does. */
function describeToken(report: StatusReport, now: number, terminal: boolean): string {
  if (!report.token.expiresAt) return 'none cached';
  const minutes = Math.round((Date.parse(report.token.expiresAt) - now) / 60_000);
  const at = terminal ? localTime(report.token.expiresAt) : report.token.expiresAt;
  return report.token.valid
    ? `valid until ${at} (${minutes} min left; from ${report.token.endpoint})`
    : `expired at ${at}`;
}
