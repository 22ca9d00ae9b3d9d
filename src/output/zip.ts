// A small streaming ZIP writer (PKWARE APPNOTE 6.3): each file is deflated with node:zlib as it is
// read, its CRC-32 and sizes follow in a data descriptor, so no file is ever held in memory. No ZIP64:
// an entry or archive past 4 GiB is refused rather than written corrupt.
import { createReadStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { createDeflateRaw } from 'node:zlib';
import { RosterError } from '../errors.js';
import { createFresh } from '../files.js';

export interface ZipEntry {
  /** Name inside the archive (no directories). */
  name: string;
  /** The file on disk. */
  path: string;
}

const LIMIT = 0xffffffff;

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 (ISO-HDLC, as ZIP and gzip use), continued from `crc` over `data`. */
export function crc32(data: Uint8Array, crc = 0): number {
  let c = ~crc >>> 0;
  for (let i = 0; i < data.length; i++) c = CRC_TABLE[(c ^ data[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

/** MS-DOS date and time of a moment, in local time as ZIP tools read them. */
function dosDateTime(at: Date): { date: number; time: number } {
  const year = Math.max(1980, at.getFullYear());
  return {
    date: ((year - 1980) << 9) | ((at.getMonth() + 1) << 5) | at.getDate(),
    time: (at.getHours() << 11) | (at.getMinutes() << 5) | Math.floor(at.getSeconds() / 2),
  };
}

interface Written {
  name: Buffer;
  crc: number;
  compressed: number;
  size: number;
  offset: number;
}

/** Writes `target` atomically (a fresh .partial sibling renamed when complete), mode 0600. */
export async function writeZip(target: string, entries: ZipEntry[], at: Date): Promise<void> {
  const partial = `${target}.partial`;
  // Created by roster, never through a link planted at the name (files.ts).
  const out = (await createFresh(partial)).createWriteStream();
  // Errors reach us through the write callbacks; without a listener one would end the process.
  out.on('error', () => {});
  let offset = 0;
  const write = (chunk: Buffer) =>
    new Promise<void>((resolve, reject) => {
      offset += chunk.length;
      if (offset > LIMIT) reject(tooLarge(target));
      else out.write(chunk, (error) => (error ? reject(error) : resolve()));
    });
  const { date, time } = dosDateTime(at);
  const written: Written[] = [];
  try {
    for (const entry of entries) {
      const name = Buffer.from(entry.name, 'utf8');
      const start = offset;
      // Flag bit 3: CRC and sizes come in a data descriptor after the data; bit 11: UTF-8 names.
      await write(localHeader(name, date, time));
      const { crc, compressed, size } = await deflateInto(entry.path, write);
      if (size > LIMIT || compressed > LIMIT) throw tooLarge(entry.name);
      const descriptor = Buffer.alloc(16);
      descriptor.writeUInt32LE(0x08074b50, 0);
      descriptor.writeUInt32LE(crc, 4);
      descriptor.writeUInt32LE(compressed, 8);
      descriptor.writeUInt32LE(size, 12);
      await write(descriptor);
      written.push({ name, crc, compressed, size, offset: start });
    }
    const directoryStart = offset;
    for (const w of written) await write(centralHeader(w, date, time));
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(written.length, 8);
    end.writeUInt16LE(written.length, 10);
    end.writeUInt32LE(offset - directoryStart, 12);
    end.writeUInt32LE(directoryStart, 16);
    await write(end);
    await new Promise<void>((resolve, reject) => {
      out.once('error', reject);
      out.end(resolve);
    });
    await rename(partial, target);
  } catch (error) {
    if (!out.closed) await new Promise<void>((resolve) => out.destroy().once('close', () => resolve()));
    await rm(partial, { force: true });
    throw error;
  }
}

function tooLarge(what: string): RosterError {
  return new RosterError(
    'failure',
    `Cannot write ${what}: it would pass the 4 GiB limit of a ZIP without ZIP64`,
    'Use the CSV files in the directory instead of --zip.',
  );
}

function localHeader(name: Buffer, date: number, time: number): Buffer {
  const header = Buffer.alloc(30);
  header.writeUInt32LE(0x04034b50, 0);
  header.writeUInt16LE(20, 4); // version needed: 2.0 (deflate)
  header.writeUInt16LE(0x0808, 6);
  header.writeUInt16LE(8, 8); // deflate
  header.writeUInt16LE(time, 10);
  header.writeUInt16LE(date, 12);
  // CRC, sizes: zero here, in the data descriptor. Extra field length: 0.
  header.writeUInt16LE(name.length, 26);
  return Buffer.concat([header, name]);
}

function centralHeader(w: Written, date: number, time: number): Buffer {
  const header = Buffer.alloc(46);
  header.writeUInt32LE(0x02014b50, 0);
  header.writeUInt16LE((3 << 8) | 20, 4); // made by: Unix, 2.0 (so the mode below is read)
  header.writeUInt16LE(20, 6);
  header.writeUInt16LE(0x0808, 8);
  header.writeUInt16LE(8, 10);
  header.writeUInt16LE(time, 12);
  header.writeUInt16LE(date, 14);
  header.writeUInt32LE(w.crc, 16);
  header.writeUInt32LE(w.compressed, 20);
  header.writeUInt32LE(w.size, 24);
  header.writeUInt16LE(w.name.length, 28);
  header.writeUInt32LE(0o100600 * 0x10000, 38); // a regular file, 0600, when extracted
  header.writeUInt32LE(w.offset, 42);
  return Buffer.concat([header, w.name]);
}

/** Streams one file through raw deflate into the archive; its CRC and both sizes. */
async function deflateInto(
  path: string,
  write: (chunk: Buffer) => Promise<void>,
): Promise<{ crc: number; compressed: number; size: number }> {
  let crc = 0;
  let size = 0;
  let compressed = 0;
  const input = createReadStream(path);
  const deflate = createDeflateRaw({ level: 6 });
  input.on('data', (chunk) => {
    const data = chunk as Buffer;
    crc = crc32(data, crc);
    size += data.length;
  });
  input.on('error', (error) => deflate.destroy(error));
  input.pipe(deflate);
  for await (const chunk of deflate) {
    compressed += (chunk as Buffer).length;
    await write(chunk as Buffer);
  }
  return { crc, compressed, size };
}
