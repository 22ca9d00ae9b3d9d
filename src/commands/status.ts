// `roster status`: which profile is active, where its settings and secret come from, and whether a
// cached token is valid. Prints no secret; touches the keychain only to say whether it holds one.
import type { Command } from 'commander';
import { profileAccount, storeFor } from '../auth/credentials.js';
import { KeychainUnavailableError } from '../auth/secret-store.js';
import type { Context } from '../context.js';
import { AuthError, RosterError } from '../errors.js';
import { printFields, printJson } from '../output/render.js';
import { localTime } from '../output/time.js';
import { loginHint, type Settings } from '../settings.js';
import { examples } from './common.js';

export interface StatusReport {
  profile: string;
  configFile: string;
  baseUrl: string | null;
  clientId: string | null;
  clientAuth: string;
  oneroster: string;
  /** environment, keychain, file, token (ROSTER_TOKEN), or none. */
  secretSource: 'environment' | 'keychain' | 'file' | 'token' | 'none';
  /** False when the secret is stored (in the keychain) but this session cannot reach it, as over SSH. */
  secretReachable: boolean;
  token: { endpoint: string; valid: boolean; expiresAt: string | null };
}

export interface StatusResult {
  report: StatusReport;
  /** Why commands cannot authenticate with this profile (exit 4), when they cannot. */
  problem?: RosterError;
}

/** No options: the report is of the run's profile; --json only changes how it is printed. */
export type StatusOptions = Record<string, never>;

export async function run(_options: StatusOptions, ctx: Context): Promise<StatusResult> {
  const settings = await ctx.settings();
  const secret = await secretSource(settings, ctx);
  const report: StatusReport = {
    profile: settings.profileName,
    configFile: settings.configFile,
    baseUrl: settings.baseUrl ?? null,
    clientId: settings.envCredentials?.clientId ?? settings.clientId ?? null,
    clientAuth: settings.clientAuth,
    oneroster: settings.oneroster,
    secretSource: secret.source,
    secretReachable: !secret.unreachable,
    token: { endpoint: '', valid: false, expiresAt: null },
  };
  if (settings.baseUrl && report.clientId) {
    const session = await ctx.session();
    const source = session.tokenSource('general');
    const cached = await session.tokens.peek(source);
    report.token = {
      endpoint: source.key.endpoint,
      valid: cached ? session.tokens.isFresh(cached) : false,
      expiresAt: cached ? new Date(cached.expiresAt).toISOString() : null,
    };
  }
  const problem =
    secret.unreachable ??
    (report.secretSource === 'none'
      ? new AuthError(
          `Profile "${report.profile}" has no credentials.`,
          loginHint(settings, 'set ROSTER_CLIENT_ID and ROSTER_CLIENT_SECRET'),
        )
      : undefined);
  return { report, ...(problem && { problem }) };
}

async function secretSource(
  settings: Settings,
  ctx: Context,
): Promise<{ source: StatusReport['secretSource']; unreachable?: RosterError }> {
  if (settings.envCredentials) return { source: 'environment' };
  if (settings.envToken) return { source: 'token' };
  const account = profileAccount(settings);
  if (!account) return { source: 'none' };
  const stored = settings.profile.secretStorage === 'file' ? 'file' : 'keychain';
  const store = await storeFor(ctx, settings);
  try {
    return { source: (await store.get(account)) ? stored : 'none' };
  } catch (error) {
    // Stored by login, but this session cannot reach the keychain (SSH): say so, not "none".
    if (error instanceof KeychainUnavailableError) {
      const { unreachableSecret } = await import('../auth/unreachable-secret.js');
      return { source: stored, unreachable: unreachableSecret(settings, store, error) };
    }
    if (error instanceof RosterError) ctx.log.warn(error.message);
    return { source: 'none' };
  }
}

export function register(program: Command, ctx: Context): void {
  const command = program
    .command('status')
    .summary('show the active profile, where its secret comes from, and the cached token')
    .option('--json', 'print the report as JSON')
    .action(async (options: { json?: boolean }) => {
      const { report, problem } = await run({}, ctx);
      if (options.json) printJson(ctx, report);
      else
        printFields(ctx, [
          ['Profile', report.profile],
          ['Config file', report.configFile],
          ['Base URL', report.baseUrl ?? '(not set)'],
          ['Client ID', report.clientId ?? '(not set)'],
          ['Client auth', report.clientAuth],
          ['OneRoster', report.oneroster],
          [
            'Secret from',
            report.secretReachable
              ? report.secretSource
              : `${report.secretSource} (stored, but unreachable in this session)`,
          ],
          ['Token', describeToken(report, ctx.now(), ctx.io.stdoutIsTTY)],
        ]);
      if (problem) throw problem;
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
