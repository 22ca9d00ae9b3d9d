// What `@napi-rs/keyring` is in the standalone executable (.ci/release.mjs maps the package here): the same
// exports, from the addon of the executable's own platform, embedded as the asset keyring.node. Loaded on
// first use of the keychain (src/auth/keychain.ts imports the package lazily), so other commands never
// write or load it.
import { loadEmbeddedAddon } from './addon.js';

type Keyring = typeof import('@napi-rs/keyring');

const binding = (await loadEmbeddedAddon('keyring.node')) as Keyring;

export const { AsyncEntry, Entry, findCredentials, findCredentialsAsync } = binding;
