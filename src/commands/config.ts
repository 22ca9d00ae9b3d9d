// `roster config get|set|unset|list`: a saved profile's settings without editing config.json by hand (gh's
// `config`). Each value is checked by the validator `roster login` uses for it, before the file is read or
// written; the file is written atomically, 0600, and never holds a secret (config-keys.ts refuses them).
import type { Command } from 'commander';
import { type ConfigFile, loadConfig, type Profile, updateConfig } from '../config-file.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { printJson } from '../output/render.js';
import { showControls } from '../output/safe-text.js';
import { activeProfile } from '../settings.js';
import { printable } from '../values.js';
import { examples, globalFlags } from './common.js';
import { PROFILE_KEYS, type ProfileKey, profileKey } from './config-keys.js';

export interface ConfigValue {
  profile: string;
  key: string;
  /** The saved value, else the default (null when there is none: nothing is sent). */
  value: string | null;
  /** Whether the profile holds the value (false: the default). */
  saved: boolean;
}

interface Target {
  config: ConfigFile;
  name: string;
  profile: Profile;
}

/** Every config subcommand acts on one profile. */
export interface ConfigOptions {
  /** --profile (else ROSTER_PROFILE, else the default). */
  profile?: string;
}

export interface KeyOptions extends ConfigOptions {
  /** A key of PROFILE_KEYS, as typed. */
  key: string;
}

/** The profile the command acts on (--profile, ROSTER_PROFILE, the default): it must be saved. */
async function target(options: ConfigOptions, ctx: Context): Promise<Target> {
  const config = await loadConfig(ctx.paths.configDir);
  const { name } = activeProfile(options, ctx.env, config);
  const profile = Object.hasOwn(config.profiles, name) ? config.profiles[name] : undefined;
  if (!profile) {
    const known = Object.keys(config.profiles).sort();
    throw new UsageError(
      `No profile named "${printable(name)}".`,
      known.length > 0
        ? `Saved profiles: ${known.join(', ')}. Create one with \`roster login --profile ${printable(name)}\`.`
        : 'No profile is saved yet: run `roster login` first (with --scope if its token endpoint wants one).',
    );
  }
  return { config, name, profile };
}

function settingOf(key: ProfileKey, name: string, profile: Profile): ConfigValue {
  const saved = key.get(profile);
  return { profile: name, key: key.name, value: saved ?? key.fallback ?? null, saved: saved !== undefined };
}

/** `roster config get KEY`. */
export async function getValue(options: KeyOptions, ctx: Context): Promise<ConfigValue> {
  const key = profileKey(options.key);
  const { name, profile } = await target(options, ctx);
  return settingOf(key, name, profile);
}

/** `roster config list`. */
export async function listValues(options: ConfigOptions, ctx: Context): Promise<ConfigValue[]> {
  const { name, profile } = await target(options, ctx);
  return PROFILE_KEYS.map((key) => settingOf(key, name, profile));
}

export interface ChangeOptions extends KeyOptions {
  /** The new value (`set`), or undefined to remove the key (`unset`). */
  value: string | undefined;
}

export interface ConfigChange {
  key: ProfileKey;
  profile: string;
  changed: boolean;
  loggedIn: boolean;
}

/** `roster config set|unset`: sets or removes a key of the profile; says whether anything changed. */
export async function change(options: ChangeOptions, ctx: Context): Promise<ConfigChange> {
  const key = profileKey(options.key);
  const raw = options.value;
  const value = raw === undefined ? undefined : key.check(raw, `roster config set ${key.name}`);
  const { name, profile } = await target(options, ctx);
  const result = { key, profile: name, loggedIn: profile.clientId !== undefined };
  if (key.get(profile) === value) return { ...result, changed: false };
  await updateConfig(ctx.paths.configDir, (latest) => ({
    ...latest,
    profiles: { ...latest.profiles, [name]: key.with(latest.profiles[name] ?? profile, value) },
  }));
  return { ...result, changed: true };
}

/** A value on one line of stdout, every control character shown (a hand-edited file may hold anything). */
const line = (value: string | null) => `${value === null ? '' : showControls(value)}\n`;

/** The environment variable that overrides this key in this shell, if one is set. */
function overriddenBy(ctx: Context, key: ProfileKey): string | undefined {
  return key.env && ctx.env[key.env] ? key.env : undefined;
}

const profileFlag = (cmd: Command): ConfigOptions => ({ profile: globalFlags(cmd).profile });

/** `roster config get KEY`. */
function registerGet(config: Command, ctx: Context): void {
  const get = config
    .command('get')
    .argument('<key>', 'a config key (roster config --help lists them)')
    .summary('print a profile setting (its default when the profile has none; empty when nothing is sent)')
    .option('--json', 'print profile, key, value and whether it is saved, as JSON')
    .action(async (keyName: string, options: { json?: boolean }, cmd: Command) => {
      const value = await getValue({ ...profileFlag(cmd), key: keyName }, ctx);
      if (options.json) return printJson(ctx, value);
      ctx.io.stdout.write(line(value.value));
      const env = overriddenBy(ctx, profileKey(keyName));
      if (env) ctx.log.warn(`${env} is set and wins over this value in this shell.`);
    });
  examples(get, ['roster config get scope', 'roster config get --profile east oneroster --json']);
}

/** `roster config set KEY VALUE`. */
function registerSet(config: Command, ctx: Context): void {
  const set = config
    .command('set')
    .argument('<key>', 'a config key (roster config --help lists them)')
    .argument('<value>', 'the value, checked as roster login checks it')
    .summary('save a profile setting')
    .action(async (keyName: string, value: string, _options: unknown, cmd: Command) => {
      const result = await change({ ...profileFlag(cmd), key: keyName, value }, ctx);
      ctx.log.info(
        result.changed
          ? `Saved ${result.key.name} of profile "${result.profile}".`
          : `${result.key.name} of profile "${result.profile}" already had that value.`,
      );
      // The keychain account of the secret is the client id at the base URL it was saved with.
      if (result.key.name === 'baseUrl' && result.changed && result.loggedIn) {
        ctx.log.warn(
          'the client secret was stored for the previous base URL: run `roster login` to store it for this one.',
        );
      }
      const env = overriddenBy(ctx, result.key);
      if (env) ctx.log.warn(`${env} is set and still wins in this shell.`);
    });
  examples(set, [
    'roster config set scope attendance',
    'roster config set scopes.oneroster-1.2 https://purl.imsglobal.org/spec/or/v1p2/scope/roster.readonly',
    'roster config set tokenEndpoints.invitations /custom/token',
  ]);
}

/** `roster config unset KEY`. */
function registerUnset(config: Command, ctx: Context): void {
  const unset = config
    .command('unset')
    .argument('<key>', 'a config key (roster config --help lists them)')
    .summary('remove a profile setting (its default applies again)')
    .action(async (keyName: string, _options: unknown, cmd: Command) => {
      const result = await change({ ...profileFlag(cmd), key: keyName, value: undefined }, ctx);
      ctx.log.info(
        result.changed
          ? `Removed ${result.key.name} from profile "${result.profile}".`
          : `Profile "${result.profile}" had no ${result.key.name}.`,
      );
    });
  examples(unset, ['roster config unset scope']);
}

/** `roster config list`. */
function registerList(config: Command, ctx: Context): void {
  const list = config
    .command('list')
    .summary('print every setting of a profile as key=value')
    .option('--json', 'print the settings as JSON')
    .action(async (options: { json?: boolean }, cmd: Command) => {
      const values = await listValues(profileFlag(cmd), ctx);
      if (options.json) return printJson(ctx, values);
      ctx.io.stdout.write(values.map((v) => `${v.key}=${line(v.value)}`).join(''));
    });
  examples(list, ['roster config list', "roster config list --json | jq -r '.[] | select(.saved) | .key'"]);
}

export function register(program: Command, ctx: Context): void {
  const config = program
    .command('config')
    .summary("read and change a saved profile's settings (scopes, endpoints, base URL…)")
    .description(
      'Read and change the settings of a saved profile (the active one, or --profile NAME) without editing the config file. Each value is checked as `roster login` checks it; the file is written atomically and never holds a secret.',
    )
    .addHelpText(
      'after',
      `\nKeys (default in brackets):\n${PROFILE_KEYS.map((k) => `  ${k.name.padEnd(30)}${k.what}${k.fallback ? ` [${k.fallback}]` : ''}`).join('\n')}`,
    );
  examples(config, [
    'roster config set scope attendance',
    'roster config set --profile east onerosterScope https://purl.imsglobal.org/spec/or/v1p2/scope/roster.readonly',
    'roster config get tokenEndpoints.invitations',
    'roster config unset sentByUserId',
    'roster config list --json',
  ]);
  registerGet(config, ctx);
  registerSet(config, ctx);
  registerUnset(config, ctx);
  registerList(config, ctx);
}
