// The flags of `roster invite send`, and how they become the per-run invitation values.
import { UsageError } from '../../errors.js';
import type { FileSendOptions } from '../../invite/bulk-send.js';
import { DELIMITERS, type Delimiter } from '../../invite/csv.js';
import {
  DEFAULT_SCOPES,
  DEFAULT_STUDENT_COUNT,
  type FieldProblem,
  flagOf,
  type InvitationDraft,
} from '../../invite/invitation.js';
import { parseUnlisted } from '../../invite/unlisted.js';
import type { Settings } from '../../settings.js';
import { parseCount, printable } from '../../values.js';

export interface SendOptions {
  email?: string;
  schoolId?: string;
  studentCount?: string;
  scope?: string[];
  interestFormSubmissionId?: string;
  learningCenterId?: string;
  schoolYearId?: string;
  sentByUserId?: string;
  file?: string;
  /** Parsed by its argParser (parseConcurrency). */
  concurrency?: number;
  resendInDoubt?: boolean;
  /** With --file: send again rows roster's record shows already sent by another run. */
  resendSent?: boolean;
  failedCsv?: string;
  dryRun?: boolean;
  refreshSchools?: boolean;
  /** School ids the district's list lacks that may still be sent to (a school opening next year). */
  allowUnlistedSchool?: string[];
  /** With --file: comma, semicolon or tab, instead of the header's (parsed by delimiterFlag). */
  delimiter?: Delimiter;
  yes?: boolean;
  json?: boolean;
}

export const DEFAULT_CONCURRENCY = 4;
/** The transport keeps at most 16 sockets per host; more workers would only queue behind them. */
export const MAX_CONCURRENCY = 16;

/** Flags, then the profile's default sentByUserId, then the built-in defaults (1 student, fillEnrollment). */
export function draftFromFlags(options: SendOptions, settings: Settings): InvitationDraft {
  const draft: InvitationDraft = {
    email: options.email,
    schoolId: options.schoolId,
    studentCount: options.studentCount ?? DEFAULT_STUDENT_COUNT,
    scopes: options.scope && options.scope.length > 0 ? options.scope.join(' ') : DEFAULT_SCOPES,
    interestFormSubmissionId: options.interestFormSubmissionId,
    learningCenterId: options.learningCenterId,
    schoolYearId: options.schoolYearId,
    sentByUserId: options.sentByUserId ?? settings.profile.sentByUserId,
  };
  return Object.fromEntries(Object.entries(draft).filter(([, v]) => v !== undefined)) as InvitationDraft;
}

/** One usage error naming every bad flag, with the next step for the most likely one. */
export function invalidFlags(problems: FieldProblem[], settings: Settings): UsageError {
  const text = problems.map((p) => `${flagOf(p.field)} ${p.reason}`).join('; ');
  const noSender = problems.some((p) => p.field === 'sentByUserId' && p.reason === 'is required');
  return new UsageError(
    `Invalid invitation: ${text}`,
    noSender
      ? `API token authentication needs sentByUserId (spec §4.5), your OneRoster user's sourcedId (roster roster users --filter "role='administrator'" lists them): pass --sent-by-user-id${settings.config.profiles[settings.profileName] ? `, or save a default with \`roster config set sentByUserId ID --profile ${settings.profileName}\`` : ''}.`
      : 'Nothing was sent.',
  );
}

/** commander's argParser for --concurrency. */
export const parseConcurrency = (value: string): number =>
  parseCount('--concurrency', value, 1, MAX_CONCURRENCY);

/** --delimiter by name (comma, semicolon, tab, in any case) or as the character itself. */
function parseDelimiter(value: string): Delimiter {
  const name = value.trim().toLowerCase() as keyof typeof DELIMITERS;
  if (Object.hasOwn(DELIMITERS, name)) return DELIMITERS[name];
  const given = Object.values(DELIMITERS).find((d) => d === value || (value === '\\t' && d === '\t'));
  if (given) return given;
  throw new UsageError(
    `Invalid --delimiter "${printable(value, 20)}": expected comma, semicolon or tab.`,
    'Without --delimiter, the header line decides.',
  );
}

/** commander's argParser for --delimiter; its names are what completion offers. */
export const delimiterFlag = Object.assign(parseDelimiter, {
  choices: Object.keys(DELIMITERS) as (keyof typeof DELIMITERS)[],
});

/** The flags of `invite send --file` (and of a plan sent at once) as the invite service takes them. */
export function fileSendOptions(options: SendOptions, settings: Settings): FileSendOptions {
  if (options.email !== undefined) {
    throw new UsageError('--email and --file do not go together: the file gives one address per row.');
  }
  return {
    concurrency: options.concurrency ?? DEFAULT_CONCURRENCY,
    delimiter: options.delimiter,
    unlisted: parseUnlisted(options.allowUnlistedSchool),
    given: options.file ?? '',
    fill: draftFromFlags(options, settings),
    // Rows roster's record shows sent by another run are skipped unless the user asks for them again.
    resendSent: Boolean(options.resendSent),
    resendInDoubt: Boolean(options.resendInDoubt),
    ...(options.failedCsv !== undefined && { failedCsv: options.failedCsv }),
    dryRun: Boolean(options.dryRun),
    refreshSchools: Boolean(options.refreshSchools),
    yes: Boolean(options.yes),
    json: Boolean(options.json),
  };
}
