// `roster token`: print an access token for scripts: `curl -H "Authorization: Bearer $(roster token)"`.
// A cached token is printed without any network request (and without loading the HTTP library).
import type { Command } from 'commander';
import type { TokenPurpose } from '../config-file.js';
import type { Context } from '../context.js';
import { jsonText } from '../output/safe-text.js';
import { examples } from './common.js';

export interface TokenOptions {
  endpoint?: string;
  scope?: string;
  refresh?: boolean;
  json?: boolean;
}

export interface TokenOutput {
  access_token: string;
  token_type: string;
  expires_in: number;
  scope?: string;
  expires_at: string;
}

const PURPOSE_OF_ENDPOINT: Record<string, TokenPurpose> = { v1p1: 'oneroster-1.1', v1p2: 'oneroster-1.2' };

export async function run(options: TokenOptions, ctx: Context): Promise<TokenOutput> {
  const session = await ctx.session();
  const purpose = (options.endpoint && PURPOSE_OF_ENDPOINT[options.endpoint]) || 'general';
  const token = await session.accessToken(
    purpose,
    { endpoint: options.endpoint, scope: options.scope },
    options.refresh,
  );
  const valid = Number.isFinite(token.expiresAt);
  return {
    access_token: token.accessToken,
    token_type: token.tokenType,
    expires_in: valid ? Math.max(0, Math.floor((token.expiresAt - ctx.now()) / 1000)) : 0,
    ...(token.scope ? { scope: token.scope } : {}),
    expires_at: valid ? new Date(token.expiresAt).toISOString() : '',
  };
}

export function register(program: Command, ctx: Context): void {
  const command = program
    .command('token')
    .summary('print an access token (cached while valid)')
    .option('--endpoint <name>', 'token endpoint: oauth (default), v1p1, v1p2, or a path')
    .option('--scope <scope>', 'scope to request')
    .option('--refresh', 'get a new token even if the cached one is valid')
    .option('--json', 'print access_token, token_type, expires_in, scope and expires_at as JSON')
    .action(async (options: TokenOptions) => {
      const output = await run(options, ctx);
      // The token itself is a printable b64token (checked where token answers are parsed and cached). The
      // one output that is a secret on purpose: stdout unredacted.
      (ctx.io.tokenOut ?? ctx.io.stdout).write(
        options.json ? `${jsonText(JSON.stringify(output, null, 2))}\n` : `${output.access_token}\n`,
      );
    });
  examples(command, [
    '# On a terminal',
    'roster token --endpoint v1p2 --json',
    'roster token --refresh',
    '# In a script',
    'curl -H "Authorization: Bearer $(roster token)" "$ROSTER_BASE_URL/attendance/status"',
  ]);
}
