// The keychain's native binding, loaded on first use: the package's own in the npm build. The standalone
// executable's build maps this module to src/standalone/keyring.ts, which loads the addon embedded in it.
export type Keyring = typeof import('@napi-rs/keyring');

export const loadKeyring = (): Promise<Keyring> => import('@napi-rs/keyring');
