// Claims on invitations being sent (the database's `claims` table, one row per invitation at most). The
// record says who was invited; the claims say who is being invited right now and by which run, so runs of
// different files never send one family at the same time, and a run killed with a request in flight leaves
// that family in doubt for every other run, as its own journal does for itself.
//
// An invitation's claim is `sending` (held by a run whose request is about to leave or out, until a
// deadline) or `in-doubt` (the run could not tell whether it was sent); a settled claim ('done') is no row.
import type { ProcessRef } from '../../lock.js';
import type { StoreDb } from './database.js';

export type ClaimState = 'sending' | 'in-doubt' | 'done';

/** A run as its claims name it: its file's real path (or a single send's name), its file, when it began. */
export interface ClaimingRun {
  run: string;
  file?: string;
  began?: string;
}

export interface Claim extends ProcessRef {
  /** The invitation (invitationIdentity). */
  id: string;
  /** The run that claimed it. */
  run: string;
  /** The file that run sends, for a message naming it. */
  file?: string;
  /** When that run's journal began: a run of the same file begun again is another run. */
  began?: string;
  /** Taken over another run's doubt (--resend-*): if its run dies, the row stays in doubt, whatever its journal says. */
  over?: 'in-doubt';
  state: ClaimState;
  at: string;
  /**
   * A `sending` claim's deadline: past it the request has certainly ended (every attempt timed out), so a
   * claim still unsettled was left by a run that stopped, or hangs (suspended, or a pid since reused).
   */
  until?: string;
}

/**
 * The run a command of its own stands as (a single send, settle, forget, history): a name no file run's
 * real path can be, as a path is absolute. Not NUL-led: Node 22's node:sqlite reads a TEXT value only up
 * to its first NUL, so such a name came back empty and a single send's claim read as another run's.
 */
export const commandRun = (name: string) => `roster: ${name}`;
export const isCommandRun = (run: string) => run.startsWith('roster: ');

const COLUMNS = 'identity, run, file, began, over, state, at, until, pid, host, started';

/** The invitation's claim, if any. */
export function claimOf(db: StoreDb, identity: string): Claim | undefined {
  const row = db.get(`SELECT ${COLUMNS} FROM claims WHERE identity = ?`, identity);
  return row && claimFrom(row);
}

/** Every open claim (sending or in doubt). */
export function openClaimsIn(db: StoreDb): Claim[] {
  return db.all(`SELECT ${COLUMNS} FROM claims`).map(claimFrom);
}

/** Writes `claim` as the invitation's claim; a 'done' one takes the claim away. */
export function putClaim(db: StoreDb, claim: Claim): void {
  if (claim.state === 'done') {
    db.run('DELETE FROM claims WHERE identity = ?', claim.id);
    return;
  }
  db.run(
    `INSERT OR REPLACE INTO claims (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    claim.id,
    claim.run,
    claim.file ?? null,
    claim.began ?? null,
    claim.over ?? null,
    claim.state,
    claim.at,
    claim.until ?? null,
    claim.pid,
    claim.host ?? null,
    claim.started ?? null,
  );
}

function claimFrom(row: Record<string, unknown>): Claim {
  const claim: Claim = {
    id: row.identity as string,
    run: row.run as string,
    state: row.state as ClaimState,
    at: row.at as string,
    pid: row.pid as number,
  };
  for (const key of ['file', 'began', 'until', 'host', 'started'] as const)
    if (typeof row[key] === 'string') claim[key] = row[key] as string;
  if (row.over === 'in-doubt') claim.over = 'in-doubt';
  return claim;
}
