import { readdirSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

// Three projects. `unit` (npm run test:unit) starts no process and opens no socket: the folders below, less
// the few files in them that do (listed, with what they start). `system` is everything else: the built CLI
// in real processes, sandboxes on real sockets (it builds dist/ first), but for `keychain`, the files that
// use the OS keychain, run one at a time once the others are done. `vitest run` runs all three.
const UNIT_FOLDERS = ['unit', 'audit', 'campaign', 'schools', 'oneroster', 'invite', 'docs'];
const NEEDS_A_PROCESS_OR_SOCKET = [
  'test/unit/api/transport.test.ts', // HTTP servers
  'test/unit/files.test.ts', // mkfifo
  'test/unit/zip.test.ts', // python3, unzip
  'test/invite/bulk.test.ts', // the sandbox
  'test/invite/dead-run-claims.test.ts', // a child process (a pid that has exited)
  'test/invite/journal.test.ts', // mkfifo
  'test/invite/list.test.ts', // the sandbox
  'test/invite/lock-without-hard-links.test.ts', // child processes
  'test/invite/send.test.ts', // the sandbox
  'test/invite/sent-record.test.ts', // child processes
  'test/invite/server-invited.test.ts', // the sandbox
];

const testFiles = readdirSync('test', { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.test.ts'))
  .map((file) => `test/${file.replaceAll('\\', '/')}`);
// The tests that use the OS keychain (with ROSTER_TEST_KEYCHAIN=1): one file at a time, after the rest. In a
// CI run on a loaded machine, with two of these files using it at once, gnome-keyring-daemon dropped off the
// bus mid-request ("Message recipient disconnected"; a locked keyring took its place). Before the suite ran
// four workers these files never overlapped, and never failed so.
const USES_THE_KEYCHAIN = [
  'test/e2e/keychain.test.ts',
  'test/e2e/no-keychain.test.ts',
  'test/security/secret-hygiene.test.ts',
  'test/standalone/keychain.test.ts',
];
const isUnit = (file: string) =>
  UNIT_FOLDERS.some((folder) => file.startsWith(`test/${folder}/`)) &&
  !NEEDS_A_PROCESS_OR_SOCKET.includes(file);

export default defineConfig({
  test: {
    // Most system tests wait on child processes and the sandbox's latency, not on this process: four workers
    // keep two cores busy (the default, cores - 1, left one worker waiting alone).
    maxWorkers: 4,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Removes the temporary folders each test file made (tempDir, test/helpers/temp.ts).
    setupFiles: ['test/helpers/cleanup.ts'],
    projects: [
      { extends: true, test: { name: 'unit', include: testFiles.filter(isUnit) } },
      {
        extends: true,
        test: {
          name: 'system',
          include: testFiles.filter((file) => !isUnit(file) && !USES_THE_KEYCHAIN.includes(file)),
          globalSetup: ['test/helpers/build.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'keychain',
          include: USES_THE_KEYCHAIN,
          globalSetup: ['test/helpers/build.ts'],
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
