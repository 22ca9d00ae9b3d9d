// The next step after a certificate roster refused, shared by every request (transport.ts) and doctor's probe.
/**
 * What fixes a certificate refused: an extra certificate authority fixes only an issuer roster does not
 * know, never a certificate for another name or out of its dates (it was suggested for those too).
 */
export function certificateHint(code: string): string {
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID')
    return 'The certificate is for another host name: use the name it was issued for in the base URL, or ask for a certificate that covers this one.';
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID')
    return "Check this computer's date and time; if they are right, the server's certificate must be renewed.";
  return 'If your district uses its own certificate authority, set NODE_EXTRA_CA_CERTS to its PEM file.';
}
