// Every secret roster handles (client secrets, access tokens, Basic credentials) is registered here the
// moment it is known, and every line written to stderr or a debug trace passes through `redact`.
// Redacting by value, not by field name, also catches a secret a server echoes back in an error, in
// whatever encoding roster sent it or the server chose: raw, percent-encoded (any characters, either hex
// case, a space as + or %20: form and URL encoding), or escaped inside JSON (\/, \u002B); and when the
// text was cut short inside it, its beginning.

const MIN_LENGTH = 4; // shorter values would redact ordinary words

export class Redactor {
  private readonly patterns = new Map<string, RegExp | undefined>();

  /** Registers a secret; its pattern is built when text is first redacted (most runs never write any). */
  add(secret: string | undefined): void {
    if (!secret || secret.length < MIN_LENGTH || this.patterns.has(secret)) return;
    this.patterns.set(secret, undefined);
  }

  redact(text: string): string {
    let out = text;
    for (const [secret, pattern] of this.patterns) {
      const built = pattern ?? secretPattern(secret);
      this.patterns.set(secret, built);
      out = out.replace(built, '[redacted]');
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

/** The secret in any encoding, or its beginning where the text was cut short. */
function secretPattern(secret: string): RegExp {
  const chars = [...secret].map(anyEncoding);
  // A message or trace cut short (at "…" or the end of the text) may end inside the secret: its
  // beginning is redacted too, from MIN_LENGTH characters on.
  let rest = '';
  for (let i = chars.length - 1; i >= MIN_LENGTH; i--) rest = `(?:${chars[i]}${rest})?`;
  const cut = `${chars.slice(0, MIN_LENGTH).join('')}${rest}(?=…|$)`;
  return new RegExp(`${chars.join('')}|${cut}`, 'g');
}

/** A pattern for one character of a secret: itself or any encoding of it in transit or in JSON. */
function anyEncoding(char: string): string {
  const forms = [char.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&')];
  forms.push([...Buffer.from(char)].map((byte) => `%${hex(byte, 2)}`).join(''));
  if (char === ' ') forms.push('\\+');
  if (char === '/' || char === '"' || char === '\\') forms.push(`\\\\${forms[0]}`);
  forms.push(
    char
      .split('')
      .map((unit) => `\\\\u${hex(unit.charCodeAt(0), 4)}`)
      .join(''),
  );
  return `(?:${forms.join('|')})`;
}

/** Hexadecimal digits matching either case, as percent-encoding and JSON escapes allow. */
const hex = (n: number, width: number) =>
  n
    .toString(16)
    .padStart(width, '0')
    .replace(/[a-f]/g, (d) => `[${d}${d.toUpperCase()}]`);

/**
 * An ordinary word after "Bearer"/"Basic" in a server's message ("HTTP Basic is accepted…", "send a Bearer
 * token") or a challenge's auth-param (`Bearer error="invalid_token"`), not a credential: left readable.
 */
function isPlainWord(value: string, next: string): boolean {
  return /^[A-Za-z][a-z]{0,15}$/.test(value) || (/^[a-z]+=$/.test(value) && next === '"');
}
