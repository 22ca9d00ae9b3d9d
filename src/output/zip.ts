// The export's ZIP, written with yazl: each file is deflated (node:zlib) as it is read, so none is held in
// memory, and yazl switches to ZIP64 where an entry or the archive passes 4 GiB.
import { createReadStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ZipFile } from 'yazl';
import { createFresh } from '../files.js';

export interface ZipEntry {
  /** Name inside the archive (no directories). */
  name: string;
  /** The file on disk. */
  path: string;
}

/** Writes `target` atomically (a fresh .partial sibling renamed when complete), mode 0600. */
export async function writeZip(target: string, entries: ZipEntry[], at: Date): Promise<void> {
  const partial = `${target}.partial`;
  // Created by roster, never through a link planted at the name (files.ts).
  const out = (await createFresh(partial)).createWriteStream();
  const zip = new ZipFile();
  // yazl reports a failed entry on the ZipFile, not on its output stream: either ends the write.
  const failed = new Promise<never>((_, reject) => zip.once('error', reject));
  for (const entry of entries) {
    // Extracted as a regular file, mode 0600, like the CSV files beside it.
    zip.addReadStreamLazy(entry.name, { mtime: at, mode: 0o100600 }, (done) => {
      const input = createReadStream(entry.path);
      input.once('error', (error) => zip.emit('error', error));
      done(null, input);
    });
  }
  zip.end();
  const written = pipeline(zip.outputStream, out);
  try {
    await Promise.race([written, failed]);
    await rename(partial, target);
  } catch (error) {
    (zip.outputStream as Readable).destroy();
    await written.catch(() => {});
    await rm(partial, { force: true });
    throw error;
  }
}
