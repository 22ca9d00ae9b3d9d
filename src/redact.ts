// Every secret roster handles (client secrets, access tokens, Basic headers) is registered here the
// moment it is known, and every line written to stderr or a debug trace passes through `redact`.
// Redacting by value, not by field name, also catches a secret a server echoes back in an error.

const MIN_LENGTH = 4; // shorter values would redact ordinary words

export class Redactor {
  private readonly values = new Set<string>();

  add(secret: string | undefined): void {
    if (!secret || secret.length < MIN_LENGTH) return;
    this.values.add(secret);
    // The same secret as it travels encoded: form/URL-encoded and inside a Basic header.
    this.values.add(encodeURIComponent(secret));
    this.values.add(new URLSearchParams({ s: secret }).toString().slice(2));
  }

  redact(text: string): string {
    let out = text;
    for (const value of this.values) {
      if (out.includes(value)) out = out.split(value).join('[redacted]');
    }
    // Whatever was not registered: any Authorization value and any token-looking JSON field.
    return out
      .replace(
        /\b(Bearer|Basic)\s+([A-Za-z0-9._~+/=-]+)/gi,
        (match, scheme: string, value: string, at: number) =>
          isPlainWord(value, out.charAt(at + match.length)) ? match : `${scheme} [redacted]`,
      )
      .replace(/("(?:access_token|client_secret|refresh_token)"\s*:\s*)"[^"]*"/g, '$1"[redacted]"')
      .replace(/\b(client_secret|access_token)=[^&\s]*/g, '$1=[redacted]');
  }
}

/**
 * An ordinary word after "Bearer"/"Basic" in a server's message ("HTTP Basic is accepted…", "send a Bearer
 * token") or a challenge's auth-param (`Bearer error="invalid_token"`), not a credential: left readable.
 */
function isPlainWord(value: string, next: string): boolean {
  return /^[A-Za-z][a-z]{0,15}$/.test(value) || (/^[a-z]+=$/.test(value) && next === '"');
}
