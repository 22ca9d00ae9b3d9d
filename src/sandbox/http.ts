// The socket side of the sandbox: reading a request target and body, writing a SandboxResponse, and
// cutting a connection mid-response on purpose.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isIPv4, isIPv6 } from 'node:net';
import type { SandboxResponse } from './types.js';

/** Bigger bodies are refused with 413: no legitimate call comes near it. */
export const MAX_BODY_BYTES = 1024 * 1024;

export class BodyTooLarge extends Error {}

export function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.pause();
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Path and raw query of a request target, exactly as sent (origin-form, or absolute-form via a proxy). */
export function splitTarget(url: string | undefined): { path: string; rawQuery: string } {
  let target = url ?? '/';
  if (!target.startsWith('/')) {
    try {
      const parsed = new URL(target);
      target = parsed.pathname + parsed.search;
    } catch {
      target = '/';
    }
  }
  const q = target.indexOf('?');
  return q < 0 ? { path: target, rawQuery: '' } : { path: target.slice(0, q), rawQuery: target.slice(q + 1) };
}

/** Loopback only: the sandbox has public demo secrets and must never be reachable from the network. */
export function isLoopbackHost(host: string): boolean {
  if (host.toLowerCase() === 'localhost') return true;
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  if (isIPv4(bare)) return bare.split('.')[0] === '127';
  if (isIPv6(bare)) {
    // The URL parser compresses every spelling of ::1 (and ::ffff:127.x mapped addresses) for us.
    const normal = new URL(`http://[${bare}]/`).hostname;
    return normal === '[::1]' || /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(normal);
  }
  return false;
}

function encode(response: SandboxResponse): { bytes: Buffer; headers: Record<string, string> } {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers ?? {})) headers[name.toLowerCase()] = value;
  const body = response.body;
  let bytes: Buffer;
  let type: string | undefined;
  if (body === undefined) bytes = Buffer.alloc(0);
  else if (Buffer.isBuffer(body)) [bytes, type] = [body, 'application/octet-stream'];
  else if (typeof body === 'string') [bytes, type] = [Buffer.from(body, 'utf8'), 'text/plain; charset=utf-8'];
  else [bytes, type] = [Buffer.from(JSON.stringify(body), 'utf8'), 'application/json; charset=utf-8'];
  if (type !== undefined && headers['content-type'] === undefined) headers['content-type'] = type;
  headers['content-length'] = String(bytes.length);
  return { bytes, headers };
}

export function sendResponse(res: ServerResponse, response: SandboxResponse): void {
  const { bytes, headers } = encode(response);
  res.writeHead(response.status, headers);
  res.end(bytes);
}

/**
 * Sends the status line, the headers (announcing the full length) and the first half of the body, then
 * destroys the socket: the client sees a connection reset mid-response after the server did the work.
 */
export function sendTruncated(res: ServerResponse, response: SandboxResponse): void {
  const { bytes, headers } = encode(response);
  res.writeHead(response.status, headers);
  const part = bytes.subarray(0, Math.floor(bytes.length / 2));
  if (part.length === 0) {
    // Nothing to cut in two: send the headers, then close before the (empty) message is complete.
    res.flushHeaders();
    res.socket?.end();
    return;
  }
  res.write(part, () => res.socket?.destroy());
}
