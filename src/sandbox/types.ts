// The contract between the sandbox server (server.ts) and the route modules that plug into it
// (tokens, attendance, invitations, oneroster). Routes see parsed requests and return plain responses,
// so each can be unit-tested without a socket.
import type { IncomingHttpHeaders } from 'node:http';

export interface SandboxRequest {
  method: string;
  /** Path below the `/v1` prefix, e.g. `/ims/oneroster/v1p1/students`; never percent-decoded. */
  path: string;
  /** The raw query string without `?` (exactly as the client sent it). */
  rawQuery: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface SandboxResponse {
  status: number;
  headers?: Record<string, string>;
  /** An object is sent as JSON; a string or Buffer as is; undefined sends no body. */
  body?: unknown;
}

/** Who called a resource endpoint: resolved by the server from the bearer token. */
export interface Caller {
  clientId: string;
  label: string;
  /** Token endpoint path that issued the token, e.g. `/oauth/token`. */
  tokenEndpoint: string;
  scope?: string;
}

/** A resource route answers a request it owns, or returns undefined to let the next route try. */
export type ResourceRoute = (
  req: SandboxRequest,
  caller: Caller,
) => SandboxResponse | undefined | Promise<SandboxResponse | undefined>;
