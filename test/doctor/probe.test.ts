// The connect probe: what it says about a TLS certificate it cannot trust, and about loopback http.
import type { Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { probe } from '../../src/doctor/probe.js';
import { httpsServer, selfSignedCertificate } from './tls-server.js';

const hasOpenssl = selfSignedCertificate('IP:127.0.0.1') !== undefined;
let server: Server | undefined;
// Closed with its connections, and waited for: nothing of a test outlives it.
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

describe.skipIf(!hasOpenssl)('probe over https', () => {
  it('fails a self-signed certificate and says so', async () => {
    const tls = selfSignedCertificate('IP:127.0.0.1');
    if (!tls) throw new Error('openssl failed');
    const started = await httpsServer(tls);
    server = started.server;
    await expect(probe(started.url, 2000, Date.now())).rejects.toThrow(
      /TLS certificate of 127\.0\.0\.1:\d+ is not valid: it is self-signed \(DEPTH_ZERO_SELF_SIGNED_CERT\)/,
    );
  });

  it('fails a certificate for another name, naming the names it covers', async () => {
    const tls = selfSignedCertificate('DNS:api.other.example');
    if (!tls) throw new Error('openssl failed');
    const started = await httpsServer(tls);
    server = started.server;
    await expect(probe(started.url, 2000, Date.now())).rejects.toThrow(
      /not valid: it is for DNS:api\.other\.example, not 127\.0\.0\.1/,
    );
  });
});

describe('probe over http', () => {
  it('says a loopback http URL is for the sandbox only', async () => {
    const plain = (await import('node:http')).createServer((_req, res) => res.end());
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    const port = (plain.address() as AddressInfo).port;
    try {
      const result = await probe(`http://127.0.0.1:${port}/v1`, 2000, Date.now());
      expect(result.message).toBe(
        `127.0.0.1:${port} accepts connections (plain HTTP to a loopback address: fine for the sandbox, never for production)`,
      );
    } finally {
      plain.closeAllConnections();
      await new Promise((resolve) => plain.close(resolve));
    }
  });

  it('gives up within the timeout when nothing answers the handshake', async () => {
    // A TCP server that accepts and never speaks TLS: the handshake hangs.
    const accepted: Socket[] = [];
    const silent = (await import('node:net')).createServer((socket) => accepted.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as AddressInfo).port;
    // The server never speaks, so only the timeout can end the probe (without it the test would time out);
    // the error names it, and the probe waited it out (a lower bound: a busy machine only makes it later).
    const started = Date.now();
    try {
      await expect(probe(`https://127.0.0.1:${port}/v1`, 300, Date.now())).rejects.toThrow(
        `No connection to 127.0.0.1:${port} within 0.3 s.`,
      );
      expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    } finally {
      for (const socket of accepted) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
