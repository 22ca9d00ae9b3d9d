// A throwaway TLS server on loopback with a self-signed certificate, for the doctor's certificate checks.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { tempDir } from '../helpers/context.js';

/** A self-signed certificate for the given subjectAltName, made by openssl (undefined without it). */
export function selfSignedCertificate(
  altName: string,
): { key: string; cert: string; certFile: string } | undefined {
  const dir = tempDir('roster-tls-');
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '30',
        '-subj',
        '/CN=roster-test',
        '-addext',
        `subjectAltName=${altName}`,
        '-keyout',
        keyFile,
        '-out',
        certFile,
      ],
      { stdio: 'ignore' },
    );
  } catch {
    return undefined;
  }
  return { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(certFile, 'utf8'), certFile };
}

export async function httpsServer(tls: {
  key: string;
  cert: string;
}): Promise<{ server: Server; url: string }> {
  const server = createServer(tls, (_req, res) => res.end('{}'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/v1` };
}
