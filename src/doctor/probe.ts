// A short connect probe of the base URL's host: TCP for loopback http, a full TLS handshake for https
// (so the certificate can be judged). It sends no HTTP request, so it answers fast when the server is
// down, and the other checks can be skipped instead of each waiting for its own timeout.
import { isIP, type Socket, connect as tcpConnect } from 'node:net';
import { checkServerIdentity, type PeerCertificate, type TLSSocket, connect as tlsConnect } from 'node:tls';
import { certificateHint } from '../api/certificate-hint.js';
import { bareHost } from '../base-url.js';
import { RosterError } from '../errors.js';

export interface ProbeResult {
  message: string;
  details: Record<string, unknown>;
}

/** Warn (but pass) when the certificate expires sooner than this. */
const EXPIRY_WARNING_DAYS = 14;

export async function probe(baseUrl: string, timeoutMs: number, now: number): Promise<ProbeResult> {
  const url = new URL(baseUrl);
  const host = bareHost(url.hostname);
  const https = url.protocol === 'https:';
  const port = Number(url.port || (https ? 443 : 80));
  const where = `${url.hostname}:${port}`;
  const socket = await open(host, port, https, timeoutMs, where);
  try {
    if (!https) {
      return {
        message: `${where} accepts connections (plain HTTP to a loopback address: fine for the sandbox, never for production)`,
        details: { host, port, tls: false },
      };
    }
    return judgeCertificate(socket as TLSSocket, host, where, now);
  } finally {
    socket.destroy();
  }
}

function open(host: string, port: number, https: boolean, timeoutMs: number, where: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    // Judge the certificate ourselves after the handshake, to say *what* is wrong with it.
    const socket = https
      ? tlsConnect({ host, port, servername: isIP(host) ? undefined : host, rejectUnauthorized: false })
      : tcpConnect({ host, port });
    const fail = (message: string) => {
      socket.destroy();
      reject(new RosterError('network', message, 'Check the base URL and your network.'));
    };
    const timer = setTimeout(
      () => fail(`No connection to ${where} within ${timeoutMs / 1000} s.`),
      timeoutMs,
    );
    socket.once(https ? 'secureConnect' : 'connect', () => {
      clearTimeout(timer);
      resolve(socket);
    });
    // `on`, not `once`: a late error after the handshake must not become an uncaught exception.
    socket.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      fail(describeConnectError(error, where));
    });
  });
}

function describeConnectError(error: NodeJS.ErrnoException, where: string): string {
  switch (error.code) {
    case 'ECONNREFUSED':
      return `Could not connect to ${where}: connection refused (is the server running?).`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `Could not resolve ${where.replace(/:\d+$/, '')}: no such host (check the base URL and DNS).`;
    case 'ECONNRESET':
      return `${where} closed the connection during the handshake (a proxy, a firewall, or not TLS?).`;
    default:
      return `Could not connect to ${where}: ${error.message}.`;
  }
}

function judgeCertificate(socket: TLSSocket, host: string, where: string, now: number): ProbeResult {
  const cert = socket.getPeerCertificate();
  const invalid = (why: string, code = '') =>
    new RosterError(
      'network',
      `The TLS certificate of ${where} is not valid: ${why}.`,
      certificateHint(code),
    );
  if (!cert || Object.keys(cert).length === 0) throw invalid('the server sent none');
  // The name first, saying which names the certificate does cover (node's message may list none).
  if (checkServerIdentity(host, cert)) {
    const covers = cert.subjectaltname || (nameOf(cert.subject) ? `CN=${nameOf(cert.subject)}` : 'no name');
    throw invalid(`it is for ${covers}, not ${host}`, 'ERR_TLS_CERT_ALTNAME_INVALID');
  }
  if (!socket.authorized) {
    const error = socket.authorizationError as Error | string | undefined;
    const code = typeof error === 'object' ? String((error as { code?: string }).code) : String(error);
    throw invalid(describeAuthorizationError(error), code);
  }
  const validTo = Date.parse(cert.valid_to);
  const daysLeft = Math.floor((validTo - now) / 86_400_000);
  const issuer = nameOf(cert.issuer);
  const details = {
    host,
    port: socket.remotePort,
    tls: true,
    protocol: socket.getProtocol(),
    subject: nameOf(cert.subject),
    issuer,
    validTo: new Date(validTo).toISOString(),
    daysLeft,
  };
  const soon = daysLeft < EXPIRY_WARNING_DAYS ? ' — renew it soon' : '';
  return {
    message: `${socket.getProtocol() ?? 'TLS'}, certificate valid until ${details.validTo.slice(0, 10)} (${daysLeft} days${soon})${issuer ? `, issued by ${issuer}` : ''}`,
    details,
  };
}

const AUTHORIZATION_ERRORS: Record<string, string> = {
  CERT_HAS_EXPIRED: 'it has expired',
  CERT_NOT_YET_VALID: 'it is not valid yet (or this clock is wrong)',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'it is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'its chain ends in a self-signed CA that is not trusted',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'its issuer is not trusted here (a corporate proxy CA?)',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its issuer is not trusted here (incomplete chain?)',
};

function describeAuthorizationError(error: Error | string | undefined): string {
  // Node hands over a code string here, though the typings say Error.
  const code =
    typeof error === 'object'
      ? ((error as { code?: string }).code ?? error.message)
      : (error ?? 'not trusted');
  return AUTHORIZATION_ERRORS[code] ? `${AUTHORIZATION_ERRORS[code]} (${code})` : code;
}

function nameOf(name: PeerCertificate['subject'] | undefined): string | undefined {
  if (!name) return undefined;
  const pick = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);
  return pick(name.CN) ?? pick(name.O);
}
