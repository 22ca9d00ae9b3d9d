// The district's schools for commands that take a school: `invite send --school-id` (flag, CSV column,
// picker) and, later, campaigns. The list comes from the cache while it is a day old at most, else from
// OneRoster `schools` (through the pager, like every read). A value not found in a cached list makes one
// fresh read before it is refused, so a school added today resolves. When the list cannot be read (a
// client without the OneRoster scope, a server without OneRoster), a value that is a plausible id is sent as
// given, with a warning; any other (a name) is refused: a flag's exit 1, a CSV row's problem (uncheckedRefusal).
import type { Context } from '../context.js';
import { RosterError, UsageError } from '../errors.js';
import { Pager } from '../oneroster/pager.js';
import { onerosterService, pageSender } from '../oneroster/service.js';
import type { Session } from '../session.js';
import { isPlausibleId, PLAUSIBLE_ID_TEXT, printable } from '../values.js';
import {
  isFresh,
  readSchoolsCache,
  type SchoolsKey,
  schoolFrom,
  schoolsCachePath,
  schoolsKey,
  writeSchoolsCache,
} from './cache.js';
import { isActive, matchSchool, refusal, type School, type SchoolMatch } from './match.js';

/** A match, or `unchecked` when no list could be read and the value goes as given. */
export type Resolution = SchoolMatch | { kind: 'unchecked' };

export class SchoolDirectory {
  private schools?: School[];
  private loaded = false;
  /** The list in hand was read from the server during this run. */
  private readNow = false;
  private readonly key: SchoolsKey;
  /** Read only to show names beside ids: a list that cannot be read is said under --debug alone. */
  private quiet = false;

  constructor(
    private readonly ctx: Context,
    readonly session: Session,
    /** --refresh-schools: never answer from the cache. */
    private readonly refresh = false,
  ) {
    this.key = schoolsKey(session.settings, session.baseUrl);
  }

  get cachePath(): string {
    return schoolsCachePath(this.ctx.paths.cacheDir, this.key);
  }

  /** The list: a fresh cache, else the server, else a stale cache; undefined when none can be had. */
  async list(): Promise<School[] | undefined> {
    if (this.loaded) return this.schools;
    this.loaded = true;
    const cached = this.refresh ? undefined : await readSchoolsCache(this.ctx.paths.cacheDir, this.key);
    if (cached && isFresh(cached, this.ctx.now())) {
      this.ctx.log.debug(`schools: ${cached.schools.length} from the cache ${this.cachePath}`);
      this.schools = cached.schools;
      return this.schools;
    }
    const read = await this.read();
    if (typeof read === 'string') {
      (this.quiet ? this.ctx.log.debug : this.ctx.log.warn).call(
        this.ctx.log,
        cached
          ? `could not read the district's schools (${read}); using the list read ${new Date(cached.readAt).toISOString()}.`
          : `could not read the district's schools to check school ids (${read}); values are sent as given.`,
      );
    }
    this.schools = typeof read === 'string' ? cached?.schools : read;
    return this.schools;
  }

  /** Reads the list again, once per run; false when it was already read now or cannot be read. */
  async reread(): Promise<boolean> {
    if (this.readNow) return false;
    const read = await this.read();
    if (typeof read === 'string') {
      this.ctx.log.warn(`could not read the district's schools again (${read}); using the cached list.`);
      return false;
    }
    this.schools = read;
    return true;
  }

  /** Resolves each value, reading the list again once if a cached list does not know one of them. */
  async resolveAll(values: readonly string[]): Promise<Map<string, Resolution>> {
    const match = (schools: School[] | undefined) =>
      new Map<string, Resolution>(
        values.map((v) => [v, schools ? matchSchool(v, schools) : { kind: 'unchecked' }]),
      );
    let result = match(await this.list());
    const missed = [...result.values()].some((r) => r.kind === 'ambiguous' || r.kind === 'unknown');
    if (missed && (await this.reread())) result = match(this.schools);
    return result;
  }

  /**
   * The schools a command's --school values (or --all-schools: every active school) name, sourcedId → name;
   * a value that cannot be checked is kept as given. A usage error when a value names no one school.
   */
  async selection(values: readonly string[] | 'all'): Promise<Map<string, string>> {
    const schools = new Map<string, string>();
    if (values === 'all') {
      const list = await this.list();
      if (!list)
        throw new UsageError("--all-schools needs the district's list of schools, which could not be read.");
      for (const s of list.filter(isActive)) schools.set(s.sourcedId, s.name || s.sourcedId);
      return schools;
    }
    const resolved = await this.resolveAll(values);
    for (const value of values) {
      const match = resolved.get(value) ?? { kind: 'unchecked' as const };
      if (match.kind === 'unchecked') schools.set(value, value);
      else if (match.kind === 'school') schools.set(match.school.sourcedId, match.school.name || value);
      else throw schoolUsageError(`--school "${printable(value, 80)}"`, match);
    }
    return schools;
  }

  /** A synchronous lookup over the list in hand, for many values at once (a CSV's rows); undefined without one. */
  async lookup(): Promise<((value: string) => SchoolMatch) | undefined> {
    const schools = await this.list();
    return schools && ((value) => matchSchool(value, schools));
  }

  /** The name of a school of the list in hand, for confirmations. */
  nameOf(sourcedId: string): string | undefined {
    return this.schools?.find((s) => s.sourcedId === sourcedId)?.name || undefined;
  }

  /** Each school's label (labelOf), for a table of ids; without a list, none (the ids are shown). */
  async labels(): Promise<(sourcedId: string) => string | undefined> {
    this.quiet = true;
    await this.list();
    return (sourcedId) => this.labelOf(sourcedId);
  }

  /**
   * How a person reads a school of the list in hand: its name, with its sourcedId when another school
   * has the same name (two "Fir Grove School"s); undefined when the list has no name for it.
   */
  labelOf(sourcedId: string): string | undefined {
    const name = this.nameOf(sourcedId);
    if (name === undefined) return undefined;
    const twin = this.schools?.some((s) => s.name === name && s.sourcedId !== sourcedId);
    return twin ? `${name} (${sourcedId})` : name;
  }

  async resolve(value: string): Promise<Resolution> {
    return (await this.resolveAll([value])).get(value) ?? { kind: 'unchecked' };
  }

  /**
   * A flag's value as the sourcedId to send, or, when the list lacks it and `unlisted` allows it (the
   * admin named it with --allow-unlisted-school), the value as given, marked `unlisted`. A usage error
   * (nothing sent) when it names no one school.
   */
  async schoolFor(
    flag: string,
    value: string,
    unlisted: ReadonlySet<string>,
    /** How to allow an unlisted id, said when the value names no school. */
    unlistedHint: string,
  ): Promise<{ sourcedId: string; unlisted: boolean }> {
    const given = value.trim();
    const resolution = unlisted.has(given) ? await this.resolve(value) : undefined;
    if (resolution?.kind === 'unknown') return { sourcedId: given, unlisted: true };
    return { sourcedId: await this.sourcedIdFor(flag, value, unlistedHint), unlisted: false };
  }

  /** A flag's value as the sourcedId to send; a usage error (nothing sent) when it names no one school. */
  async sourcedIdFor(flag: string, value: string, unknownHint?: string): Promise<string> {
    const resolution = await this.resolve(value);
    if (resolution.kind === 'unchecked') return uncheckedId(flag, value);
    if (resolution.kind === 'school') {
      if (resolution.by !== 'sourcedId') {
        this.ctx.log.info(
          `${flag} "${printable(value.trim(), 80)}" is ${printable(resolution.school.name, 80)}: sourcedId ${printable(resolution.school.sourcedId, 60)}.`,
        );
      }
      return resolution.school.sourcedId;
    }
    throw schoolUsageError(`${flag} "${printable(value.trim(), 80)}"`, resolution, unknownHint);
  }

  /** The list from the server (and saved), or why it could not be read. */
  private async read(): Promise<School[] | string> {
    this.readNow = true;
    const service = onerosterService(this.session);
    const pager = new Pager({
      send: pageSender(service, "Reading the district's schools"),
      baseUrl: service.baseUrl,
      maxRecords: service.maxRecords,
      path: `${service.prefix}/schools`,
      query: { limit: 1000 },
      wrapper: 'orgs',
      all: true,
      concurrency: 4,
      what: 'schools',
      warn: (line) => this.ctx.log.warn(line),
      debug: (line) => this.ctx.log.debug(line),
    });
    const schools: School[] = [];
    try {
      for await (const page of pager.pages()) {
        for (const record of page.records) {
          const school = schoolFrom(record);
          if (school) schools.push(school);
        }
      }
    } catch (error) {
      if (!(error instanceof RosterError) || error.code === 'usage' || error.code === 'interrupted')
        throw error;
      return error.message.replace(/\.$/, '');
    }
    await writeSchoolsCache(this.ctx.paths.cacheDir, this.key, { readAt: this.ctx.now(), schools }).catch(
      (error: Error) => this.ctx.log.warn(`could not save the schools cache: ${error.message}`),
    );
    this.ctx.log.debug(`schools: ${schools.length} read from the server, saved in ${this.cachePath}`);
    return schools;
  }
}

/**
 * A value no list could check, sent as given only when it is a plausible id (values.ts): a name or anything
 * else would reach the server as a schoolId no school has (exit 1: the input may be right, the list is
 * what is missing).
 */
function uncheckedId(flag: string, value: string): string {
  const refused = uncheckedRefusal(value);
  if (refused === undefined) return value;
  throw new RosterError(
    'failure',
    `${flag} "${printable(value.trim(), 80)}" ${refused}. Nothing was sent.`,
    "Give the school's sourcedId instead, or run again once the schools can be read (`roster roster schools` lists them).",
  );
}

/** Why a value no list could check is not sent as given (a CSV row's school, a flag); undefined: it may be. */
export function uncheckedRefusal(value: string): string | undefined {
  if (isPlausibleId(value.trim())) return undefined;
  return `cannot be resolved: the district's schools could not be read, and it is not a school id (${PLAUSIBLE_ID_TEXT})`;
}

export function schoolUsageError(
  what: string,
  refused: Exclude<SchoolMatch, { kind: 'school' }>,
  /** Said after the usual hint when the value names no school at all. */
  unknownHint?: string,
): UsageError {
  return new UsageError(
    `${what} ${refusal(refused)}.`,
    refused.kind === 'ambiguous'
      ? 'Give its identifier or sourcedId instead; nothing was sent.'
      : `\`roster roster schools\` lists the schools; nothing was sent.${unknownHint ? ` ${unknownHint}` : ''}`,
  );
}
