// Access tokens cached between runs, so a command costs one request, not two. One 0600 file per
// (base URL, client id, token endpoint, scope) under the user's cache directory: concurrent roster
// processes never lose each other's writes, and a corrupt file is simply discarded. Never the secret.
import { createHash } from 'node:crypto';
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { readIfExists, writePrivateFile } from '../files.js';

export interface TokenKey {
  baseUrl: string;
  clientId: string;
  endpoint: string;
  scope?: string;
}

export interface CachedToken {
  accessToken: string;
  tokenType: string;
  /** Epoch milliseconds. */
  expiresAt: number;
  expiresIn: number;
  scope?: string;
}

interface CacheEntry {
  key: TokenKey;
  token: CachedToken;
}

export class TokenCache {
  constructor(private readonly dir: string) {}

  private file(key: TokenKey): string {
    const id = JSON.stringify([key.baseUrl, key.clientId, key.endpoint, key.scope ?? '']);
    return join(this.dir, `${createHash('sha256').update(id).digest('hex').slice(0, 32)}.json`);
  }

  async read(key: TokenKey): Promise<CachedToken | undefined> {
    const path = this.file(key);
    const text = await readIfExists(path).catch(() => undefined);
    if (text === undefined) return undefined;
    const token = parseEntry(text)?.token;
    if (!token) await rm(path, { force: true }).catch(() => {});
    return token;
  }

  async write(key: TokenKey, token: CachedToken): Promise<void> {
    const entry: CacheEntry = { key, token };
    await writePrivateFile(this.file(key), JSON.stringify(entry));
  }

  async remove(key: TokenKey): Promise<void> {
    await rm(this.file(key), { force: true });
  }

  /** Removes every cached token of one client at one base URL; returns how many. */
  async removeAll(baseUrl: string, clientId: string): Promise<number> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return 0;
    }
    let removed = 0;
    for (const name of names.filter((n) => n.endsWith('.json'))) {
      const path = join(this.dir, name);
      const entry = parseEntry(await readFile(path, 'utf8').catch(() => ''));
      if (!entry || (entry.key.baseUrl === baseUrl && entry.key.clientId === clientId)) {
        await rm(path, { force: true });
        if (entry) removed++;
      }
    }
    return removed;
  }
}

function parseEntry(text: string): CacheEntry | undefined {
  try {
    const entry = JSON.parse(text) as CacheEntry;
    const t = entry?.token;
    const valid =
      typeof entry?.key?.baseUrl === 'string' &&
      typeof t?.accessToken === 'string' &&
      t.accessToken.length > 0 &&
      typeof t.expiresAt === 'number';
    return valid ? entry : undefined;
  } catch {
    return undefined;
  }
}
