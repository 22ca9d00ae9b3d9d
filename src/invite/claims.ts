// Claims on invitations being sent, kept beside roster's record of sent invitations (`<record>.claims`). The
// record says who was invited; the claims say who is being invited right now and by which run, so runs of
// different files (each with its own journal) never send one family at the same time, and a run killed with
// a request in flight leaves that family in doubt for every other run, as its own journal does for itself.
//
// - One JSON object per line; an invitation's last line is its claim: `sending` (its request is about to
//   leave, or is out), `in-doubt` (the run could not tell whether it was sent) or `done` (sent and in the
//   record, or certainly not sent).
// - Read and written only under the record's lock (sent-record.ts), in whole lines, fsynced before any
//   request leaves. Kept short: once most of its lines are settled it is rewritten with the rest alone.

import { closeSync, fsyncSync, ftruncateSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { RosterError } from '../errors.js';
import { fileError, openOwnAppendableSync, writePrivateFile } from '../files.js';
import { isRunning, type ProcessRef } from './lock.js';

export type ClaimState = 'sending' | 'in-doubt' | 'done';

export interface Claim extends ProcessRef {
  /** The invitation (invitationIdentity). */
  id: string;
  /** The run that claimed it: its journal's path. */
  run: string;
  /** The file that run sends, for a message naming it. */
  file?: string;
  state: ClaimState;
  at: string;
}

/**
 * What a claim means to a run about to send the invitation: free (nobody else's, or settled), busy (another
 * run is sending it now: wait), stopped (a run was killed while sending it) or in-doubt (a run could not tell).
 */
export type Standing = 'free' | 'busy' | 'stopped' | 'in-doubt';

export function standing(claim: Claim | undefined, run: string, now = Date.now()): Standing {
  if (!claim || claim.run === run || claim.state === 'done') return 'free';
  if (claim.state === 'in-doubt') return 'in-doubt';
  // A process on another host (a shared home folder) cannot be checked: one request never takes this long.
  if (claim.host !== undefined && claim.host !== hostname() && now - Date.parse(claim.at) > REMOTE_MS)
    return 'stopped';
  return isRunning(claim) ? 'busy' : 'stopped';
}

/** How long another host's claim may be in flight before it counts as stopped. */
const REMOTE_MS = 15 * 60_000;

/** Past this many lines, a file whose claims are mostly settled is rewritten with the unsettled ones: it is
 * read whole for every batch, so it must stay about as short as the claims in flight. */
const COMPACT_AFTER = 64;

/**
 * Under the record's lock: reads the claims at `path` (created if absent), lets `decide` see the latest
 * claim of each invitation and return the claims to add, and writes them (fsynced) before returning.
 */
export async function updateClaims(
  path: string,
  decide: (latest: Map<string, Claim>) => Claim[],
): Promise<void> {
  // Synchronous system calls: this runs for every batch of rows, while their requests wait for it.
  const fd = openOwnAppendableSync(path);
  try {
    const bytes = readFileSync(fd);
    // A torn last line (a writer killed mid-write) never became a claim: cut off before appending.
    const whole = bytes.lastIndexOf(10) + 1;
    const latest = new Map<string, Claim>();
    const lines = parseClaims(bytes.toString('utf8', 0, whole), path, latest);
    const added = decide(latest);
    for (const claim of added) latest.set(claim.id, claim);
    const unsettled = [...latest.values()].filter((c) => c.state !== 'done');
    if (lines + added.length > COMPACT_AFTER && unsettled.length * 4 < lines + added.length) {
      await writePrivateFile(path, serialize(unsettled), { durable: true });
      return;
    }
    if (added.length === 0) return;
    if (whole < bytes.length) ftruncateSync(fd, whole);
    writeFileSync(fd, serialize(added));
    fsyncSync(fd);
  } catch (error) {
    throw fileError(error, path, 'write');
  } finally {
    closeSync(fd);
  }
}

const serialize = (claims: Claim[]) => claims.map((c) => `${JSON.stringify(c)}\n`).join('');

/** Fills `latest` with each invitation's last claim; returns the number of lines. */
function parseClaims(text: string, path: string, latest: Map<string, Claim>): number {
  if (text === '') return 0;
  const lines = text.split('\n');
  lines.pop(); // '' after the last \n
  lines.forEach((line, index) => {
    const claim = parseClaim(line);
    // A claim skipped could let two runs send one family: refuse, as the record does.
    if (!claim) {
      throw new RosterError(
        'failure',
        `The claims on invitations being sent, ${path}, are damaged at line ${index + 1}.`,
        'Move the file aside only when no roster runs: a family in doubt there could be e-mailed again.',
      );
    }
    latest.set(claim.id, claim);
  });
  return lines.length;
}

const STATES: readonly string[] = ['sending', 'in-doubt', 'done'] satisfies ClaimState[];

function parseClaim(line: string): Claim | undefined {
  try {
    const value = JSON.parse(line) as Partial<Claim>;
    if (
      typeof value.id === 'string' &&
      typeof value.run === 'string' &&
      typeof value.at === 'string' &&
      STATES.includes(value.state as string) &&
      Number.isSafeInteger(value.pid) &&
      (value.file === undefined || typeof value.file === 'string') &&
      (value.host === undefined || typeof value.host === 'string') &&
      (value.started === undefined || typeof value.started === 'string')
    )
      return value as Claim;
  } catch {}
  return undefined;
}
