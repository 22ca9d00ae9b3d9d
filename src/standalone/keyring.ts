// What src/auth/keyring-binding.ts is in the standalone executable (.ci/release/bundle.mjs maps it here):
// the keychain's binding from the addon of the executable's own platform, embedded as the asset
// keyring.node, loaded once, on first use of the keychain, so other commands never write or load it.
import type { Keyring } from '../auth/keyring-binding.js';
import { loadEmbeddedAddon } from './addon.js';

let loading: Promise<Keyring> | undefined;

export const loadKeyring = (): Promise<Keyring> =>
  (loading ??= loadEmbeddedAddon('keyring.node') as Promise<Keyring>);
