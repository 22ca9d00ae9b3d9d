// Hostile and malformed input across every command: flags, CSV files, environment values, config files,
// base URLs, filters, enormous values, control characters, e-mail look-alikes. Each is refused before
// anything leaves the machine: exit 2 (a corrupt config file: exit 1, a local failure to fix by hand) with
// one message naming the problem, never a stack trace — and two recorders prove no request went out: the
// sandbox's request list for the sandbox, and a plain listening socket standing in as HTTP_PROXY /
// HTTPS_PROXY for every other address (169.254.169.254 and the like would be reached through it).
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';

interface Case {
  name: string;
  /** `{dir}` is replaced by the case's own directory (its files live there). */
  args: string[];
  env?: Record<string, string | undefined>;
  files?: Record<string, string | Buffer>;
  /** Raw text of config.json. */
  config?: string;
  input?: string;
  /** Default 2. */
  exit?: number;
  message: RegExp;
  /**
   * A CSV whose rows name schools: its schools are checked against the district's list too, so every
   * problem is listed in one pass. Those reads (the OneRoster token, GET …/schools) are its only requests.
   */
  readsSchools?: true;
}

const GOOD_CSV = 'email,schoolId\nparent@example.org,sch-1\n';
const send = ['invite', 'send', '--sent-by-user-id', 'adm-1', '--school-id', 'sch-1', '--yes'];
const sendFile = (file = '{dir}/in.csv') => ['invite', 'send', '--file', file, '--sent-by-user-id', 'adm-1'];
const noEnvCredentials = { ROSTER_CLIENT_ID: undefined, ROSTER_CLIENT_SECRET: undefined };
const profileConfig = (profile: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    defaultProfile: 'default',
    profiles: { default: { clientId: 'demo-allowed', ...profile } },
    ...extra,
  });

const CASES: Case[] = [
  // --- global flags and environment values ---
  {
    name: '--timeout abc',
    args: ['--timeout', 'abc', 'attendance', 'check'],
    message: /Invalid timeout "abc"/,
  },
  { name: '--timeout 0', args: ['--timeout', '0', 'attendance', 'check'], message: /Invalid timeout "0"/ },
  { name: '--timeout 1e9', args: ['--timeout', '1e9', 'token'], message: /Invalid timeout "1e9"/ },
  {
    name: 'ROSTER_TIMEOUT=abc',
    args: ['attendance', 'check'],
    env: { ROSTER_TIMEOUT: 'abc' },
    message: /Invalid timeout "abc"/,
  },
  {
    name: 'ROSTER_TIMEOUT=-5',
    args: ['token'],
    env: { ROSTER_TIMEOUT: '-5' },
    message: /Invalid timeout "-5"/,
  },
  {
    name: 'ROSTER_ONEROSTER=2.0',
    args: ['roster', 'students'],
    env: { ROSTER_ONEROSTER: '2.0' },
    message: /"2\.0" from ROSTER_ONEROSTER: expected 1\.1 or 1\.2/,
  },
  {
    name: '--oneroster 3',
    args: ['--oneroster', '3', 'roster', 'students'],
    message: /'3' is invalid.*1\.1, 1\.2/,
  },
  {
    name: 'ROSTER_CLIENT_AUTH=digest',
    args: ['token'],
    env: { ROSTER_CLIENT_AUTH: 'digest' },
    message: /"digest" from ROSTER_CLIENT_AUTH: expected basic or post/,
  },
  {
    name: 'ROSTER_BASE_URL=javascript:…',
    args: ['attendance', 'check'],
    env: { ROSTER_BASE_URL: 'javascript:alert(1)//v1' },
    message: /Invalid base URL from ROSTER_BASE_URL: it must start with https:\/\//,
  },
  {
    name: 'ROSTER_BASE_URL=file:///…',
    args: ['token'],
    env: { ROSTER_BASE_URL: 'file:///etc/passwd' },
    message: /Invalid base URL from ROSTER_BASE_URL: it must start with https:\/\//,
  },
  {
    name: 'ROSTER_BASE_URL=http://169.254.169.254/…',
    args: ['attendance', 'check'],
    env: { ROSTER_BASE_URL: 'http://169.254.169.254/latest/meta-data' },
    message: /Refusing plain http:\/\/ to 169\.254\.169\.254/,
  },
  {
    name: '--base-url with a user and password',
    args: ['--base-url', 'https://admin:pw@api.district.example/v1', 'token'],
    message: /must not contain a user name or password/,
  },
  {
    name: '--base-url with a query string',
    args: ['--base-url', 'https://api.district.example/v1?x=1', 'attendance', 'check'],
    message: /must not have a query string or fragment/,
  },
  {
    name: '--base-url with a newline',
    args: ['--base-url', 'https://api.district.example/v1\nhttps://evil.example', 'token'],
    message: /spaces or control characters/,
  },
  {
    name: '--base-url that is not a URL',
    args: ['--base-url', 'api district example', 'token'],
    message: /spaces or control characters/,
  },
  {
    name: 'ROSTER_PROFILE=../../etc',
    args: ['token'],
    env: { ROSTER_PROFILE: '../../etc' },
    message: /Invalid profile name "\.\.\/\.\.\/etc" from ROSTER_PROFILE/,
  },
  {
    name: '--profile of 200 characters',
    args: ['--profile', 'p'.repeat(200), 'status'],
    message: /Invalid profile name "p{80}…" from --profile/,
  },
  {
    name: 'ROSTER_CLIENT_ID without ROSTER_CLIENT_SECRET',
    args: ['token'],
    env: { ROSTER_CLIENT_SECRET: undefined },
    message: /ROSTER_CLIENT_ID is set but ROSTER_CLIENT_SECRET is not/,
  },
  {
    name: 'ROSTER_TOKEN with a line break (header injection)',
    args: ['attendance', 'check'],
    env: { ROSTER_TOKEN: 'abc\r\nX-Injected: 1' },
    message: /ROSTER_TOKEN .*(control|line)/i,
  },

  // --- config files ---
  {
    name: 'config.json that is not JSON',
    args: ['attendance', 'check'],
    config: '{"profiles": {"default": ',
    env: noEnvCredentials,
    exit: 1,
    message: /The config file .*config\.json cannot be read: .*JSON/,
  },
  {
    name: 'config.json truncated to nothing',
    args: ['token'],
    config: '',
    env: noEnvCredentials,
    exit: 1,
    message: /The config file .*config\.json cannot be read/,
  },
  {
    name: 'config.json with profiles as a list',
    args: ['status'],
    config: '{"profiles": []}',
    env: noEnvCredentials,
    exit: 1,
    message: /config\.json cannot be read: expected an object with "profiles"/,
  },
  {
    name: 'config.json with a number for baseUrl',
    args: ['token'],
    config: profileConfig({ baseUrl: 42 }),
    env: noEnvCredentials,
    exit: 1,
    message: /config\.json cannot be read: profile "default": "baseUrl" has the wrong type/,
  },
  {
    name: 'config.json with a javascript: baseUrl',
    args: ['attendance', 'check'],
    config: profileConfig({ baseUrl: 'javascript:alert(1)' }),
    env: { ...noEnvCredentials, ROSTER_BASE_URL: undefined },
    message: /Invalid base URL from profile "default"/,
  },
  {
    name: 'config.json with a metadata-service baseUrl',
    args: ['token'],
    config: profileConfig({ baseUrl: 'http://169.254.169.254/v1' }),
    env: { ...noEnvCredentials, ROSTER_BASE_URL: undefined },
    message: /Refusing plain http:\/\/ to 169\.254\.169\.254/,
  },
  {
    name: 'config.json with a bad defaultProfile',
    args: ['token'],
    config: JSON.stringify({ defaultProfile: 'a/../b', profiles: {} }),
    env: noEnvCredentials,
    message: /Invalid profile name "a\/\.\.\/b" from defaultProfile/,
  },
  {
    name: 'config.json with an outside token endpoint',
    args: ['token'],
    config: profileConfig({ tokenEndpoints: { general: 'https://evil.example/token' } }),
    message: /Invalid token endpoint "https:\/\/evil\.example\/token"/,
  },

  // --- token, login, profiles, doctor ---
  {
    name: 'token --endpoint to another host (//host/…)',
    args: ['token', '--endpoint', '//evil.example/token'],
    message: /Invalid token endpoint "\/\/evil\.example\/token"/,
  },
  {
    name: 'token --endpoint climbing out of the base path',
    args: ['token', '--endpoint', '/oauth/../../admin/token'],
    message: /Invalid token endpoint "\/oauth\/\.\.\/\.\.\/admin\/token"/,
  },
  {
    name: 'token --endpoint climbing out, percent-encoded',
    args: ['token', '--endpoint', '/%2e%2E/admin'],
    message: /Invalid token endpoint/,
  },
  {
    name: 'token --endpoint toString',
    args: ['token', '--endpoint', 'toString'],
    message: /Invalid token endpoint "toString"/,
  },
  {
    name: 'login to plain http on another host',
    args: [
      'login',
      '--base-url',
      'http://api.district.example/v1',
      '--client-id',
      'x',
      '--client-secret-stdin',
    ],
    input: 'secret-value',
    env: noEnvCredentials,
    message: /Refusing plain http:\/\/ to api\.district\.example/,
  },
  {
    name: 'login with an empty secret on stdin',
    args: ['login', '--client-id', 'x', '--client-secret-stdin'],
    input: '',
    env: noEnvCredentials,
    message: /stdin was empty/,
  },
  {
    name: 'login with a two-line secret',
    args: ['login', '--client-id', 'x', '--client-secret-stdin'],
    input: 'one\ntwo\n',
    env: noEnvCredentials,
    message: /single line/,
  },
  {
    name: 'login with a control character in the client id',
    args: ['login', '--client-id', 'demo\u0007allowed', '--client-secret-stdin'],
    input: 'secret-value',
    env: noEnvCredentials,
    message:
      /Invalid client id "demo\\u0007allowed": it contains a control character \(U\+0007 at character 5\)/,
  },
  {
    name: 'login --profile with a slash',
    args: ['login', '--profile', 'east/west', '--client-id', 'x', '--client-secret-stdin'],
    input: 'secret-value',
    env: noEnvCredentials,
    message: /Invalid profile name "east\/west"/,
  },
  { name: 'profiles use with a bad name', args: ['profiles', 'use', 'bad name!'], message: /bad name!/ },
  { name: 'doctor --only an unknown check', args: ['doctor', '--only', 'reachable,pwn'], message: /pwn/ },

  // --- invite send: flags and e-mail look-alikes ---
  {
    name: 'e-mail with a trailing newline',
    args: [...send, '--email', 'parent@example.org\n'],
    message: /--email "parent@example\.org" contains a control character \(a line break\?\)/,
  },
  {
    name: 'e-mail with a Cyrillic а',
    args: [...send, '--email', 'pаrent@example.org'],
    // A look-alike letter is named with its code point: the user sees which one is not what it seems.
    message: /--email "pаrent@example\.org" contains "а" \(U\+0430\), which is not ASCII/,
  },
  {
    name: 'e-mail a@b',
    args: [...send, '--email', 'a@b'],
    message: /--email "a@b" is not a valid e-mail address/,
  },
  {
    name: 'e-mail with a trailing dot',
    args: [...send, '--email', 'parent@example.org.'],
    message: /is not a valid e-mail address/,
  },
  {
    name: 'e-mail with a display name',
    args: [...send, '--email', 'Parent <parent@example.org>'],
    message: /is not a valid e-mail address/,
  },
  {
    name: 'e-mail with two @',
    args: [...send, '--email', 'parent@@example.org'],
    message: /is not a valid e-mail address/,
  },
  {
    name: 'e-mail with a zero-width space',
    args: [...send, '--email', 'par\u200bent@example.org'],
    message:
      /--email "par\\u200bent@example\.org" contains an invisible character \(U\+200B at character 4\)/,
  },

  // --- invisible characters in ids: "sch-1" and "sch-1\u200b" look alike but are two schools ---
  {
    name: '--school-id with a zero-width space',
    args: [
      ...send.filter((a) => a !== 'sch-1' && a !== '--school-id'),
      '--school-id',
      'sch-1\u200b',
      '--email',
      'p@example.org',
    ],
    message: /--school-id contains an invisible character \(U\+200B at character 6\)/,
  },
  {
    name: '--sent-by-user-id with a right-to-left override',
    args: [
      'invite',
      'send',
      '--email',
      'p@example.org',
      '--school-id',
      'sch-1',
      '--sent-by-user-id',
      'adm\u202e1-',
    ],
    message: /--sent-by-user-id contains an invisible character \(U\+202E at character 4\)/,
  },
  {
    name: '--learning-center-id with a BOM inside',
    args: [...send, '--email', 'p@example.org', '--learning-center-id', 'lc\ufeff1'],
    message: /--learning-center-id contains an invisible character \(U\+FEFF at character 3\)/,
  },
  {
    name: '--school-year-id with a soft hyphen',
    args: [...send, '--email', 'p@example.org', '--school-year-id', 'sy\u00ad2025'],
    message: /--school-year-id contains an invisible character \(U\+00AD at character 3\)/,
  },
  {
    name: '--interest-form-submission-id with a variation selector',
    args: [...send, '--email', 'p@example.org', '--interest-form-submission-id', 'ifs-1\ufe0f'],
    message: /--interest-form-submission-id contains an invisible character \(U\+FE0F at character 6\)/,
  },
  {
    name: '--school-id with a Mongolian vowel separator and a tag character',
    args: [
      'invite',
      'send',
      '--email',
      'p@example.org',
      '--sent-by-user-id',
      'a',
      '--school-id',
      's\u180e\u{e0041}',
    ],
    message: /--school-id contains an invisible character \(U\+180E at character 2\)/,
  },
  {
    name: '--email with a left-to-right mark at the end',
    args: [...send, '--email', 'parent@example.org\u200e'],
    message:
      /--email "parent@example\.org\\u200e" contains an invisible character \(U\+200E at character 19\)/,
  },
  {
    name: 'CSV with a word joiner in a schoolId on line 3',
    args: sendFile(),
    files: { 'in.csv': 'email,schoolId\na@example.org,sch-1\nb@example.org,sch-1\u2060\n' },
    message: /line 3: schoolId contains an invisible character \(U\+2060 at character 6\)/,
    readsSchools: true,
  },
  {
    name: 'CSV with a zero-width joiner in a sentByUserId',
    args: sendFile(),
    files: { 'in.csv': 'email,schoolId,sentByUserId\na@example.org,sch-1,adm\u200d1\n' },
    message: /line 2: sentByUserId contains an invisible character \(U\+200D at character 4\)/,
    readsSchools: true,
  },
  {
    name: 'login --client-id with a zero-width space',
    args: ['login', '--client-id', 'demo\u200b-allowed', '--client-secret-stdin'],
    input: 'secret-value',
    env: noEnvCredentials,
    message:
      /Invalid client id "demo\\u200b-allowed": it contains an invisible character \(U\+200B at character 5\)/,
  },
  {
    name: 'ROSTER_CLIENT_ID with a zero-width non-joiner',
    args: ['token'],
    env: { ROSTER_CLIENT_ID: 'demo\u200callowed' },
    message:
      /Invalid client id "demo\\u200callowed" from ROSTER_CLIENT_ID: it contains an invisible character \(U\+200C at character 5\)/,
  },
  {
    name: 'invite list --school-id with a pop directional isolate',
    args: ['invite', 'list', '--school-id', 'sch-1\u2069'],
    message:
      /Invalid --school-id "sch-1\\u2069": it contains an invisible character \(U\+2069 at character 6\)/,
  },
  {
    name: 'roster students --school with a zero-width space',
    args: ['roster', 'students', '--school', 'sch\u200b1'],
    message: /Invalid --school "sch\\u200b1": it contains an invisible character \(U\+200B at character 4\)/,
  },
  {
    name: 'a sourcedId with a first strong isolate',
    args: ['roster', 'students', '\u2068stu-1'],
    message:
      /Invalid the sourcedId "\\u2068stu-1": it contains an invisible character \(U\+2068 at character 1\)/,
  },
  {
    name: '--student-count 0',
    args: [...send, '--email', 'p@example.org', '--student-count', '0'],
    message: /--student-count must be a positive whole number \(got "0"\)/,
  },
  {
    name: '--student-count 1.5',
    args: [...send, '--email', 'p@example.org', '--student-count', '1.5'],
    message: /--student-count must be a positive whole number/,
  },
  {
    name: '--student-count 99999999999',
    args: [...send, '--email', 'p@example.org', '--student-count', '99999999999'],
    message: /--student-count must be a positive whole number/,
  },
  {
    name: '--scope unknown',
    args: [...send, '--email', 'p@example.org', '--scope', 'fillEverything'],
    message: /unknown scope "fillEverything"/,
  },
  {
    name: '--school-id with an escape sequence',
    args: [
      'invite',
      'send',
      '--email',
      'p@example.org',
      '--school-id',
      'sch\u001b[31m',
      '--sent-by-user-id',
      'a',
    ],
    message: /--school-id contains a control character \(U\+001B at character 4\)/,
  },
  {
    name: '--sent-by-user-id of 100,000 characters',
    args: [
      'invite',
      'send',
      '--email',
      'p@example.org',
      '--school-id',
      's',
      '--sent-by-user-id',
      'u'.repeat(100_000),
    ],
    message: /--sent-by-user-id must be at most 1000 characters \(got 100000\)/,
  },
  {
    name: '--concurrency 0',
    args: [...sendFile(), '--concurrency', '0'],
    files: { 'in.csv': GOOD_CSV },
    message: /Invalid --concurrency "0": give a whole number from 1 to 16/,
  },
  {
    name: '--concurrency 999',
    args: [...sendFile(), '--concurrency', '999'],
    files: { 'in.csv': GOOD_CSV },
    message: /Invalid --concurrency "999"/,
  },
  {
    name: '--concurrency without --file',
    args: [...send, '--email', 'p@example.org', '--concurrency', '2'],
    message: /go with --file/,
  },

  // --- invite send --file: CSV files ---
  {
    name: 'CSV with NUL bytes',
    args: sendFile(),
    files: { 'in.csv': 'email,schoolId\npar\u0000ent@example.org,sch\u00001\n' },
    message: /line 2: .*(email|control)/,
  },
  {
    name: 'CSV with the header only',
    args: sendFile(),
    files: { 'in.csv': 'email,schoolId\r\n' },
    message: /no rows after the header/,
  },
  { name: 'CSV that is empty', args: sendFile(), files: { 'in.csv': '' }, message: /the file is empty/ },
  {
    name: 'CSV with a 10 MB value',
    args: sendFile(),
    files: { 'in.csv': `email,schoolId\nparent@example.org,${'x'.repeat(10 * 1024 * 1024)}\n` },
    message: /line 2: schoolId must be at most 1000 characters \(got 10485760\)/,
  },
  {
    name: 'CSV with an e-mail look-alike (Cyrillic)',
    args: sendFile(),
    files: { 'in.csv': 'email,schoolId\npаrent@example.org,sch-1\n' },
    message: /line 2: email "pаrent@example\.org" contains "а" \(U\+0430\), which is not ASCII/,
    readsSchools: true,
  },
  {
    name: 'CSV with a quoted e-mail holding a line break',
    args: sendFile(),
    files: { 'in.csv': 'email,schoolId\n"parent@example.org\n",sch-1\n' },
    message: /line 2: email "parent@example\.org" contains a control character/,
    readsSchools: true,
  },
  {
    name: 'CSV with an unclosed quote',
    args: sendFile(),
    files: { 'in.csv': 'email,schoolId\n"parent@example.org,sch-1\n' },
    message: /never closed/,
  },
  {
    name: 'CSV with an unknown column (a formula)',
    args: sendFile(),
    files: { 'in.csv': 'email,=HYPERLINK("x")\np@example.org,1\n' },
    message: /unknown column/,
  },
  {
    name: 'CSV with the same row twice',
    args: sendFile(),
    files: { 'in.csv': 'email,schoolId\np@example.org,org-sch-1\nP@Example.org ,org-sch-1\n' },
    message: /line 3: duplicate of line 2/,
    readsSchools: true,
  },
  {
    name: 'CSV that is a spreadsheet (zip bytes)',
    args: sendFile(),
    files: { 'in.csv': Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x06, 0x00, 0xff, 0xfe, 0x0a]) },
    message: /Cannot read --file .*in\.csv: line 1 is not UTF-8 text/,
  },
  {
    name: '--file that does not exist',
    args: sendFile('{dir}/missing.csv'),
    message: /Cannot read --file .*missing\.csv: no such file/,
  },
  {
    name: '--file that is a directory',
    args: sendFile('{dir}'),
    message: /Cannot read --file .*: it is a directory/,
  },
  { name: '--file - (stdin)', args: sendFile('-'), input: GOOD_CSV, message: /stdin cannot be resumed/ },

  // --- roster reads: filters, fields, counts, ids ---
  {
    name: '--page-size -1',
    args: ['roster', 'students', '--all', '--page-size', '-1'],
    message: /Invalid --page-size "-1"/,
  },
  {
    name: '--page-size 1e3',
    args: ['roster', 'students', '--all', '--page-size', '1e3'],
    message: /Invalid --page-size "1e3"/,
  },
  {
    name: '--limit 10001',
    args: ['roster', 'students', '--limit', '10001'],
    message: /Invalid --limit "10001"/,
  },
  { name: '--offset -5', args: ['roster', 'students', '--offset', '-5'], message: /Invalid --offset "-5"/ },
  {
    name: '--concurrency 999 for a read',
    args: ['roster', 'students', '--all', '--concurrency', '999'],
    message: /Invalid --concurrency "999"/,
  },
  {
    name: '--fields with a control character',
    args: ['roster', 'students', '--fields', 'givenName,family\u0007Name'],
    message: /Invalid field name "family\\u0007Name" in --fields/,
  },
  {
    name: '--fields that is only commas',
    args: ['roster', 'students', '--fields', ',,,'],
    message: /--fields is empty/,
  },
  {
    name: '--filter with a newline after the quote',
    args: ['roster', 'students', '--filter', "familyName='O''Brien'\n"],
    message: /--filter contains a control character/,
  },
  {
    name: '--filter with a DEL inside the quotes',
    args: ['roster', 'students', '--filter', "givenName='Zo\u007fë'"],
    message: /--filter contains a control character/,
  },
  {
    name: '--filter with an escape sequence and Unicode',
    args: ['roster', 'students', '--filter', "familyName='Ångström\u001b[2J'"],
    message: /--filter contains a control character/,
  },
  {
    name: '--filter of only spaces',
    args: ['roster', 'students', '--filter', '   '],
    message: /--filter is empty/,
  },
  {
    name: '--filter of 30,000 Unicode characters',
    args: ['roster', 'students', '--filter', `givenName='${'ü'.repeat(30_000)}'`],
    message: /--filter is too long \(30012 characters; at most 2048\)/,
  },
  {
    name: '--sort with SQL',
    args: ['roster', 'students', '--sort', 'familyName; DROP TABLE users'],
    message: /Invalid --sort/,
  },
  {
    name: '--order-by sideways',
    args: ['roster', 'students', '--sort', 'familyName', '--order-by', 'sideways'],
    message: /Invalid --order-by "sideways"/,
  },
  {
    name: 'a sourcedId of ..',
    args: ['roster', 'students', '..'],
    message: /Invalid the sourcedId "\.\."|Invalid sourcedId/,
  },
  {
    name: 'a sourcedId with a line break',
    args: ['roster', 'students', 'stu-1\r\nHost: evil'],
    message: /sourcedId "stu-1\\r\\nHost: evil": it contains a control character \(U\+000D at character 6\)/,
  },
  {
    name: 'a sourcedId of 100,000 characters',
    args: ['roster', 'students', 's'.repeat(100_000)],
    message: /Invalid the sourcedId "s{40}…": too long \(100000 characters; at most 1000\)/,
  },
  {
    name: '--json with --csv',
    args: ['roster', 'students', '--json', '--csv'],
    message: /Choose one of --json, --csv/,
  },

  // --- invite list ---
  {
    name: 'invite list --param without =',
    args: ['invite', 'list', '--param', 'status'],
    message: /--param/,
  },
  { name: 'invite list --per-page 0', args: ['invite', 'list', '--per-page', '0'], message: /--per-page/ },
  {
    name: 'invite list --email with a line break',
    args: ['invite', 'list', '--email', 'parent@example.org\n'],
    message: /Invalid --email "parent@example\.org\\n": it contains a control character/,
  },
  {
    name: 'invite list --email look-alike (Cyrillic)',
    args: ['invite', 'list', '--email', 'pаrent@example.org'],
    message: /Invalid --email "pаrent@example\.org": not a valid e-mail address/,
  },
  {
    name: 'invite list --school-id with an escape sequence',
    args: ['invite', 'list', '--school-id', 'sch\u001b]0;pwned\u0007'],
    message: /Invalid --school-id "sch\\u001b\]0;pwned\\u0007"/,
  },
];

let sandbox: Sandbox;
let proxy: Server;
let proxyConnections = 0;
const proxySockets = new Set<Socket>();
let proxyUrl = '';

beforeAll(async () => {
  sandbox = await startSandbox();
  proxy = createServer((socket) => {
    proxyConnections++;
    proxySockets.add(socket);
    socket.on('close', () => proxySockets.delete(socket));
    socket.destroy();
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const address = proxy.address();
  proxyUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(async () => {
  for (const socket of proxySockets) socket.destroy();
  await new Promise<void>((resolve) => proxy.close(() => resolve()));
  await sandbox.close();
});

describe(`${CASES.length} hostile inputs: refused before any request`, () => {
  it('has at least 40 cases, each with a distinct name', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(40);
    expect(new Set(CASES.map((c) => c.name)).size).toBe(CASES.length);
  });

  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const home = tempDir();
    const dir = tempDir();
    for (const [name, content] of Object.entries(c.files ?? {})) writeFileSync(join(dir, name), content);
    if (c.config !== undefined) {
      mkdirSync(join(home, '.config', 'roster'), { recursive: true });
      writeFileSync(join(home, '.config', 'roster', 'config.json'), c.config);
    }
    const before = { sandbox: sandbox.requests.length, proxy: proxyConnections };
    const port = new URL(sandbox.origin).port;
    const result = await runCli(
      c.args.map((a) => a.replaceAll('{dir}', dir)),
      home,
      {
        input: c.input,
        env: {
          ROSTER_BASE_URL: sandbox.baseUrl,
          ROSTER_CLIENT_ID: 'demo-allowed',
          ROSTER_CLIENT_SECRET: 'riverside-secret-2024',
          // Anything not bound for the sandbox would go through this recorder.
          HTTP_PROXY: proxyUrl,
          HTTPS_PROXY: proxyUrl,
          NO_PROXY: `127.0.0.1:${port}`,
          ...c.env,
        },
      },
    );
    const schoolsRead = (r: (typeof sandbox.requests)[number]) =>
      c.readsSchools && (r.path.endsWith('/schools') || (r.method === 'POST' && r.path.endsWith('/token')));
    const requests = {
      sandbox: sandbox.requests.slice(before.sandbox).filter((r) => !schoolsRead(r)).length,
      proxy: proxyConnections - before.proxy,
    };
    expect({ exit: result.code, requests }, result.stderr).toEqual({
      exit: c.exit ?? 2,
      requests: { sandbox: 0, proxy: 0 },
    });
    expect(result.stderr).toMatch(c.message);
    expect(result.stderr).not.toMatch(/^\s+at /m); // never a stack trace
    expect(result.stderr.length).toBeLessThan(2000); // a 10 MB value is never echoed whole
    expect(result.stdout).toBe('');
  });
});
