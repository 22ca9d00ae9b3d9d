// `roster invite send`: e-mail one enrollment invitation (spec §4.5), or a whole CSV with --file (file-send.ts).
// Everything is validated before any request; on a terminal, missing values are asked for and the exact
// request is confirmed; a POST that may have reached the server is never sent again.
import type { Command } from 'commander';
import { INVITATIONS_PATH, type InvitationBody } from '../../api/enrollment.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import {
  FIELDS,
  type FieldName,
  type InvitationDraft,
  isValidEmail,
  validateInvitation,
} from '../../invite/invitation.js';
import { COLUMNS_TEXT } from '../../invite/invite-file.js';
import { withResolvedSchool } from '../../invite/school-id.js';
import { parseUnlisted, UNLISTED_HINT } from '../../invite/unlisted.js';
import { printDone, printJson } from '../../output/render.js';
import { colours } from '../../output/style.js';
import { consent } from '../../prompter.js';
import type { SchoolDirectory } from '../../schools/directory.js';
import type { Session } from '../../session.js';
import { printable } from '../../values.js';
import { examples, repeatable } from '../common.js';
import {
  delimiterFlag,
  draftFromFlags,
  fileSendOptions,
  invalidFlags,
  parseConcurrency,
  type SendOptions,
} from './options.js';
import { confirmUnlisted } from './questions.js';

export type { SendOptions } from './options.js';

export interface SendResult {
  /** The request body: what was (or, under --dry-run, would be) sent. */
  body: InvitationBody;
  dryRun: boolean;
  /** The server's answer (spec §2.5), when sent. */
  response?: unknown;
  message?: string;
}

/**
 * sentByUserId is the admin's own user sourcedId in the district's OneRoster data, which few know by heart:
 * the question says where to read it, and how to stop being asked.
 */
export const SENDER_QUESTION =
  "Send on behalf of user id (sentByUserId: your OneRoster user's sourcedId, e.g. adm-001; roster roster " +
  `users --filter "role='administrator'" lists them; roster config set sentByUserId ID saves it)`;

/** The fields asked for on a terminal when missing, in this order (the school from a list of schools). */
const PROMPTED: { field: FieldName; question: string }[] = [
  { field: 'email', question: 'E-mail address of the parent or guardian' },
  { field: 'schoolId', question: 'School' },
  { field: 'sentByUserId', question: SENDER_QUESTION },
];

export async function run(options: SendOptions, ctx: Context): Promise<SendResult> {
  const settings = await ctx.settings();
  const draft = draftFromFlags(options, settings);
  // Everything that can be checked is checked before the first question: the values given (a bad
  // --student-count is refused before the admin types an e-mail address), the base URL, and (unless it is
  // a dry run) that a token can be had without asking: no answer is wasted on a run that cannot send.
  const unlisted = parseUnlisted(options.allowUnlistedSchool);
  const asked = ctx.interactive ? PROMPTED.filter(({ field }) => !draft[field]?.trim()) : [];
  const flags = validateInvitation(draft);
  const given = flags.ok
    ? []
    : flags.problems.filter(
        (p) => !asked.some(({ field }) => field === p.field && p.reason === 'is required'),
      );
  if (given.length > 0) throw invalidFlags(given, settings);
  const session = await ctx.session();
  if (!options.dryRun) await session.checkCredentials('invitations');
  // Built on first need: a usage error before it never touches the network.
  let schools: SchoolDirectory | undefined;
  const directory = async () => {
    const { SchoolDirectory } = await import('../../schools/directory.js');
    schools ??= new SchoolDirectory(ctx, session, options.refreshSchools);
    return schools;
  };
  // A --school-id given while other values are still to be asked is resolved first: a school that is not
  // the district's is said before the admin types anything (the list is read once, and kept).
  if (asked.length > 0 && draft.schoolId?.trim() && !asked.some(({ field }) => field === 'schoolId'))
    await (await directory()).schoolFor('--school-id', draft.schoolId, unlisted, UNLISTED_HINT);
  if (asked.length > 0) await promptMissing(ctx, draft, asked, directory);
  let checked = validateInvitation(draft);
  if (!checked.ok) throw invalidFlags(checked.problems, settings);

  // A school's name or identifier becomes its sourcedId; a usage error when it names no one school (unless
  // it is an id named by --allow-unlisted-school).
  const resolver = await directory();
  const typed = checked.body.schoolId;
  const school = await resolver.schoolFor('--school-id', typed, unlisted, UNLISTED_HINT);
  if (school.sourcedId !== typed) checked = withResolvedSchool(draft, typed, school.sourcedId);
  if (!checked.ok) throw invalidFlags(checked.problems, settings);
  const { body } = checked;
  if (school.unlisted)
    ctx.log.warn(
      `--school-id ${printable(body.schoolId, 80)} is not in the district's list of schools; sent as given (--allow-unlisted-school).`,
    );
  const single = await import('../../invite/single-send.js');
  const asking = ctx.interactive && !options.yes;
  // Said before the question or the dry run's answer; a script hears it from sendOne.
  const sentAt = options.dryRun || asking ? await single.sentBefore(ctx, session, settings, body) : undefined;
  if (sentAt !== undefined) single.warnSentBefore(ctx, body, sentAt, Boolean(options.dryRun));
  if (options.dryRun) {
    printDryRun(ctx, session, body, options.json, school.unlisted);
    return { body, dryRun: true };
  }
  if (asking) {
    // A token before the question: credentials the server refuses fail now, not after a "yes".
    await session.accessToken('invitations');
    if (school.unlisted) await confirmUnlisted(ctx, new Map([[body.schoolId, []]]));
    await confirm(ctx, session, body, resolver.nameOf(body.schoolId));
  }
  const created = await single.sendOne(ctx, session, settings, body, sentAt !== undefined);
  return { body, dryRun: false, response: created.body, message: created.message };
}

async function promptMissing(
  ctx: Context,
  draft: InvitationDraft,
  missing: typeof PROMPTED,
  directory: () => Promise<SchoolDirectory>,
): Promise<void> {
  const prompter = await ctx.prompter('nothing was sent');
  for (const { field, question } of missing) {
    if (field === 'schoolId') {
      const { pickSchool } = await import('./school-question.js');
      draft.schoolId = await pickSchool(ctx, prompter, await directory());
      continue;
    }
    draft[field] = await prompter.input(question, {
      validate: (value) =>
        field === 'email' && !isValidEmail(value.trim())
          ? 'Enter a valid e-mail address'
          : value.trim() !== '' || 'Required',
    });
  }
}

function describe(body: InvitationBody, schoolName: string | undefined): string[] {
  return FIELDS.filter((f) => body[f.name] !== undefined).map(
    (f) =>
      `  ${`${f.name}:`.padEnd(26)}${JSON.stringify(body[f.name])}` +
      (f.name === 'schoolId' && schoolName ? ` (${printable(schoolName, 80)})` : ''),
  );
}

async function confirm(
  ctx: Context,
  session: Session,
  body: InvitationBody,
  schoolName: string | undefined,
): Promise<void> {
  const c = colours(ctx.color);
  ctx.io.stderr.write(
    [
      `${c.bold('About to e-mail an enrollment invitation')} to ${c.bold(body.email)} (it cannot be taken back):`,
      `  POST ${session.api.url(INVITATIONS_PATH)}`,
      ...describe(body, schoolName),
      '',
    ].join('\n'),
  );
  await consent(ctx, `Send it to ${body.email}?`, 'nothing was sent');
}

function printDryRun(
  ctx: Context,
  session: Session,
  body: InvitationBody,
  json: boolean | undefined,
  unlistedSchool: boolean,
): void {
  const url = session.api.url(INVITATIONS_PATH);
  const tokenFrom = session.settings.envToken
    ? 'ROSTER_TOKEN'
    : `${session.baseUrl}${session.tokenSource('invitations').key.endpoint}`;
  if (json) {
    printJson(ctx, {
      method: 'POST',
      url,
      tokenEndpoint: tokenFrom,
      body,
      ...(unlistedSchool && { unlistedSchool: true }),
    });
  } else {
    ctx.io.stdout.write(
      [
        `POST ${url}`,
        `Authorization: Bearer <token from ${tokenFrom}>`,
        'Content-Type: application/json',
        '',
        JSON.stringify(body, null, 2),
        '',
      ].join('\n'),
    );
  }
  ctx.log.info('Dry run: nothing was sent.');
}

const DESCRIPTION =
  'E-mail an enrollment invitation (spec §4.5): the link lets a parent or guardian fill in the student ' +
  'enrollment form without logging in. An e-mail cannot be taken back: everything is checked before ' +
  'anything is sent, a terminal asks for confirmation (--yes skips it; scripts are not asked), and a ' +
  'request that may have reached the server is never sent again.\n\n' +
  'With --file, every row of a CSV (header: the spec field names) is sent; run the same command again ' +
  'to resume: sent rows are skipped, failed ones retried, and one whose outcome is unknown ("in ' +
  'doubt") is looked up in the server\'s invitation list: sent if listed, else listed for you, never ' +
  're-sent. Rows are matched by e-mail and school, so rows can be fixed or added between runs; the ' +
  'journal belongs to the file and the destination. Ctrl-C, SIGTERM or SIGHUP stops taking rows, lets ' +
  'those in flight finish and exits 130 after the summary; a second one leaves at once.\n\n' +
  `CSV columns (header names in any case, e.g. school_id): ${COLUMNS_TEXT}; email is required, the ` +
  'others may come from the flags. As Excel saves it: comma, semicolon or tab delimited (the header ' +
  'decides; --delimiter forces one), UTF-8 with or without a BOM or UTF-16 ("Unicode Text"), CRLF or ' +
  "LF. schoolId takes a name or identifier too. A school id the district's list does not have (a " +
  'school that opens next year) is refused unless named with --allow-unlisted-school or the row says ' +
  'allowUnlistedSchool=yes; a terminal then asks again, naming it, and the summary lists those rows.';

export function register(invite: Command, ctx: Context): void {
  const command = invite
    .command('send')
    .summary('e-mail an enrollment invitation to a parent or guardian (or one per CSV row with --file)')
    .description(DESCRIPTION)
    .option('--email <address>', 'recipient e-mail address')
    .option(
      '--school-id <id>',
      'school the invitation is for: its sourcedId, or its name or identifier (with --file: for rows without one)',
    )
    .option('--refresh-schools', "read the district's schools again instead of using the day-old cache")
    .option(
      '--allow-unlisted-school <id>',
      "send to this school id though the district's list of schools lacks it (a school not open yet; repeatable)",
      repeatable,
    )
    .option('--student-count <n>', 'number of students (default 1)')
    .option('--scope <scope>', 'scope for the guest token, repeatable (default fillEnrollment)', repeatable)
    .option('--interest-form-submission-id <id>', 'interest form submission id')
    .option('--learning-center-id <id>', 'learning center or campus id')
    .option('--school-year-id <id>', 'school year id')
    .option('--sent-by-user-id <id>', "user to attribute the invitation to (default: the profile's)");
  declareFileFlags(command)
    .option('--dry-run', 'show what would be sent, and send nothing')
    .option('-y, --yes', 'do not ask for confirmation')
    .option('--json', "print the server's answer (with --file: a report) as JSON")
    .action(async (options: SendOptions) => send(options, ctx));
  examples(command, [
    'roster invite send --email parent@example.org --school-id org-sch-1 --sent-by-user-id adm-001',
    'roster invite send --email parent@example.org --school-id org-sch-1 --student-count 2 --dry-run',
    'roster invite send --email parent@example.org --school-id "Alder Elementary School" --dry-run',
    'roster invite send --file invites.csv --sent-by-user-id adm-001 --concurrency 8',
    'roster invite send --file invites.csv --yes --json > report.json',
    'roster invite send --file invites-excel.csv --delimiter semicolon --dry-run',
    'roster invite send --email parent@example.org --school-id sch-2027 --allow-unlisted-school sch-2027',
  ]);
}

/** The flags of a file's send. */
function declareFileFlags(command: Command): Command {
  return command
    .option('--file <csv>', 'send one invitation per row of this CSV file')
    .option(
      '--delimiter <name>',
      "comma, semicolon or tab, with --file (default: the header line's)",
      delimiterFlag,
    )
    .option('--concurrency <n>', 'with --file: requests at a time, 1-16 (default 4)', parseConcurrency)
    .option('--resend-in-doubt', 'with --file: send again rows whose earlier outcome is unknown')
    .option(
      '--resend-sent',
      "with --file: send rows roster's record shows already sent, again (not rows in doubt: --resend-in-doubt)",
    )
    .option(
      '--failed-csv <path>',
      'with --file: where to write the failed rows (default: beside the journal)',
    );
}

/** A file's send (file-send.ts, loaded only then), or one invitation and its answer. */
async function send(options: SendOptions, ctx: Context): Promise<void> {
  if (options.file !== undefined) {
    const { sendFile } = await import('./file-send.js');
    return sendFile(fileSendOptions(options, await ctx.settings()), ctx);
  }
  const fileOnly = options.concurrency !== undefined || options.resendInDoubt || options.resendSent;
  if (fileOnly || options.failedCsv !== undefined || options.delimiter !== undefined) {
    throw new UsageError(
      '--concurrency, --resend-in-doubt, --resend-sent, --failed-csv and --delimiter go with --file.',
    );
  }
  const result = await run(options, ctx);
  if (result.dryRun) return;
  if (options.json) return printJson(ctx, result.response ?? null);
  printDone(ctx, result.message ?? '');
}
