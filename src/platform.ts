// What differs between the operating systems roster runs on, in one place: every platform branch asks
// here, and each answer is a function of the platform, so unit tests on Linux cover Windows and macOS too.
// (Where files live on each is paths.ts's job.)

type Platform = NodeJS.Platform;

export const isWindows = (platform: Platform = process.platform): boolean => platform === 'win32';

/**
 * Whether a folder can be fsynced, so that a file just created or renamed into it survives a power cut.
 * Not on Windows: a folder cannot be opened as a file there (EPERM) and Windows has no call to flush one;
 * NTFS journals its metadata itself, so a create or rename that returned is as durable as it gets.
 */
export const canSyncFolders = (platform: Platform = process.platform): boolean => !isWindows(platform);

/**
 * Whether files have POSIX owners and modes that say who else may write them. Not on Windows (Node reports
 * uid 0 and made-up modes there): what keeps roster's files private on Windows is where they are, the
 * user's own profile folders (%APPDATA% and %LOCALAPPDATA%), which Windows lets only that user (and
 * administrators) open.
 */
export const hasPosixOwners = (platform: Platform = process.platform): boolean => !isWindows(platform);

/**
 * Whether a rename over a file failed only for now: Windows refuses to replace a file that another process
 * has open at that instant (a roster reading it, an antivirus or backup scan) with EPERM, EACCES or EBUSY.
 * Elsewhere those mean a real permission problem, never worth a retry.
 */
export function renameRefusedForNow(
  code: string | undefined,
  platform: Platform = process.platform,
): boolean {
  return isWindows(platform) && (code === 'EPERM' || code === 'EACCES' || code === 'EBUSY');
}

/**
 * The signals that mean "stop" to a long run (the first stops taking work and saves it, exit 130).
 * - Linux and macOS: Ctrl-C (SIGINT), SIGTERM (`kill`, a cancelled CI job), SIGHUP (the terminal closed).
 * - Windows: Ctrl-C (SIGINT), Ctrl-Break (SIGBREAK), and the console window closed, which Node reports as
 *   SIGHUP (Windows ends the process about 10 s later). There is no SIGTERM to receive: `taskkill /F` ends a
 *   process at once, as kill -9 does elsewhere, and the journals are written for exactly that.
 */
export function stopSignals(platform: Platform = process.platform): NodeJS.Signals[] {
  return isWindows(platform) ? ['SIGINT', 'SIGBREAK', 'SIGHUP'] : ['SIGINT', 'SIGTERM', 'SIGHUP'];
}

/**
 * A path as one word of a command line the user can paste: POSIX shells' quoting, or on Windows
 * PowerShell's (single quotes, a quote doubled; drive letters and backslashes need none).
 */
export function quotePath(path: string, platform: Platform = process.platform): string {
  if (isWindows(platform)) return /^[\w.\\/:~+-]+$/.test(path) ? path : `'${path.replace(/'/g, "''")}'`;
  return /^[\w./~+-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}

/** What the system keychain is called where the user would look for roster's secret. */
export function keychainName(platform: Platform = process.platform): string {
  if (platform === 'linux') return 'the system keychain (Secret Service)';
  if (platform === 'darwin') return 'the login keychain (Keychain Access)';
  if (isWindows(platform)) return 'Windows Credential Manager';
  return 'the system keychain';
}
