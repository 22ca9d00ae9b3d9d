// What `roster __complete schools -- WORDS…` prints at TAB time: "sourcedId<TAB>name" for each school in
// the cached list of the profile the command line names (--profile, --base-url, --oneroster, or the
// environment), from the cache alone: TAB never waits for the network. No list, no completions. Only ids
// completion may offer (a plausible id, values.ts) are printed: the list came from a server.
import type { Context } from '../context.js';
import { readSchoolsCache, schoolsKey } from '../schools/cache.js';
import { isActive } from '../schools/match.js';
import { type GlobalFlags, resolveSettings } from '../settings.js';
import { isPlausibleId, printable } from '../values.js';

const FLAGS: Record<string, keyof GlobalFlags> = {
  '--profile': 'profile',
  '--base-url': 'baseUrl',
  '--oneroster': 'oneroster',
};

export async function schoolCompletions(ctx: Context, words: readonly string[]): Promise<string[]> {
  let settings: Awaited<ReturnType<typeof resolveSettings>>;
  try {
    settings = await resolveSettings(flagsOf(words), ctx.env, ctx.paths.configDir);
  } catch {
    return [];
  }
  if (!settings.baseUrl) return [];
  const cached = await readSchoolsCache(ctx.paths.cacheDir, schoolsKey(settings, settings.baseUrl));
  return (cached?.schools ?? [])
    .filter((s) => isActive(s) && isPlausibleId(s.sourcedId))
    .map((s) => `${s.sourcedId}\t${printable(s.name.replace(/\s+/g, ' '), 80)}`);
}

/** The settings flags typed on the line: `--flag value`, `--flag=value`, or bash's split `--flag = value`. */
function flagsOf(words: readonly string[]): GlobalFlags {
  const flags: GlobalFlags = {};
  for (let i = 0; i < words.length; i++) {
    const [name = '', inline] = (words[i] ?? '').split(/=(.*)/s, 2);
    const key = FLAGS[name];
    if (!key) continue;
    let value = inline;
    if (value === undefined) {
      value = words[i + 1] === '=' ? words[i + 2] : words[i + 1];
      i += words[i + 1] === '=' ? 2 : 1;
    }
    if (value !== undefined && value !== '') (flags as Record<string, string>)[key] = value;
  }
  return flags;
}
