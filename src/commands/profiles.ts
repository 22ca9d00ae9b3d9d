// `roster profiles`: the saved district profiles, the active one marked; `roster profiles use NAME`
// makes NAME the default (config.defaultProfile), which --profile and ROSTER_PROFILE still override.
import type { Command } from 'commander';
import { type ConfigFile, loadConfig, updateConfig } from '../config-file.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { printJson, printTable } from '../output/render.js';
import { colours } from '../output/style.js';
import { activeProfile, type ProfileSource } from '../settings.js';
import { printable } from '../values.js';
import { examples, globalFlags } from './common.js';

export interface ProfileRow {
  name: string;
  /** The profile this run would use (flag, environment or defaultProfile). */
  active: boolean;
  /** The one `roster profiles use` chose. */
  default: boolean;
  baseUrl: string | null;
  clientId: string | null;
  oneroster: string;
  clientAuth: string;
}

export interface ProfilesReport {
  active: string;
  activeFrom: ProfileSource;
  profiles: ProfileRow[];
}

export function listProfiles(
  config: ConfigFile,
  active: { name: string; source: ProfileSource },
): ProfilesReport {
  const profiles = Object.entries(config.profiles)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, profile]) => ({
      name,
      active: name === active.name,
      default: name === (config.defaultProfile ?? 'default'),
      baseUrl: profile.baseUrl ?? null,
      clientId: profile.clientId ?? null,
      oneroster: profile.oneroster ?? '1.1',
      clientAuth: profile.clientAuth ?? 'basic',
    }));
  return { active: active.name, activeFrom: active.source, profiles };
}

export interface ProfilesOptions {
  /** --profile: which profile this run would use, marked active. */
  profile?: string;
}

/** `roster profiles`: every saved profile, the active one marked. */
export async function run(options: ProfilesOptions, ctx: Context): Promise<ProfilesReport> {
  const config = await loadConfig(ctx.paths.configDir);
  return listProfiles(config, activeProfile(options, ctx.env, config));
}

export interface UseProfileOptions {
  /** The saved profile to make the default. */
  name: string;
}

/** `roster profiles use NAME`: NAME becomes config.defaultProfile. */
export async function useProfile({ name }: UseProfileOptions, ctx: Context): Promise<ConfigFile> {
  const config = await loadConfig(ctx.paths.configDir);
  if (!Object.hasOwn(config.profiles, name)) {
    const known = Object.keys(config.profiles).sort();
    throw new UsageError(
      `No profile named "${printable(name)}".`,
      known.length > 0
        ? `Saved profiles: ${known.join(', ')}. Create one with \`roster login --profile ${printable(name)}\`.`
        : 'No profile is saved yet: run `roster login` first.',
    );
  }
  return updateConfig(ctx.paths.configDir, (latest) => ({ ...latest, defaultProfile: name }));
}

/** Names for shell completion; silent on any problem (a TAB must never print an error). */
export function register(program: Command, ctx: Context): void {
  const profiles = program
    .command('profiles')
    .summary('list the saved district profiles, marking the active one')
    .option('--json', 'print the profiles as JSON')
    .action(async (options: { json?: boolean }, cmd: Command) => {
      const report = await run({ profile: globalFlags(cmd).profile }, ctx);
      if (options.json) return printJson(ctx, report);
      if (report.profiles.length === 0) {
        ctx.log.info('No profile is saved yet. Run `roster login` to save one.');
        return;
      }
      const c = colours(ctx.color);
      await printTable(
        ctx,
        [
          { header: ctx.io.stdoutIsTTY ? '' : 'ACTIVE', value: (p: ProfileRow) => (p.active ? '*' : '') },
          { header: 'NAME', value: (p) => p.name, style: (text, p) => (p.active ? c.bold(text) : text) },
          // At 80 columns a long base URL gives up its path, never its scheme://host:port.
          { header: 'BASE URL', value: (p) => p.baseUrl, shrink: 'url' },
          { header: 'CLIENT ID', value: (p) => p.clientId },
          { header: 'ONEROSTER', value: (p) => p.oneroster },
          { header: 'CLIENT AUTH', value: (p) => p.clientAuth },
        ],
        report.profiles,
      );
      if (!report.profiles.some((p) => p.active)) {
        ctx.log.info(`The active profile "${report.active}" (from ${report.activeFrom}) is not saved.`);
      } else if (ctx.io.stdoutIsTTY && report.activeFrom !== 'defaultProfile') {
        ctx.log.info(`* active here because of ${report.activeFrom}.`);
      }
    });
  examples(profiles, [
    '# On a terminal',
    'roster profiles',
    '# In a script',
    "roster profiles --json | jq -r '.profiles[] | select(.active) | .baseUrl'",
  ]);

  const use = profiles
    .command('use')
    .argument('<profile>', 'name of a saved profile')
    .summary('make a saved profile the default')
    .action(async (name: string) => {
      await useProfile({ name }, ctx);
      ctx.log.info(`The default profile is now "${name}".`);
      const override = ctx.env.ROSTER_PROFILE;
      if (override && override !== name) {
        ctx.log.warn(`ROSTER_PROFILE=${printable(override)} is set and still wins in this shell.`);
      }
    });
  const remove = profiles
    .command('remove')
    .argument('<profile>', 'name of a saved profile')
    .summary(
      'delete a saved profile, its cached tokens and schools, and its client secret (kept if another profile uses it)',
    )
    .action(async (name: string) => {
      const { removeProfile, removedLine } = await import('./profiles-remove.js');
      ctx.log.info(removedLine(await removeProfile(name, ctx)));
    });
  examples(remove, ['roster profiles remove east', 'roster profiles remove "$DISTRICT" --no-input']);

  examples(use, [
    '# On a terminal',
    'roster profiles use east',
    '# In a script (or, for one command only: ROSTER_PROFILE=east roster doctor)',
    'roster profiles use "$DISTRICT" && roster doctor --json',
  ]);
}
