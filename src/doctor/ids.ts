// The doctor's check ids, in run order. Kept apart from the checks themselves so --help, flag parsing and
// shell completion know them without loading the checks (a test keeps the two lists equal).
export const CHECK_IDS = [
  'config',
  'reachable',
  'token-oauth',
  'token-v1p1',
  'token-v1p2',
  'other-auth',
  'clock',
  'attendance',
  'invitations',
  'oneroster-1.1',
  'oneroster-1.2',
  'audit',
] as const;

/** Not required unless named in --only: it only tells whether switching --client-auth would work. */
export const INFORMATIONAL_CHECKS: readonly string[] = ['other-auth'];
