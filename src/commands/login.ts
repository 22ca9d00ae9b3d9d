// `roster login`: ask for (or read) a district's base URL, client id and secret, prove them by getting
// a token, and only then save: the secret to the keychain (or an opt-in file), the rest to the profile.
import { type Command, Option } from 'commander';
import { requestToken } from '../api/oauth.js';
import { type Profile, saveConfig } from '../auth/config.js';
import { registerSecrets } from '../auth/credentials.js';
import { createSecretFileStore, secretFilePath } from '../auth/secret-file.js';
import { secretAccount } from '../auth/secret-store.js';
import { TokenCache } from '../auth/token-cache.js';
import { parseBaseUrl } from '../base-url.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { readAll } from '../io.js';
import { Session, scopeHint } from '../session.js';
import { checkScope, type Settings } from '../settings.js';
import { hiddenCharacter, printable } from '../values.js';
import { examples, loadSettings } from './common.js';
import { checkUserId } from './config-keys.js';

export interface LoginOptions {
  baseUrl?: string;
  clientId?: string;
  clientSecretStdin?: boolean;
  scope?: string;
  onerosterScope?: string;
  sentByUserId?: string;
  insecureStorage?: boolean;
}

export interface LoginResult {
  profile: string;
  baseUrl: string;
  clientId: string;
  storedIn: string;
  configFile: string;
}

export async function run(options: LoginOptions, settings: Settings, ctx: Context): Promise<LoginResult> {
  if (settings.envCredentials) {
    throw new UsageError(
      'ROSTER_CLIENT_ID and ROSTER_CLIENT_SECRET are set: commands already use them, and nothing needs saving.',
      'To save credentials in the keychain instead, unset them and run `roster login` again.',
    );
  }
  const saved = settings.profile;
  // Checked before any prompt or request, by the validators `roster config set` uses for the same keys.
  // An empty --scope or --oneroster-scope clears the saved one.
  const scope =
    options.scope === undefined ? undefined : options.scope && checkScope(options.scope, '--scope');
  const onerosterScope =
    options.onerosterScope === undefined
      ? undefined
      : options.onerosterScope && checkScope(options.onerosterScope, '--oneroster-scope');
  if (options.sentByUserId !== undefined) checkUserId(options.sentByUserId, '--sent-by-user-id');
  const prompter = ctx.interactive ? await ctx.prompter('nothing was saved') : undefined;

  let baseUrl = options.baseUrl ?? settings.baseUrl;
  let clientId = options.clientId ?? saved.clientId;
  let clientSecret = options.clientSecretStdin ? await secretFromStdin(ctx) : undefined;

  if (!prompter) {
    const missing = [
      !baseUrl && '--base-url',
      !clientId && '--client-id',
      !clientSecret && '--client-secret-stdin (pipe the secret on stdin)',
    ].filter(Boolean);
    if (missing.length > 0) {
      throw new UsageError(
        `Missing ${missing.join(', ')}: there is no terminal to ask on.`,
        'Example: printf %s "$SECRET" | roster login --base-url https://api.district.example/v1 --client-id ID --client-secret-stdin',
      );
    }
  } else {
    baseUrl ??= parseBaseUrl(
      // Trimmed as validUrl trims it: a pasted trailing space passed validation, then failed here.
      (await prompter.input('Base URL of the service (including /v1):', { validate: validUrl })).trim(),
      'the prompt',
    );
    clientId ??= (await prompter.input('Client ID:')).trim();
    clientSecret ??= await prompter.password('Client secret:');
  }
  if (!baseUrl || !clientId || !clientSecret)
    throw new UsageError('Base URL, client id and secret are all required.');
  const hidden = hiddenCharacter(clientId);
  if (hidden) throw new UsageError(`Invalid client id "${printable(clientId)}": it contains ${hidden}.`);
  baseUrl = parseBaseUrl(baseUrl);
  registerSecrets(ctx, { clientId, clientSecret });

  // Fail before any request when the keychain cannot be reached (no session bus, locked, missing).
  const store = options.insecureStorage ? createSecretFileStore(ctx.paths.configDir) : await ctx.keychain();
  const account = secretAccount(clientId, baseUrl);
  await store.get(account);

  // Prove the credentials before saving anything.
  const verifying = new Session(ctx, { ...settings, baseUrl });
  const source = verifying.tokenSource('general');
  // The scope general tokens will be asked with (--scope, else ROSTER_SCOPE or the profile's): the token is
  // cached under it.
  const generalScope = options.scope === undefined ? settings.scopes.general : scope || undefined;
  const token = await requestToken(verifying.transport, {
    url: `${baseUrl}${source.key.endpoint}`,
    credentials: { clientId, clientSecret },
    clientAuth: settings.clientAuth,
    scope: generalScope,
    now: ctx.now(),
    scopeHint: scopeHint('general', generalScope, settings.profileName, { login: true }),
  });
  ctx.secrets.add(token.accessToken);

  if (options.insecureStorage) {
    ctx.log.warn(
      `storing the client secret in a plain file readable only by you (${secretFilePath(ctx.paths.configDir)}), not in the system keychain.`,
    );
  }
  await store.set(account, clientSecret);

  const profile: Profile = {
    ...saved,
    baseUrl,
    clientId,
    clientAuth: settings.clientAuth,
    oneroster: settings.oneroster,
    secretStorage: options.insecureStorage ? 'file' : 'keychain',
    ...(scope !== undefined && { scope: scope || undefined }),
    ...(onerosterScope !== undefined && { onerosterScope: onerosterScope || undefined }),
    ...(options.sentByUserId !== undefined && { sentByUserId: options.sentByUserId }),
  };
  const config = {
    ...settings.config,
    profiles: { ...settings.config.profiles, [settings.profileName]: profile },
  };
  config.defaultProfile ??= settings.profileName;
  await saveConfig(ctx.paths.configDir, config);
  // The fresh token is good for an hour: the next command need not ask for another.
  await new TokenCache(`${ctx.paths.cacheDir}/tokens`)
    .write({ ...source.key, clientId, scope: generalScope }, token)
    .catch(() => {});

  return {
    profile: settings.profileName,
    baseUrl,
    clientId,
    storedIn: store.description,
    configFile: settings.configFile,
  };
}

async function secretFromStdin(ctx: Context): Promise<string> {
  if (ctx.io.stdinIsTTY) {
    throw new UsageError(
      '--client-secret-stdin reads the secret from a pipe, but stdin is a terminal.',
      'Leave the flag out to be asked for it.',
    );
  }
  const secret = (await readAll(ctx.io.stdin)).replace(/\r?\n$/, '');
  if (!secret) throw new UsageError('--client-secret-stdin: stdin was empty.');
  if (/[\r\n]/.test(secret)) throw new UsageError('--client-secret-stdin: the secret must be a single line.');
  return secret;
}

function refuseSecretFlag(): never {
  throw new UsageError(
    'The client secret is never accepted as a flag: it would stay in the shell history and show in the process list.',
    'Pipe it with --client-secret-stdin (printf %s "$SECRET" | roster login --client-secret-stdin …), or leave it out to be asked on a terminal. Nothing was saved.',
  );
}

function validUrl(value: string): string | true {
  try {
    parseBaseUrl(value.trim(), 'the prompt');
    return true;
  } catch (error) {
    return (error as Error).message;
  }
}

export function register(program: Command, ctx: Context): void {
  const command = program
    .command('login')
    .summary('save a district profile: base URL, client id, and the secret in the OS keychain')
    .description(
      'Save a district profile. The credentials are checked by getting a token before anything is saved. The client secret goes to the OS keychain (never to a file unless --insecure-storage), the rest to the config file.',
    )
    .option('--client-id <id>', 'OAuth client id issued for the district')
    .option('--client-secret-stdin', 'read the client secret from stdin (it is never accepted as a flag)')
    .addOption(
      // Not an option: the way an admin would first try, answered with the ones that are (with or without a
      // value, and before anything is asked or read).
      new Option('--client-secret [secret]').hideHelp().preset('').argParser(refuseSecretFlag),
    )
    .option('--scope <scope>', 'scope of general and invitation tokens (env ROSTER_SCOPE; default: none)')
    .option(
      '--oneroster-scope <scope>',
      'scope of OneRoster tokens (env ROSTER_ONEROSTER_SCOPE; default: none)',
    )
    .option('--sent-by-user-id <id>', 'default sentByUserId for invitations')
    .option('--insecure-storage', 'store the secret in a 0600 file instead of the keychain')
    .action(async (options: LoginOptions, cmd: Command) => {
      const settings = await loadSettings(ctx, cmd);
      const result = await run(options, settings, ctx);
      ctx.log.info(
        `Logged in to ${result.baseUrl} as ${result.clientId} (profile "${result.profile}").\n` +
          `Saved the profile to ${result.configFile} and the client secret to ${result.storedIn}.`,
      );
    });
  examples(command, [
    '# On a terminal (asks for what is missing)',
    'roster login',
    'roster login --profile east --oneroster 1.2 --client-auth post',
    '# A token endpoint that wants scopes',
    'roster login --scope attendance --oneroster-scope https://purl.imsglobal.org/spec/or/v1p1/scope/roster-core.readonly',
    '# In a script (the secret from stdin, never a flag)',
    'printf %s "$SECRET" | roster login --no-input --base-url https://api.district.example/v1 --client-id district-42 --client-secret-stdin',
  ]);
}
