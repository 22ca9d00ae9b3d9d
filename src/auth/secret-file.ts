// The opt-in alternative to the keychain (`login --insecure-storage`): a JSON file of secrets with mode
// 0600 in the config directory. Still never the config file itself.
// - Read only when the user alone can read it (as ssh a private key) in a folder nobody else can write to
//   (privateFolder); otherwise refused with the chmod that fixes it.
// - A file that does not parse is never taken for an empty one: it may hold other profiles' secrets, so it is
//   refused, not overwritten.
// - Changed under the config file's lock (underConfigLock), over what it holds then: two logins at once each
//   keep their secret.
import { join } from 'node:path';
import { underConfigLock } from '../config-file.js';
import { RosterError } from '../errors.js';
import { FileError, privateFolder, readPrivateFile, shell, writePrivateFile } from '../files.js';
import type { SecretStore } from './secret-store.js';

export const secretFilePath = (configDir: string) => join(configDir, 'credentials.json');

type Secrets = Record<string, string>;

export function createSecretFileStore(configDir: string): SecretStore {
  const path = secretFilePath(configDir);
  const load = async (): Promise<Secrets> => {
    await privateFolder(configDir, configDir, { create: false });
    const text = await readPrivateFile(path, { own: true, secret: true }).catch((error) => {
      if (!(error instanceof FileError) || error.untrusted) throw error;
      throw unreadable(path, error.reason);
    });
    // Missing or empty: no secret to lose.
    return text ? parseSecrets(path, text) : {};
  };
  /** Changes the file as it is now, under the lock; saved only when `edit` says it changed it. */
  const change = <T>(edit: (secrets: Secrets) => { changed: boolean; result: T }) =>
    underConfigLock(configDir, async () => {
      const secrets = await load();
      const { changed, result } = edit(secrets);
      if (changed) await writePrivateFile(path, `${JSON.stringify(secrets, null, 2)}\n`);
      return result;
    });
  return {
    description: `the file ${path} (mode 0600)`,
    get: async (account) => (await load())[account],
    set: (account, secret) =>
      change((secrets) => {
        secrets[account] = secret;
        return { changed: true, result: undefined };
      }),
    delete: (account) =>
      change((secrets) => {
        const found = account in secrets;
        delete secrets[account];
        return { changed: found, result: found };
      }),
  };
}

/** The file's secrets by account, or the error saying it is damaged (never its text: it holds secrets). */
function parseSecrets(path: string, text: string): Secrets {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // JSON.parse's message quotes the text around the fault: a secret would reach the terminal.
    throw unreadable(path, 'it is not valid JSON', { damaged: true });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw unreadable(path, 'it is not a JSON object of secrets', { damaged: true });
  }
  if (Object.values(parsed).some((secret) => typeof secret !== 'string')) {
    throw unreadable(path, 'a secret in it is not a string', { damaged: true });
  }
  return parsed as Secrets;
}

function unreadable(path: string, why: string, { damaged = false } = {}): RosterError {
  const aside = `mv ${shell(path)} ${shell(`${path}.damaged`)}`;
  return new RosterError(
    'failure',
    `The credentials file ${path} cannot be read: ${why}.`,
    damaged
      ? `Nothing was changed in it (it may hold the secrets of other profiles). Restore it from a backup, or move it aside (${aside}) and run \`roster login --insecure-storage\` again for each profile that kept its secret there.`
      : 'Move it aside and run `roster login --insecure-storage` again.',
  );
}
