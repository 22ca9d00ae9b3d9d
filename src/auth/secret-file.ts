// The opt-in alternative to the keychain (`login --insecure-storage`): a JSON file of secrets with mode
// 0600 in the config directory. Still never the config file itself. Read only when the user alone can read
// it (as ssh a private key) in a folder nobody else can write to (privateFolder); otherwise refused with the
// chmod that fixes it.
import { join } from 'node:path';
import { RosterError } from '../errors.js';
import { FileError, privateFolder, readPrivateFile, writePrivateFile } from '../files.js';
import type { SecretStore } from './secret-store.js';

export const secretFilePath = (configDir: string) => join(configDir, 'credentials.json');

export function createSecretFileStore(configDir: string): SecretStore {
  const path = secretFilePath(configDir);
  const load = async (): Promise<Record<string, string>> => {
    await privateFolder(configDir, configDir, { create: false });
    const text = await readPrivateFile(path, { own: true, secret: true }).catch((error) => {
      if (!(error instanceof FileError) || error.untrusted) throw error;
      throw new RosterError(
        'failure',
        `The credentials file ${path} cannot be read: ${error.reason}.`,
        'Move it aside and run `roster login --insecure-storage` again.',
      );
    });
    if (!text) return {};
    try {
      const parsed = JSON.parse(text) as unknown;
      return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, string>) : {};
    } catch {
      return {};
    }
  };
  const save = async (secrets: Record<string, string>) => {
    await privateFolder(configDir);
    await writePrivateFile(path, `${JSON.stringify(secrets, null, 2)}\n`);
  };
  return {
    description: `the file ${path} (mode 0600)`,
    get: async (account) => (await load())[account],
    set: async (account, secret) => save({ ...(await load()), [account]: secret }),
    delete: async (account) => {
      const secrets = await load();
      if (!(account in secrets)) return false;
      delete secrets[account];
      await save(secrets);
      return true;
    },
  };
}
