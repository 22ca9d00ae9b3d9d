// A release archive: roster-<version>-<target>/ holding the executable, LICENSE and a short README, as
// .tar.gz (gzip -9; the executable mode 0755) or, for Windows, .zip (yazl, as roster's exports).
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  createReadStream,
  createWriteStream,
  mkdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { basename, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import yazl from 'yazl';

function readme(version, target, exe, nodeVersion) {
  const windows = target.startsWith('win');
  const mac = target.startsWith('darwin');
  const lines = [
    `roster ${version} for ${target}: one executable, no Node.js to install (it embeds Node ${nodeVersion}).`,
    '',
    'Verify the archive against SHA256SUMS from the same release:',
    windows
      ? '  (Get-FileHash .\\roster-*.zip -Algorithm SHA256).Hash   # compare with the line in SHA256SUMS'
      : '  sha256sum -c --ignore-missing SHA256SUMS      # macOS: shasum -a 256 -c --ignore-missing SHA256SUMS',
    '',
    'Put it on your PATH:',
    windows
      ? `  Move ${exe} to a folder on your PATH, e.g. $env:LOCALAPPDATA\\Programs\\roster, and add that folder to PATH.`
      : `  install -m 755 ${exe} ~/.local/bin/roster     # or: sudo install -m 755 ${exe} /usr/local/bin/roster`,
  ];
  if (windows) lines.push('', 'SmartScreen may warn about an unsigned download: More info, then Run anyway.');
  if (mac) {
    lines.push(
      '',
      'macOS: this build is untested on a Mac and unsigned. Before the first run:',
      '  xattr -d com.apple.quarantine roster; codesign --sign - --force roster',
    );
  }
  lines.push('', 'Then: roster --version; roster sandbox (a local stand-in with demo data); roster --help.');
  lines.push('Documentation: the README of the roster repository. License: LICENSE (MIT).', '');
  return lines.join(windows ? '\r\n' : '\n');
}

/** Writes release/roster-<version>-<target>.(tar.gz|zip) and returns its path. */
export async function archive({ root, executable, target, version, nodeVersion }) {
  const name = `roster-${version}-${target}`;
  const staging = join(root, 'release', 'work', 'staging', name);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  const exe = basename(executable);
  copyFileSync(executable, join(staging, exe));
  copyFileSync(join(root, 'LICENSE'), join(staging, 'LICENSE'));
  writeFileSync(
    join(staging, target.startsWith('win') ? 'README.txt' : 'README'),
    readme(version, target, exe, nodeVersion),
  );
  if (target.startsWith('win')) return zip(root, staging, name);
  const tarPath = join(root, 'release', 'work', `${name}.tar`);
  execFileSync('tar', [
    '--owner=0',
    '--group=0',
    '--numeric-owner',
    '-cf',
    tarPath,
    '-C',
    join(staging, '..'),
    name,
  ]);
  const file = join(root, 'release', `${name}.tar.gz`);
  await pipeline(createReadStream(tarPath), createGzip({ level: 9 }), createWriteStream(file));
  rmSync(tarPath);
  return file;
}

async function zip(root, staging, name) {
  const file = join(root, 'release', `${name}.zip`);
  const zipfile = new yazl.ZipFile();
  for (const entry of ['roster.exe', 'LICENSE', 'README.txt']) {
    zipfile.addBuffer(readFileSync(join(staging, entry)), `${name}/${entry}`, { compressionLevel: 9 });
  }
  zipfile.end();
  await pipeline(zipfile.outputStream, createWriteStream(file));
  return file;
}
