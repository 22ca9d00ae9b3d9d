// Access tokens cached between runs, so a command costs one request, not two. One 0600 file per
// (profile, base URL, client id, token endpoint, scope) under the user's cache directory: concurrent roster
// processes never lose each other's writes, and a corrupt file is simply discarded. Never the secret.
import { readdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { type CachedToken, isBearerToken, MAX_TOKEN_LIFETIME_S } from '../api/access-token.js';
import { FileError, privateFolder, readPrivateFile, writePrivateFile } from '../files.js';

/** The largest time value a Date holds (ECMA-262 §21.4.1.1). */
const MAX_DATE_MS = 8.64e15;

export interface TokenKey {
  /**
   * The profile the token was got for: two profiles of one client and base URL each keep their own, so
   * logging one out (or removing it) stops its commands whatever the other has cached.
   */
  profile: string;
  baseUrl: string;
  clientId: string;
  endpoint: string;
  scope?: string;
}

interface CacheEntry {
  key: TokenKey;
  token: CachedToken;
}

export class TokenCache {
  /** `dir` is `<cache>/tokens`: it and the cache folder above it must be the user's alone. */
  constructor(private readonly dir: string) {}

  /**
   * A cache folder others can write to is refused (they could plant a token of their choosing); any other
   * trouble (a file where the folder should be) only means no cache: it must never fail a command.
   */
  private async usable(create: boolean): Promise<boolean> {
    try {
      await privateFolder(this.dir, dirname(this.dir), { create });
      return true;
    } catch (error) {
      if (error instanceof FileError && error.untrusted) throw error;
      return false;
    }
  }

  // The name only spreads keys over files; read() checks the key stored inside, so a cheap hash will do
  // (node:crypto would cost the cached-token path a few milliseconds of start-up).
  private file(key: TokenKey): string {
    return join(this.dir, `${fnv1a(keyId(key))}.json`);
  }

  async read(key: TokenKey): Promise<CachedToken | undefined> {
    if (!(await this.usable(false))) return undefined;
    const path = this.file(key);
    // A folder, FIFO or device where the file should be is no cache either: removed (a link or node) or
    // left alone (a folder), never waited on.
    const text = await readPrivateFile(path, { own: true }).catch(() => '');
    if (text === undefined) return undefined;
    const entry = parseEntry(text);
    if (!entry) await rm(path, { force: true }).catch(() => {});
    return entry && keyId(entry.key) === keyId(key) ? entry.token : undefined;
  }

  async write(key: TokenKey, token: CachedToken): Promise<void> {
    const entry: CacheEntry = { key, token };
    if (!(await this.usable(true))) return;
    await writePrivateFile(this.file(key), JSON.stringify(entry));
  }

  async remove(key: TokenKey): Promise<void> {
    await rm(this.file(key), { force: true });
  }

  /**
   * Removes every cached token of a profile, and those cached before tokens were kept per profile (no
   * profile in their key) for its client at its base URL; returns how many.
   */
  async removeProfile(profile: string, client?: { baseUrl: string; clientId: string }): Promise<number> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return 0;
    }
    let removed = 0;
    for (const name of names.filter((n) => n.endsWith('.json'))) {
      const path = join(this.dir, name);
      const entry = parseEntry((await readPrivateFile(path).catch(() => '')) ?? '');
      const { key } = entry ?? {};
      const legacy =
        key?.profile === undefined && key?.baseUrl === client?.baseUrl && key?.clientId === client?.clientId;
      if (!entry || key?.profile === profile || legacy) {
        await rm(path, { force: true });
        if (entry) removed++;
      }
    }
    return removed;
  }
}

const keyId = (key: TokenKey) =>
  JSON.stringify([key.profile, key.baseUrl, key.clientId, key.endpoint, key.scope ?? '']);

/** 64-bit FNV-1a as 16 hex digits. */
function fnv1a(text: string): string {
  let hash = 0xcbf29ce484222325n;
  for (const byte of Buffer.from(text)) hash = BigInt.asUintN(64, (hash ^ BigInt(byte)) * 0x100000001b3n);
  return hash.toString(16).padStart(16, '0');
}

/**
 * An entry roster can use, or undefined: a corrupt or planted entry (an expiry no Date can hold, a lifetime
 * roster never accepts) is ignored, removed and replaced, never a failure.
 */
function parseEntry(text: string): CacheEntry | undefined {
  try {
    const entry = JSON.parse(text) as CacheEntry;
    const t = entry?.token;
    const valid =
      typeof entry?.key?.baseUrl === 'string' &&
      typeof t?.accessToken === 'string' &&
      isBearerToken(t.accessToken) &&
      typeof t.expiresIn === 'number' &&
      t.expiresIn >= 1 &&
      t.expiresIn <= MAX_TOKEN_LIFETIME_S &&
      Math.abs(t.expiresAt) <= MAX_DATE_MS;
    return valid ? entry : undefined;
  } catch {
    return undefined;
  }
}
