// Profiles: one district each. Kept in a JSON file under the user's config directory that never holds
// a secret (the client secret lives in the OS keychain, or in an opt-in credentials file).
import { join } from 'node:path';
import { RosterError } from './errors.js';
import { FileError, privateFolder, readPrivateFile, writePrivateFile } from './files.js';

export type ClientAuth = 'basic' | 'post';
export type OneRosterVersion = '1.1' | '1.2';
export type TokenEndpointName = 'oauth' | 'v1p1' | 'v1p2';
/** What a token is for: each purpose may be served by its own token endpoint. */
export type TokenPurpose = 'general' | 'invitations' | 'oneroster-1.1' | 'oneroster-1.2';

export interface Profile {
  baseUrl?: string;
  clientId?: string;
  clientAuth?: ClientAuth;
  oneroster?: OneRosterVersion;
  /** Scope requested for general and invitation tokens (none by default). */
  scope?: string;
  /** Scope requested for OneRoster tokens (none by default: some servers refuse any). */
  onerosterScope?: string;
  /** Scope per token use, over `scope` / `onerosterScope` (1.1 and 1.2 scopes have different names). */
  scopes?: Partial<Record<TokenPurpose, string>>;
  sentByUserId?: string;
  secretStorage?: 'keychain' | 'file';
  /** Token endpoint per purpose: a name (oauth, v1p1, v1p2) or a path below the base URL. */
  tokenEndpoints?: Partial<Record<TokenPurpose, string>>;
  /** Rostering path prefix per OneRoster version, for vendors that serve elsewhere. */
  onerosterPaths?: Partial<Record<OneRosterVersion, string>>;
}

export interface ConfigFile {
  defaultProfile?: string;
  profiles: Record<string, Profile>;
}

export const configPath = (configDir: string) => join(configDir, 'config.json');

export async function loadConfig(configDir: string): Promise<ConfigFile> {
  const path = configPath(configDir);
  await privateFolder(configDir, configDir, { create: false });
  // Its owner and mode are checked: a config others can write could send the secret to their server.
  const text = await readPrivateFile(path, { own: true }).catch((error) => {
    throw error instanceof FileError && !error.untrusted ? corrupt(path, error.reason) : error;
  });
  if (text === undefined) return { profiles: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw corrupt(path, (error as Error).message);
  }
  if (!isObject(parsed) || (parsed.profiles !== undefined && !isObject(parsed.profiles))) {
    throw corrupt(path, 'expected an object with "profiles"');
  }
  const profiles: Record<string, Profile> = {};
  for (const [name, profile] of Object.entries(parsed.profiles ?? {})) {
    if (!isObject(profile)) throw corrupt(path, `profile "${name}" is not an object`);
    for (const [key, value] of Object.entries(profile)) {
      if (value !== undefined && typeof value !== 'string' && !isObject(value)) {
        throw corrupt(path, `profile "${name}": "${key}" has the wrong type`);
      }
    }
    profiles[name] = profile as Profile;
  }
  const defaultProfile = typeof parsed.defaultProfile === 'string' ? parsed.defaultProfile : undefined;
  return { defaultProfile, profiles };
}

export async function saveConfig(configDir: string, config: ConfigFile): Promise<void> {
  await privateFolder(configDir);
  await writePrivateFile(configPath(configDir), `${JSON.stringify(config, null, 2)}\n`);
}

/**
 * Changes the config file under its lock: `change` is handed the file as it is now (another roster may have
 * changed it since this one read it: `config set` beside `profiles use`, two `login --profile`s) and returns
 * it changed. Each process's change is kept; saved whole, by saveConfig. Returns what was saved.
 */
export async function updateConfig(
  configDir: string,
  change: (config: ConfigFile) => ConfigFile,
): Promise<ConfigFile> {
  return underConfigLock(configDir, async () => {
    const changed = change(await loadConfig(configDir));
    await saveConfig(configDir, changed);
    return changed;
  });
}

/**
 * Runs `work` holding the config file's lock: every read-change-write of a file in the config folder (the
 * config, the opt-in credentials file) is made under it, so two rosters at once each keep their change.
 * Never nested: a holder that waited for it again would wait for itself.
 */
export async function underConfigLock<T>(configDir: string, work: () => Promise<T>): Promise<T> {
  await privateFolder(configDir);
  // Loaded here: node:crypto (its tokens) stays off the start-up path of every command (test/bench/startup.js's budget).
  const { releaseLock, waitForLock } = await import('./lock.js');
  const path = configPath(configDir);
  const lock = `${path}.lock`;
  const token = await waitForLock(lock, `the config file ${path} or its credentials file`);
  try {
    return await work();
  } finally {
    await releaseLock(lock, token);
  }
}

function corrupt(path: string, why: string): RosterError {
  return new RosterError(
    'failure',
    `The config file ${path} cannot be read: ${why}.`,
    'Fix it by hand, or remove it and run `roster login` again.',
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
