// An answer's body as it arrives: decompressed when the server compressed it, and never more than a set
// number of bytes read, as sent or as decompressed (a gzip bomb, an endless body).
import type { Transform } from 'node:stream';
import zlib from 'node:zlib';

/** An answer larger than the limit; reading stopped there. */
export class BodyTooLargeError extends Error {
  readonly code = 'ERR_BODY_TOO_LARGE';
  constructor(readonly limit: number) {
    super(`the answer is larger than ${limit} bytes`);
  }
}

/** Statuses whose answer has no body, whatever its Content-Encoding says. */
const NO_BODY = new Set([204, 205, 304]);

export interface BodyEnds {
  /** The whole body, as text. */
  done(body: string): void;
  /** Too large, or not decompressible. */
  failed(error: Error): void;
}

export class AnswerBody {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private raw = 0;
  private decoder: Transform | undefined;
  private started = false;
  private readonly encoding: string;

  constructor(
    status: number,
    contentEncoding: string | string[] | undefined,
    private readonly limit: number,
    private readonly ends: BodyEnds,
  ) {
    this.encoding = NO_BODY.has(status)
      ? ''
      : String(contentEncoding ?? '')
          .trim()
          .toLowerCase();
  }

  /** A chunk as it came off the wire. */
  push(chunk: Buffer): void {
    this.raw += chunk.length;
    if (this.raw > this.limit) {
      this.ends.failed(new BodyTooLargeError(this.limit));
      return;
    }
    if (!this.started) {
      this.started = true;
      this.decoder = decoderFor(this.encoding, chunk);
      this.decoder?.on('data', (decoded: Buffer) => this.take(decoded));
      this.decoder?.once('end', () => this.finish());
      this.decoder?.on('error', (error: Error) => this.ends.failed(error));
    }
    if (this.decoder) this.decoder.write(chunk);
    else this.take(chunk);
  }

  /** The answer's last byte came. */
  end(): void {
    if (this.decoder) this.decoder.end();
    else this.finish();
  }

  destroy(): void {
    this.decoder?.destroy();
  }

  private take(chunk: Buffer): void {
    this.size += chunk.length;
    if (this.size > this.limit) this.ends.failed(new BodyTooLargeError(this.limit));
    else this.chunks.push(chunk);
  }

  private finish(): void {
    this.ends.done(Buffer.concat(this.chunks, this.size).toString('utf8'));
  }
}

/** A decompressor for a Content-Encoding, or undefined for identity and the unasked-for. */
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
