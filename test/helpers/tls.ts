// A throw-away certificate authority and a server certificate for 127.0.0.1, made with openssl, for
// tests of HTTPS, NODE_EXTRA_CA_CERTS and proxies.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './context.js';

export interface TestPki {
  caFile: string;
  key: string;
  cert: string;
}

/** `names`: the server certificate's subjectAltName (another host's, for a name that does not match). */
export function makeTestPki(names = 'IP:127.0.0.1,IP:::1,DNS:localhost'): TestPki {
  const dir = tempDir('roster-pki-');
  const at = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    at('ca.key'),
    '-out',
    at('ca.pem'),
    '-days',
    '2',
    '-subj',
    '/CN=Roster Test District CA',
  );
  openssl(
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    at('server.key'),
    '-out',
    at('server.csr'),
    '-subj',
    '/CN=127.0.0.1',
  );
  writeFileSync(at('ext.cnf'), `subjectAltName=${names}\n`);
  openssl(
    'x509',
    '-req',
    '-in',
    at('server.csr'),
    '-CA',
    at('ca.pem'),
    '-CAkey',
    at('ca.key'),
    '-CAcreateserial',
    '-out',
    at('server.pem'),
    '-days',
    '2',
    '-extfile',
    at('ext.cnf'),
  );
  return {
    caFile: at('ca.pem'),
    key: readFileSync(at('server.key'), 'utf8'),
    cert: readFileSync(at('server.pem'), 'utf8'),
  };
}
