// The go-live checks of `roster doctor`, in the order they run. Each returns what it saw or throws:
// a RosterError is a failure (its message carries the server's own), Skipped means it could not run.

import type { CachedToken } from '../api/access-token.js';
import { attendanceStatus } from '../api/attendance.js';
import { listInvitations } from '../api/enrollment.js';
import { isRecord } from '../api/errors.js';
import { TOKEN_ENDPOINTS } from '../api/oauth.js';
import { displayProxy, proxyFor } from '../api/proxy.js';
import type { ClientAuth, OneRosterVersion, TokenEndpointName, TokenPurpose } from '../config-file.js';
import { RosterError } from '../errors.js';
import { collectionPager } from '../oneroster/collection-read.js';
import { COLLECTIONS, type Collection } from '../oneroster/collections.js';
import { type OneRosterService, serviceVia } from '../oneroster/service.js';
import { type DoctorState, Skipped } from './state.js';

export interface CheckOutcome {
  message: string;
  details?: Record<string, unknown>;
}

export interface CheckDefinition {
  id: string;
  title: string;
  /** Counted for the exit code unless --skip / --only say otherwise. */
  requiredByDefault: boolean;
  /** Talks to the server: skipped when the reachability check failed. */
  network: boolean;
  run(state: DoctorState): Promise<CheckOutcome>;
}

/** The collections the go-live commands cannot do without: invite plan reads schools (orgs) and users. */
const GO_LIVE_COLLECTIONS = ['orgs', 'users'];

/** Largest difference between our clock and the server's Date that token lifetimes tolerate. */
export const MAX_CLOCK_SKEW_MS = 60_000;
/** The connect probe never waits longer than this, whatever --timeout says. */
const PROBE_TIMEOUT_CAP_MS = 10_000;

const PURPOSE_OF: Record<TokenEndpointName, TokenPurpose> = {
  oauth: 'general',
  v1p1: 'oneroster-1.1',
  v1p2: 'oneroster-1.2',
};

const other = (method: ClientAuth): ClientAuth => (method === 'basic' ? 'post' : 'basic');

export const CHECKS: readonly CheckDefinition[] = [
  {
    id: 'config',
    title: 'Configuration complete',
    requiredByDefault: true,
    network: false,
    async run(state) {
      const { settings } = state;
      if (!settings.baseUrl) {
        // Not logged in, as for missing credentials: exit 4 like every command that needs them.
        throw new RosterError(
          'auth',
          `No base URL for profile "${settings.profileName}": run \`roster login\`, or set ROSTER_BASE_URL.`,
        );
      }
      let secretFrom: string;
      try {
        secretFrom = (await state.credentials()).source;
      } catch (error) {
        if (!settings.envToken || !(error instanceof RosterError)) throw error;
        throw new RosterError(
          'auth',
          'No client credentials: ROSTER_TOKEN is set, so the resource checks use it, but the token endpoints cannot be checked.',
        );
      }
      const clientId = settings.envCredentials?.clientId ?? settings.clientId;
      return {
        message: `profile "${settings.profileName}": ${settings.baseUrl}, client ${clientId} (secret from ${secretFrom}), client auth ${settings.clientAuth}, OneRoster ${settings.oneroster}`,
        details: {
          profile: settings.profileName,
          baseUrl: settings.baseUrl,
          clientId,
          secretFrom,
          clientAuth: settings.clientAuth,
          oneroster: settings.oneroster,
          configFile: settings.configFile,
        },
      };
    },
  },
  {
    id: 'reachable',
    title: 'Base URL reachable (TLS certificate valid)',
    requiredByDefault: true,
    network: true,
    async run(state) {
      const session = state.requireSession();
      const proxy = proxyFor(new URL(session.baseUrl), state.ctx.env);
      if (proxy) {
        // A direct probe would bypass the proxy the requests use: ask through it instead (TLS verified).
        const response = await state.transport.send({ method: 'GET', url: session.baseUrl });
        const via = displayProxy(proxy);
        const tls = session.baseUrl.startsWith('https:') ? '; the certificate is valid and trusted' : '';
        return {
          message: `reachable through proxy ${via} (HTTP ${response.status} for the base URL)${tls}`,
          details: { proxy: via, status: response.status },
        };
      }
      const { probe } = await import('./probe.js');
      const timeout = Math.min(state.settings.timeoutMs, PROBE_TIMEOUT_CAP_MS);
      return probe(session.baseUrl, timeout, state.ctx.now());
    },
  },
  ...(Object.keys(TOKEN_ENDPOINTS) as TokenEndpointName[]).map(tokenCheck),
  {
    id: 'other-auth',
    title: 'The other client-auth method (informational)',
    requiredByDefault: false,
    network: true,
    async run(state) {
      await credentialsOrSkip(state);
      const method = other(state.settings.clientAuth);
      const accepted: string[] = [];
      const refusals = new Map<string, string[]>(); // message → endpoints, so three alike read as one
      for (const name of Object.keys(TOKEN_ENDPOINTS) as TokenEndpointName[]) {
        try {
          await state.requestToken(state.tokenTarget(PURPOSE_OF[name], { endpoint: name }), method);
          accepted.push(name);
        } catch (error) {
          if (!(error instanceof RosterError)) throw error;
          const why = error.message.replace(/^The token endpoint /, '').replace(/\.$/, '');
          refusals.set(why, [...(refusals.get(why) ?? []), name]);
        }
      }
      if (refusals.size === 0) {
        return { message: `${method} works too at oauth, v1p1 and v1p2`, details: { method, accepted } };
      }
      const refused = [...refusals].map(([why, names]) => `${names.join(', ')} ${why}`).join('; ');
      throw new RosterError(
        'auth',
        `${method}: ${accepted.length > 0 ? `works at ${accepted.join(', ')}; ` : ''}${refused}`,
      );
    },
  },
  {
    id: 'clock',
    title: "Clock agrees with the server's Date (within 60 s)",
    requiredByDefault: true,
    network: true,
    async run(state) {
      if (!state.dated) {
        // No answer yet (token checks skipped): any answer of the server carries its Date.
        await state.transport.send({ method: 'GET', url: state.requireSession().baseUrl });
      }
      const dated = state.dated;
      if (!dated)
        throw new RosterError(
          'unexpected',
          'The server sent no Date header, so the clock cannot be compared.',
        );
      return judgeClock(dated.date, dated.sentAt, dated.receivedAt);
    },
  },
  {
    id: 'attendance',
    title: 'Attendance-daily status (§4.7)',
    requiredByDefault: true,
    network: true,
    async run(state) {
      await state.tokenFor('general');
      const status = await attendanceStatus(state.api);
      return { message: `success, client label "${status.clientLabel}"`, details: { ...status } };
    },
  },
  {
    id: 'invitations',
    title: 'Invitation list reachable (§4.6)',
    requiredByDefault: true,
    network: true,
    async run(state) {
      await state.tokenFor('invitations');
      // `roster invite list --per-page 1`, read and parsed by the command's own function.
      const { status, data, meta } = await listInvitations(state.api, new URLSearchParams({ perPage: '1' }));
      const total = isRecord(meta) && typeof meta.total === 'number' ? meta.total : undefined;
      return {
        message: `HTTP ${status}, ${plural(data.length, 'record')} on the first page${total === undefined ? '' : ` (meta.total ${total})`}`,
        details: { status, records: data.length, total: total ?? null },
      };
    },
  },
  oneRosterCheck('1.1'),
  oneRosterCheck('1.2'),
  {
    id: 'audit',
    title: "OneRoster data passes the go-live audit's error checks",
    requiredByDefault: true,
    network: true,
    async run(state) {
      const session = state.requireSession();
      const version = state.settings.oneroster;
      if (state.statuses.get(`oneroster-${version}`) === 'fail')
        throw new Skipped(`OneRoster ${version} cannot be read (see oneroster-${version})`);
      // `roster roster audit --check <the error checks>`: the command's own request, read and verdict, so
      // the line and the command agree; its reads stop at --max-records as every read does.
      const [
        { parseAuditFlags },
        { runAudit, fails },
        { ERROR_CHECKS },
        { notCheckedText },
        { onerosterService },
      ] = await Promise.all([
        import('../audit/request.js'),
        import('../audit/run.js'),
        import('../audit/checks.js'),
        import('../audit/audit.js'),
        import('../oneroster/service.js'),
      ]);
      // A collection go-live cannot do without (invite plan reads schools and users) fails the line; any
      // other the server does not serve is named, and the line passes: the commands work there.
      const request = parseAuditFlags(
        { check: [ERROR_CHECKS.join(',')], require: [GO_LIVE_COLLECTIONS.join(',')] },
        state.ctx.now(),
      );
      const result = await runAudit(onerosterService(session), request, {
        progress() {},
        warn: (line) => state.ctx.log.warn(line),
        debug: (line) => state.ctx.log.debug(line),
      });
      const found = result.findings.filter((f) => f.count > 0);
      const counts = Object.fromEntries(result.findings.map((f) => [f.check, f.count]));
      const read = Object.values(result.read).reduce((n, c) => n + c, 0);
      const missing = result.notChecked.filter((n) => n.required).map((n) => n.collection);
      if (missing.length > 0)
        throw new RosterError(
          'failure',
          `OneRoster ${version}: the server does not serve ${missing.join(', ')}, which invite plan reads`,
        );
      if (fails(result, request.failOn)) {
        const errors = found.reduce((n, f) => n + f.count, 0);
        throw new RosterError(
          'failure',
          `OneRoster ${version}: ${plural(errors, 'error finding')} (${found.map((f) => `${f.check} ${f.count}`).join(', ')}) in ${plural(read, 'record')} read; run \`roster roster audit\` for the records`,
        );
      }
      const ran = result.findings.map((f) => f.check);
      const warning = result.notChecked.map((n) => `; warning: ${notCheckedText(n)}`).join('');
      return {
        message: `OneRoster ${version}: no ${ran.join(', ')} in ${plural(read, 'record')} read${warning}`,
        details: {
          version,
          read: result.read,
          findings: counts,
          notChecked: result.notChecked.map((n) => ({ ...n, text: notCheckedText(n) })),
        },
      };
    },
  },
];

function tokenCheck(name: TokenEndpointName): CheckDefinition {
  const path = TOKEN_ENDPOINTS[name];
  return {
    id: `token-${name}`,
    title: `Token endpoint ${path} accepts the credentials`,
    requiredByDefault: true,
    network: true,
    async run(state) {
      await credentialsOrSkip(state);
      const target = state.tokenTarget(PURPOSE_OF[name], { endpoint: name });
      const token = await state.requestToken(target);
      return {
        message: describeToken(token, state.settings.clientAuth),
        details: tokenDetails(token, target),
      };
    },
  };
}

const STUDENTS = COLLECTIONS.find((c) => c.name === 'students') as Collection;

function oneRosterCheck(version: OneRosterVersion): CheckDefinition {
  const purpose: TokenPurpose = version === '1.1' ? 'oneroster-1.1' : 'oneroster-1.2';
  return {
    id: `oneroster-${version}`,
    title: `OneRoster ${version} students readable`,
    requiredByDefault: true,
    network: true,
    async run(state) {
      const token = await state.tokenFor(purpose);
      const service = serviceVia(state.api, state.requireSession().baseUrl, state.settings.profile, version);
      let status: number | undefined;
      const noted: OneRosterService = {
        ...service,
        send: async (path, query, what) => {
          const response = await service.send(path, query, what);
          status = response.status;
          return response;
        },
      };
      // `roster roster students --limit 1`, read and parsed by the command's own functions.
      const pager = collectionPager(noted, STUDENTS, {
        query: { limit: 1 },
        all: false,
        concurrency: 1,
        warn: (line) => state.ctx.log.warn(line),
        debug: (line) => state.ctx.log.debug(line),
      });
      let records = 0;
      for await (const page of pager.pages()) records += page.records.length;
      const total = pager.total;
      const from = state.settings.envToken
        ? 'ROSTER_TOKEN'
        : token.scope
          ? `token scope ${token.scope}`
          : undefined;
      return {
        message: `HTTP ${status}, ${plural(records, 'student')} read${total === undefined ? '' : ` (X-Total-Count ${total})`}${from ? `; ${from}` : ''}`,
        details: { status, records, total: total ?? null },
      };
    },
  };
}

async function credentialsOrSkip(state: DoctorState): Promise<void> {
  state.requireSession();
  try {
    await state.credentials();
  } catch {
    throw new Skipped('no client credentials (see config)');
  }
}

function describeToken(token: CachedToken, method: ClientAuth): string {
  return `accepted with ${method}: bearer token, expires in ${token.expiresIn} s${token.scope ? `, scope ${token.scope}` : ''}`;
}

function tokenDetails(
  token: CachedToken,
  target: { endpoint: string; scope?: string },
): Record<string, unknown> {
  return { endpoint: target.endpoint, expiresIn: token.expiresIn, scope: token.scope ?? null };
}

/**
 * Our clock against the server's Date. Date has whole seconds and the answer took a while, so compare
 * with the middle of the request and allow for both.
 */
export function judgeClock(date: string, sentAt: number, receivedAt: number): CheckOutcome {
  const server = Date.parse(date);
  if (Number.isNaN(server))
    throw new RosterError('unexpected', `The server's Date header "${date.slice(0, 60)}" is not a date.`);
  const local = (sentAt + receivedAt) / 2;
  const skewMs = server + 500 - local; // Date truncates to the second: its middle is +0.5 s
  const uncertaintyMs = 500 + (receivedAt - sentAt) / 2;
  const seconds = Math.round(Math.abs(skewMs) / 1000);
  const direction = seconds === 0 ? 'in step with' : skewMs > 0 ? 'behind' : 'ahead of';
  const message = `this clock is ${seconds === 0 ? '' : `${seconds} s `}${direction} the server's (Date: ${date})`;
  const details = {
    serverDate: date,
    skewSeconds: Math.round(-skewMs / 1000),
    uncertaintyMs: Math.round(uncertaintyMs),
  };
  if (Math.abs(skewMs) - uncertaintyMs > MAX_CLOCK_SKEW_MS) {
    throw new RosterError(
      'failure',
      `${message[0]?.toUpperCase()}${message.slice(1)}: more than ${MAX_CLOCK_SKEW_MS / 1000} s, so tokens may look expired or not yet valid. Sync the clock (NTP).`,
    );
  }
  return { message, details };
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
