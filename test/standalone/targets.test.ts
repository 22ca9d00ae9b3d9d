// The executables for the other targets, as far as this Linux x64 machine can check them in the suite:
// linux-arm64 runs under qemu-user (Debian's qemu-user-static with the arm64 C library, -L); every target's
// format, processor, injected fuse and embedded bundle are checked, and macOS's NODE_SEA segment. win-x64
// runs end to end under Wine 10 in .ci/run (test/windows/standalone.mjs); the macOS ones cannot run here.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkExecutable, formatOf } from '../../.ci/release/check.mjs';
import { TARGETS } from '../../.ci/release/targets.mjs';
import { tempDir } from '../helpers/context.js';
import {
  STANDALONE,
  type StandaloneSandbox,
  startStandaloneSandbox,
  testStandalone,
} from '../helpers/standalone.js';

const work = join(STANDALONE, '..', '..');
const executable = (target: string) => join(work, target, target.startsWith('win') ? 'roster.exe' : 'roster');
const built = (target: string) => existsSync(executable(target));
// CI builds every target (.ci/run); elsewhere each is checked if it was built.
const required = process.env.CI === 'true';
const ARM64_LIBS = '/usr/aarch64-linux-gnu';
const qemu = spawnSync('qemu-aarch64-static', ['--version']).status === 0 && existsSync(ARM64_LIBS);

describe.each(Object.keys(TARGETS))('the %s executable', (target) => {
  it.runIf(required || built(target))('is a single executable of roster for its platform', () => {
    expect(() => checkExecutable(executable(target), target)).not.toThrow();
  });
});

describe('the structural check', () => {
  it('tells a plain Node binary (nothing injected) and another platform from an executable of roster', () => {
    expect(formatOf(readFileSync(process.execPath))).toBe(`elf-${process.arch}`);
    expect(() => checkExecutable(process.execPath, 'linux-x64')).toThrow(
      /single-executable fuse is not set.*standalone bundle is not in it/,
    );
    expect.assertions(2);
  });
});

describe.runIf(testStandalone && (required || built('linux-arm64')))(
  'the linux-arm64 executable under qemu',
  () => {
    let sandbox: StandaloneSandbox;
    beforeAll(async () => {
      sandbox = await startStandaloneSandbox(tempDir());
    }, 60_000);
    afterAll(() => sandbox?.close());
    const arm64 = (args: string[], env: Record<string, string> = {}) =>
      execFileSync('qemu-aarch64-static', ['-L', ARM64_LIBS, executable('linux-arm64'), ...args], {
        env: { PATH: '/usr/bin:/bin', HOME: tempDir(), ...env },
        encoding: 'utf8',
        timeout: 120_000,
      });

    it('runs: its version, and an attendance check against the sandbox', () => {
      expect(qemu, 'qemu-user-static and libc6-arm64-cross are installed (.ci/run)').toBe(true);
      expect(JSON.parse(arm64(['--version', '--json']))).toMatchObject({
        build: 'standalone',
        arch: 'arm64',
      });
      const check = arm64(['attendance', 'check'], {
        ROSTER_BASE_URL: sandbox.baseUrl,
        ROSTER_CLIENT_ID: 'demo-allowed',
        ROSTER_CLIENT_SECRET: 'riverside-secret-2024',
      });
      expect(check).toContain('Token authentication works for attendance-daily');
    }, 180_000);
  },
);
