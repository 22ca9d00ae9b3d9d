// Where a profile's OneRoster rostering service lives and how to ask it: the path prefix of the version
// (our service's default, or the profile's override for vendors that serve elsewhere) and the token
// purpose that picks the version's own token endpoint (spec §5 rule 6).
import type { ApiClient } from '../api/client.js';
import type { OneRosterVersion, Profile, TokenPurpose } from '../config-file.js';
import { UsageError } from '../errors.js';
import type { Session } from '../session.js';
import type { PageResponse, SendPage } from './pager.js';

export const DEFAULT_PREFIX: Record<OneRosterVersion, string> = {
  '1.1': '/ims/oneroster/v1p1',
  '1.2': '/ims/oneroster/v1p2',
};

/** What the read commands need from the network: tests hand in a fake. */
export interface OneRosterService {
  version: OneRosterVersion;
  baseUrl: string;
  /** Path prefix below the base URL, without a trailing slash. */
  prefix: string;
  /** The most records one read takes (--max-records); the pager's default when not given. */
  maxRecords?: number;
  send(path: string, query: string, what: string): Promise<PageResponse>;
}

export function onerosterService(session: Session): OneRosterService {
  const { settings } = session;
  return serviceVia(session.api, session.baseUrl, settings.profile, settings.oneroster, settings.maxRecords);
}

/** A version's service asked through this client (the doctor's own reports its first answer, no retries). */
export function serviceVia(
  api: ApiClient,
  baseUrl: string,
  profile: Profile,
  version: OneRosterVersion,
  maxRecords?: number,
): OneRosterService {
  const purpose: TokenPurpose = version === '1.1' ? 'oneroster-1.1' : 'oneroster-1.2';
  return {
    version,
    baseUrl,
    prefix: checkPrefix(profile.onerosterPaths?.[version] ?? DEFAULT_PREFIX[version], version),
    maxRecords,
    send: (path, query, what) => api.send({ method: 'GET', path, query, purpose, what }),
  };
}

/**
 * The prefix as reads use it, without a trailing slash. `/` and the empty prefix are one: a server mounted
 * at the base URL's own root (its reads at …/v1/students), saved and read back as "".
 */
export function checkPrefix(prefix: string, version: OneRosterVersion): string {
  if (!/^(\/[A-Za-z0-9._~!$&'()*+,;=:@%/-]*)?$/.test(prefix) || /(^|\/)\.\.?(\/|$)/.test(prefix)) {
    throw new UsageError(
      `Invalid OneRoster ${version} path prefix "${prefix.slice(0, 80)}" in the profile: use a path such as ${DEFAULT_PREFIX[version]}, or / for the base URL itself.`,
    );
  }
  return prefix.replace(/\/+$/, '');
}

/** The pager's view of the service: one GET, named for messages. */
export function pageSender(service: OneRosterService, what: string): SendPage {
  return (path, query) => service.send(path, query, what);
}
