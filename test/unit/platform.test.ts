// Every platform branch roster has (src/platform.ts, and where files live: src/paths.ts), checked for Linux,
// macOS and Windows on whatever machine runs the tests: the platform is a parameter.
import { describe, expect, it } from 'vitest';
import { resolvePaths } from '../../src/paths.js';
import {
  canSyncFolders,
  hasPosixOwners,
  isWindows,
  keychainName,
  quotePath,
  renameRefusedForNow,
  stopSignals,
} from '../../src/platform.js';

describe('platform differences', () => {
  it('Windows alone has no folders to fsync and no POSIX owners', () => {
    expect([isWindows('win32'), isWindows('linux'), isWindows('darwin')]).toEqual([true, false, false]);
    expect([canSyncFolders('win32'), canSyncFolders('linux'), canSyncFolders('darwin')]).toEqual([
      false,
      true,
      true,
    ]);
    expect([hasPosixOwners('win32'), hasPosixOwners('linux'), hasPosixOwners('darwin')]).toEqual([
      false,
      true,
      true,
    ]);
  });

  it('a rename refused with EPERM, EACCES or EBUSY is worth retrying on Windows alone', () => {
    for (const code of ['EPERM', 'EACCES', 'EBUSY']) {
      expect([renameRefusedForNow(code, 'win32'), renameRefusedForNow(code, 'linux')]).toEqual([true, false]);
    }
    expect(renameRefusedForNow('ENOSPC', 'win32')).toBe(false);
    expect(renameRefusedForNow(undefined, 'win32')).toBe(false);
  });

  it('stops on Ctrl-C, Ctrl-Break and a closed console on Windows; Ctrl-C, SIGTERM and SIGHUP elsewhere', () => {
    expect(stopSignals('win32')).toEqual(['SIGINT', 'SIGBREAK', 'SIGHUP']);
    expect(stopSignals('linux')).toEqual(['SIGINT', 'SIGTERM', 'SIGHUP']);
    expect(stopSignals('darwin')).toEqual(['SIGINT', 'SIGTERM', 'SIGHUP']);
  });

  it('quotes a path for PowerShell on Windows and for a POSIX shell elsewhere', () => {
    expect(quotePath('C:\\Users\\ana\\families.csv', 'win32')).toBe('C:\\Users\\ana\\families.csv');
    expect(quotePath("D:\\Fall 2026\\O'Brien.csv", 'win32')).toBe("'D:\\Fall 2026\\O''Brien.csv'");
    expect(quotePath('/home/ana/families.csv', 'linux')).toBe('/home/ana/families.csv');
    expect(quotePath("/home/ana/O'Brien list.csv", 'darwin')).toBe("'/home/ana/O'\\''Brien list.csv'");
    expect(quotePath('C:\\x.csv', 'linux')).toBe("'C:\\x.csv'");
  });

  it('names the keychain as each system calls it', () => {
    expect(keychainName('linux')).toBe('the system keychain (Secret Service)');
    expect(keychainName('darwin')).toBe('the login keychain (Keychain Access)');
    expect(keychainName('win32')).toBe('Windows Credential Manager');
  });
});

describe('where roster keeps its files', () => {
  it('Linux: the XDG folders, or their defaults under HOME', () => {
    expect(resolvePaths({ HOME: '/home/ana' }, 'linux')).toEqual({
      configDir: '/home/ana/.config/roster',
      cacheDir: '/home/ana/.cache/roster',
      stateDir: '/home/ana/.local/state/roster',
    });
    expect(resolvePaths({ HOME: '/home/ana', XDG_STATE_HOME: '/srv/state' }, 'linux').stateDir).toBe(
      '/srv/state/roster',
    );
  });

  it('macOS: Library folders, unless XDG variables say otherwise', () => {
    expect(resolvePaths({ HOME: '/Users/ana' }, 'darwin')).toEqual({
      configDir: '/Users/ana/Library/Preferences/roster',
      cacheDir: '/Users/ana/Library/Caches/roster',
      stateDir: '/Users/ana/Library/Application Support/roster',
    });
    expect(
      resolvePaths({ HOME: '/Users/ana', XDG_CONFIG_HOME: '/Users/ana/.config' }, 'darwin').configDir,
    ).toBe('/Users/ana/.config/roster');
  });

  it('Windows: the roaming profile for the configuration, the local one for the cache and state', () => {
    const env = {
      APPDATA: 'C:\\Users\\ana\\AppData\\Roaming',
      LOCALAPPDATA: 'C:\\Users\\ana\\AppData\\Local',
    };
    expect(resolvePaths(env, 'win32')).toEqual({
      configDir: 'C:\\Users\\ana\\AppData\\Roaming\\roster',
      cacheDir: 'C:\\Users\\ana\\AppData\\Local\\roster\\cache',
      stateDir: 'C:\\Users\\ana\\AppData\\Local\\roster\\state',
    });
  });

  it('Windows without APPDATA or LOCALAPPDATA: their usual places in the profile', () => {
    expect(resolvePaths({ HOME: 'C:\\Users\\ana' }, 'win32').configDir).toBe(
      'C:\\Users\\ana\\AppData\\Roaming\\roster',
    );
  });
});
