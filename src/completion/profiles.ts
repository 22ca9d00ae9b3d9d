// What `roster __complete profiles` prints at TAB time: the saved profile names, from the config file
// alone, and only those completion may offer (a plausible id, values.ts): a planted config must not hand a
// shell code.
import { loadConfig } from '../config-file.js';
import type { Context } from '../context.js';
import { isPlausibleId } from '../values.js';

export async function profileCompletions(ctx: Context): Promise<string[]> {
  try {
    return Object.keys((await loadConfig(ctx.paths.configDir)).profiles)
      .filter(isPlausibleId)
      .sort();
  } catch {
    return [];
  }
}
