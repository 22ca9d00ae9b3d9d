// got configured as a plain transport: no retries (api/client.ts owns them), no redirects (transport.ts
// owns those), no throwing on HTTP errors, keep-alive sockets shared by every request of a run, and a
// proxy agent per proxy when HTTPS_PROXY / HTTP_PROXY apply. Bodies are read here, as a stream, so that
// no answer costs more than a set number of bytes, as sent or as decompressed (a gzip bomb, an endless
// body): got's own decompression counts neither before buffering everything. node:https (with node:tls
// and node:crypto) loads only for an https:// URL, hpagent (which loads it) only for a proxy, and
// node:zlib only for a compressed body: the build turns imports of these into stand-ins that load the
// module on first use (esbuild.config.mjs).
import type { IncomingHttpHeaders } from 'node:http';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { Transform } from 'node:stream';
import zlib from 'node:zlib';
import got, { type Agents, type Got, type OptionsInit } from 'got';

type StreamOptions = Omit<OptionsInit, 'isStream'>;

import { proxyFor } from './proxy.js';

type Env = Readonly<Record<string, string | undefined>>;

const AGENT_OPTIONS = { keepAlive: true, maxSockets: 16, keepAliveMsecs: 10_000 };

export interface GotClient {
  got: Got;
  /** Agents for a target URL: direct, or through the proxy the environment names for it. */
  agentsFor(url: URL): Promise<{ agents: Agents; proxy?: string }>;
}

export function createGotClient(timeoutMs: number, env: Env): GotClient {
  // got picks the agent of the URL's protocol: an http:// URL needs no https agent.
  const plain: Agents = { http: new HttpAgent(AGENT_OPTIONS) };
  let direct: Agents | undefined;
  const viaProxy = new Map<string, Agents>();
  return {
    got: got.extend({
      timeout: { request: timeoutMs },
      retry: { limit: 0 },
      followRedirect: false,
      throwHttpErrors: false,
      decompress: false, // readBody decompresses, counting
      headers: { 'accept-encoding': 'gzip, deflate, br' },
    }),
    async agentsFor(url) {
      const proxy = proxyFor(url, env);
      if (!proxy) {
        if (url.protocol !== 'https:') return { agents: direct ?? plain };
        direct ??= { http: plain.http, https: new HttpsAgent(AGENT_OPTIONS) };
        return { agents: direct };
      }
      let agents = viaProxy.get(proxy);
      if (!agents) {
        const { HttpProxyAgent, HttpsProxyAgent } = await import('hpagent');
        agents = viaProxy.get(proxy) ?? {
          http: new HttpProxyAgent({ ...AGENT_OPTIONS, proxy }),
          https: new HttpsProxyAgent({ ...AGENT_OPTIONS, proxy }),
        };
        viaProxy.set(proxy, agents);
      }
      return { agents, proxy };
    },
  };
}

export interface BodyResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  url: string;
}

/** An answer larger than the limit; reading stopped there. */
export class BodyTooLargeError extends Error {
  readonly code = 'ERR_BODY_TOO_LARGE';
  constructor(readonly limit: number) {
    super(`the answer is larger than ${limit} bytes`);
  }
}

/** A failure after the answer began: the server certainly received the request. */
export interface AnsweredError extends Error {
  answered?: boolean;
}

const NO_BODY = new Set([204, 205, 304]);

/**
 * One request with its whole answer as text, reading at most `limit` bytes as sent and as decompressed:
 * past either, or when Content-Length announces more, the connection is destroyed and the promise
 * rejects with a BodyTooLargeError. Errors after the answer began carry `answered`.
 */
export function fetchBody(
  client: Got,
  url: string,
  options: StreamOptions,
  limit: number,
): Promise<BodyResponse> {
  return new Promise((resolve, reject) => {
    const request = client.stream(url, options);
    let decoder: Transform | undefined;
    let settled = false;
    const fail = (error: AnsweredError, answered: boolean) => {
      if (settled) return;
      settled = true;
      request.destroy();
      decoder?.destroy();
      if (answered) error.answered = true;
      reject(error);
    };
    request.on('error', (error) => fail(error, false));
    request.once(
      'response',
      (response: { statusCode: number; headers: IncomingHttpHeaders; url: string }) => {
        const { statusCode: status, headers } = response;
        if (Number(headers['content-length']) > limit) return fail(new BodyTooLargeError(limit), true);
        const chunks: Buffer[] = [];
        let size = 0;
        let raw = 0;
        const take = (chunk: Buffer) => {
          if (settled) return;
          size += chunk.length;
          if (size > limit) return fail(new BodyTooLargeError(limit), true);
          chunks.push(chunk);
        };
        const finish = () => {
          if (settled) return;
          settled = true;
          resolve({ status, headers, url: response.url, body: Buffer.concat(chunks, size).toString('utf8') });
        };
        const encoding = NO_BODY.has(status)
          ? ''
          : String(headers['content-encoding'] ?? '')
              .trim()
              .toLowerCase();
        request.on('data', (chunk: Buffer) => {
          if (settled) return;
          raw += chunk.length;
          if (raw > limit) return fail(new BodyTooLargeError(limit), true);
          if (!decoder) {
            decoder = decoderFor(encoding, chunk);
            if (!decoder) return take(chunk);
            decoder.on('data', take);
            decoder.once('end', finish);
            decoder.on('error', (error) => fail(error, true));
          }
          decoder.write(chunk);
        });
        request.once('end', () => (decoder ? decoder.end() : finish()));
      },
    );
  });
}

/** A decompressor for a Content-Encoding (as got's own), or undefined for identity and the unasked-for. */
function decoderFor(encoding: string, first: Buffer): Transform | undefined {
  if (encoding === 'br') return zlib.createBrotliDecompress();
  // "deflate" should be zlib-wrapped (RFC 1950: CM 8, header a multiple of 31), but some servers send it raw.
  const [cmf = 0, flg = 0] = first;
  if (encoding === 'deflate' && !((cmf & 0x0f) === 8 && ((cmf << 8) | flg) % 31 === 0)) {
    return zlib.createInflateRaw();
  }
  if (encoding === 'gzip' || encoding === 'x-gzip' || encoding === 'deflate') return zlib.createUnzip();
  return undefined;
}
