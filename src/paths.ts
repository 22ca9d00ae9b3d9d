// Where roster keeps its files, following the XDG base directory spec on Linux and the platform's
// conventions elsewhere. Tests point these at a temporary HOME or XDG_* variables.
import { homedir } from 'node:os';
import { posix, win32 } from 'node:path';

export interface Paths {
  configDir: string;
  cacheDir: string;
  stateDir: string;
}

type Env = Readonly<Record<string, string | undefined>>;

export function resolvePaths(env: Env, platform: NodeJS.Platform = process.platform): Paths {
  // The platform's own separators, so that a unit test of another platform gets its paths exactly.
  const { join } = platform === 'win32' ? win32 : posix;
  const home = env.HOME || homedir();
  const xdg = (name: string, fallback: string) => join(env[name] || fallback, 'roster');
  if (platform === 'darwin') {
    const lib = join(home, 'Library');
    return {
      configDir: xdg('XDG_CONFIG_HOME', join(lib, 'Preferences')),
      cacheDir: xdg('XDG_CACHE_HOME', join(lib, 'Caches')),
      stateDir: xdg('XDG_STATE_HOME', join(lib, 'Application Support')),
    };
  }
  if (platform === 'win32') {
    const appData = env.APPDATA || join(home, 'AppData', 'Roaming');
    const local = env.LOCALAPPDATA || join(home, 'AppData', 'Local');
    return {
      configDir: join(appData, 'roster'),
      cacheDir: join(local, 'roster', 'cache'),
      stateDir: join(local, 'roster', 'state'),
    };
  }
  return {
    configDir: xdg('XDG_CONFIG_HOME', join(home, '.config')),
    cacheDir: xdg('XDG_CACHE_HOME', join(home, '.cache')),
    stateDir: xdg('XDG_STATE_HOME', join(home, '.local', 'state')),
  };
}
