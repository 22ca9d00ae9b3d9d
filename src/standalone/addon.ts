// A native addon embedded in the standalone executable (a SEA asset: Node cannot load an addon from memory)
// is loaded from a private copy in roster's cache folder, never from a file someone else could have put or
// changed there: the folder is the user's and 0700 (privateFolder refuses one others can write to), and
// the copy, opened without following a link, must be the user's own regular file that nobody else can
// write and must hash to the embedded bytes before it is loaded. Anything else is replaced by a fresh copy
// (a new private file renamed into place) and checked again.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { getAsset } from 'node:sea';
import { privateFolder, readOwnBytesSync, writePrivateFile } from '../files.js';
import { resolvePaths } from '../paths.js';

/** The exports of the addon embedded as `asset` (e.g. keyring.node), from its verified copy. */
export async function loadEmbeddedAddon(asset: string): Promise<unknown> {
  const bytes = new Uint8Array(getAsset(asset));
  const digest = sha256(bytes);
  const { cacheDir } = resolvePaths(process.env);
  const folder = join(cacheDir, 'addons');
  await privateFolder(folder, cacheDir);
  // The name carries the content's hash: two versions of roster never share (or fight over) one copy.
  const path = join(folder, `${asset.replace(/\.node$/, '')}-${digest.slice(0, 16)}.node`);
  if (!isVerifiedCopy(path, digest)) {
    await writePrivateFile(path, bytes);
    if (!isVerifiedCopy(path, digest))
      throw new Error(`the copy of ${asset} at ${path} could not be verified`);
  }
  const module = { exports: {} as unknown };
  process.dlopen(module, path);
  return module.exports;
}

const isVerifiedCopy = (path: string, digest: string): boolean => {
  const bytes = readOwnBytesSync(path);
  return bytes !== undefined && sha256(bytes) === digest;
};

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
