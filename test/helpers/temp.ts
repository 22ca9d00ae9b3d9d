// Temporary folders for tests, each removed after its test file (test/helpers/cleanup.ts, a vitest setup file).
// Node built-ins only: the setup file loads this before the test file, so a module of src/ loaded here would
// escape the test file's vi.mock.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Every folder tempDir makes in a test file (vitest gives each file its own copy of this module).
const madeDirs: string[] = [];

export function tempDir(prefix = 'roster-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  madeDirs.push(dir);
  return dir;
}

/** Removes the folders tempDir made; returns those that could not be removed (a process still writing). */
export function removeTempDirs(): string[] {
  const left: string[] = [];
  for (const dir of madeDirs.splice(0)) {
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    } catch {
      left.push(dir);
    }
  }
  return left;
}
