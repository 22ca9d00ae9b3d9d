// What can be checked of an executable without running it (macOS and, under Wine 8, Node 26 for Windows
// cannot run here): the target's format and processor, the single-executable fuse flipped by the
// injection, roster's bundle inside, and on macOS the NODE_SEA segment Node reads it from.
import { readFileSync } from 'node:fs';

const FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

/** The format and processor of an executable's bytes, e.g. "elf-x64", "pe-x64", "macho-x64". */
export function formatOf(bytes) {
  if (bytes.readUInt32BE(0) === 0x7f454c46) {
    const machine = bytes.readUInt16LE(18);
    return `elf-${{ 62: 'x64', 183: 'arm64' }[machine] ?? machine}`;
  }
  if (bytes.toString('latin1', 0, 2) === 'MZ') {
    const pe = bytes.readUInt32LE(0x3c);
    if (bytes.toString('latin1', pe, pe + 4) !== 'PE\0\0') return 'unknown';
    const machine = bytes.readUInt16LE(pe + 4);
    return `pe-${{ 34404: 'x64', 43620: 'arm64' }[machine] ?? machine}`;
  }
  if (bytes.readUInt32LE(0) === 0xfeedfacf) {
    const cpu = bytes.readUInt32LE(4);
    return `macho-${{ 16777223: 'x64', 16777228: 'arm64' }[cpu] ?? cpu}`;
  }
  return 'unknown';
}

const EXPECTED = {
  'linux-x64': 'elf-x64',
  'linux-arm64': 'elf-arm64',
  'win-x64': 'pe-x64',
  'darwin-x64': 'macho-x64',
  'darwin-arm64': 'macho-arm64',
};

/** Throws unless `path` is a single executable of roster for `target`. */
export function checkExecutable(path, target) {
  const bytes = readFileSync(path);
  const problems = [];
  const format = formatOf(bytes);
  if (format !== EXPECTED[target]) problems.push(`it is ${format}, not ${EXPECTED[target]}`);
  if (!bytes.includes(`${FUSE}:1`))
    problems.push('its single-executable fuse is not set (nothing was injected)');
  if (!bytes.includes('kind:"standalone"')) problems.push("roster's standalone bundle is not in it");
  if (format.startsWith('macho')) {
    // The load commands follow the 32-byte header; their size is at offset 20.
    const commands = bytes.subarray(32, 32 + bytes.readUInt32LE(20));
    if (!commands.includes('NODE_SEA\0')) problems.push('it has no NODE_SEA segment');
  }
  if (problems.length > 0) throw new Error(`${path}: ${problems.join('; ')}`);
}
