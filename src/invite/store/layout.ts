// Where the store keeps its files (see index.ts for what they hold): one journal per input file and
// destination, one record of sent invitations per destination. However the file and the service are
// spelled, one file sent to one service has one journal, and one service one record.
import { createHash } from 'node:crypto';
import { basename, join } from 'node:path';

/** Where a run sends: the same file sent to another district (or as another client) is another run. */
export interface Destination {
  baseUrl: string;
  clientId: string;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * The service a base URL names, spelled one way: scheme and host in lower case, no default port, no
 * trailing dot or slash, repeated slashes as one, localhost / 127.0.0.1 / [::1] as one host, and the path in
 * lower case. URL paths may be case-sensitive, but two spellings of one service that differ only in case
 * are far likelier than two services on one host that do: folding errs towards never e-mailing twice.
 */
export function canonicalBaseUrl(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return baseUrl;
  }
  const hostname = url.hostname.replace(/\.$/, '');
  const host = LOOPBACK.has(hostname) ? '127.0.0.1' : hostname;
  const path = url.pathname
    .replace(/\/{2,}/g, '/')
    .replace(/\/+$/, '')
    .toLowerCase();
  return `${url.protocol}//${host}${url.port ? `:${url.port}` : ''}${path}`;
}

/** The destination spelled one way (canonicalBaseUrl). */
export const canonical = (destination: Destination): Destination => ({
  baseUrl: canonicalBaseUrl(destination.baseUrl),
  clientId: destination.clientId,
});

export const sameDestination = (a: Destination | undefined, b: Destination) =>
  a !== undefined && canonicalBaseUrl(a.baseUrl) === canonicalBaseUrl(b.baseUrl) && a.clientId === b.clientId;

/**
 * `<state>/invites/<file name>-<hash of real path, canonical base URL and client id>.jsonl`: one journal per
 * input file and destination, whatever the file holds now and however either is spelled. The file is keyed by
 * its real path (symlinks, `.` and `..` resolved), not its device and inode: editors save by writing a new
 * file and renaming it over the old one, and a fixed file must resume its journal. Its letter case is the
 * OS's: on macOS and Windows realpath gives the case on disk; on Linux `A.csv` and `a.csv` are two files.
 */
export function journalPath(stateDir: string, realFile: string, destination: Destination): string {
  const hash = createHash('sha256')
    .update(realFile)
    .update('\0')
    .update(canonicalBaseUrl(destination.baseUrl))
    .update('\0')
    .update(destination.clientId)
    .digest('hex');
  const name = basename(realFile)
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .slice(0, 60);
  return join(stateDir, 'invites', `${name}-${hash.slice(0, 16)}.jsonl`);
}

/** `<state>/sent/<host>-<16 hex of the canonical base URL and client id>.db`: the destination's database. */
export const storePath = (stateDir: string, destination: Destination) =>
  sentRecordPath(stateDir, destination).replace(/\.jsonl$/, '.db');

/**
 * `<state>/sent/<host>-<16 hex of the canonical base URL and client id>.jsonl`: the record of sent
 * invitations before roster kept it in a database (legacy.ts imports it once).
 */
export function sentRecordPath(stateDir: string, destination: Destination): string {
  const baseUrl = canonicalBaseUrl(destination.baseUrl);
  const hash = createHash('sha256').update(baseUrl).update('\0').update(destination.clientId).digest('hex');
  let host = 'service';
  try {
    host = new URL(baseUrl).host;
  } catch {}
  return join(
    stateDir,
    'sent',
    `${host.replace(/[^A-Za-z0-9.-]/g, '_').slice(0, 60)}-${hash.slice(0, 16)}.jsonl`,
  );
}
