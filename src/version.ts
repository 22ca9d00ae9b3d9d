import pkg from '../package.json' with { type: 'json' };

export const VERSION: string = pkg.version;

/** How this roster was built: the build defines __ROSTER_BUILD__ (esbuild.config.mjs, .ci/release.mjs). */
export interface BuildInfo {
  /** npm: dist/ of the package or a checkout; standalone: the single executable; source: run from src/. */
  kind: 'npm' | 'standalone' | 'source';
  /** The commit it was built from (12 hex), where the build could tell. */
  commit: string | null;
}

declare const __ROSTER_BUILD__: BuildInfo | undefined;

export const BUILD: BuildInfo =
  typeof __ROSTER_BUILD__ === 'undefined' ? { kind: 'source', commit: null } : __ROSTER_BUILD__;

/** `roster --version`: the version alone (scripts compare it), and the build when it is not the npm one. */
export const versionLine = (): string =>
  BUILD.kind === 'standalone' ? `${VERSION} (standalone build)` : VERSION;

/** `roster --version --json`: what a bug report needs. */
export function versionInfo() {
  return {
    version: VERSION,
    build: BUILD.kind,
    commit: BUILD.commit,
    node: process.version,
    platform: process.platform,
    arch: process.arch,
  };
}
