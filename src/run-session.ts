// The run's settings and Session, made on first use and once per process (gh's Factory): `--help`, usage
// errors and commands that fail validation never read the config file, the keychain or the network, and
// every part of a command shares one Session (one token provider, one transport). session.ts and
// settings.ts are on the hot path of the build anyway (dist/cli.js, esbuild.config.mjs): imported here.
import type { Context } from './context.js';
import { Session } from './session.js';
import { type GlobalFlags, resolveSettings, type Settings } from './settings.js';

export type RunSession = Pick<Context, 'settings' | 'session'>;

/** A Context made whole with its run's settings and Session (`load` runs on first use). */
export function withRunSession(
  base: Omit<Context, keyof RunSession>,
  load: () => Promise<Settings>,
): Context {
  const ctx = base as Context;
  return Object.assign(ctx, memoisedSession(ctx, load));
}

/** Settings resolved from these global flags (with the environment and the profile), and their Session. */
export function lazyRunSession(ctx: Context, flags: GlobalFlags): RunSession {
  return memoisedSession(ctx, () => resolveSettings(flags, ctx.env, ctx.paths.configDir));
}

/** The run's settings before a command is chosen: the environment and the profile, no flags. */
export function settingsWithoutFlags(ctx: Pick<Context, 'env' | 'paths'>): () => Promise<Settings> {
  return () => resolveSettings({}, ctx.env, ctx.paths.configDir);
}

/** `load` runs once, on the first call of either; the Session is built once, from its settings. */
export function memoisedSession(ctx: Context, load: () => Promise<Settings>): RunSession {
  let settings: Promise<Settings> | undefined;
  let session: Promise<Session> | undefined;
  const settingsOnce = () => {
    settings ??= load();
    return settings;
  };
  return {
    settings: settingsOnce,
    session: () => {
      session ??= settingsOnce().then((resolved) => new Session(ctx, resolved));
      return session;
    },
  };
}
