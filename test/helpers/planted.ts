// Files and folders planted by someone else, as the tests of roster's file handling set them up: real
// links and (as root, as CI runs) files owned by `nobody`, and the checks that roster's own files are its own.
import { execFileSync } from 'node:child_process';
import { lstatSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { tempDir } from './context.js';

export const ME = process.getuid?.() ?? 0;
export const asRoot = ME === 0;
export const NOBODY = asRoot ? Number(execFileSync('id', ['-u', 'nobody']).toString().trim()) : -1;

/** A file outside the folder that a planted link points at: it must never change. */
export function victim(): string {
  const path = join(tempDir(), 'victim.txt');
  writeFileSync(path, 'the victim\n', { mode: 0o644 });
  return path;
}

export function expectUntouched(path: string): void {
  expect(readFileSync(path, 'utf8')).toBe('the victim\n');
  expect(statSync(path).mode & 0o777).toBe(0o644);
}

/** A regular file of the user's (not a link), mode 0600, with one name (no planted hard link). */
export function expectOwnPrivate(path: string): void {
  const s = lstatSync(path);
  expect({ file: s.isFile(), mode: (s.mode & 0o777).toString(8), uid: s.uid, links: s.nlink }, path).toEqual({
    file: true,
    mode: '600',
    uid: ME,
    links: 1,
  });
}
