// Every secret roster handles (client secrets, access tokens, Basic credentials) is registered here the
// moment it is known: every line written to stderr or a debug trace passes through `redact`, and all that
// is written to stdout through `redactEchoes` (a server may echo a token into a label or a record).
// Redacting by value, not by field name, also catches a secret a server echoes back in an error, in
// whatever encoding roster sent it or the server chose: raw, percent-encoded (any characters, either hex
// case, a space as + or %20: form and URL encoding), escaped inside JSON (\/, \u002B) or a CSV cell (""); and when the
// text was cut short inside it, its beginning. Every pattern is linear in the secret's length and the
// text's: a server may send a token of any length, and echo any text.

const MIN_LENGTH = 4; // shorter values would redact ordinary words

export class Redactor {
  private readonly patterns = new Map<string, SecretPatterns | undefined>();

  /** Registers a secret; its pattern is built when text is first redacted (most runs never write any). */
  add(secret: string | undefined): void {
    if (!secret || secret.length < MIN_LENGTH || this.patterns.has(secret)) return;
    this.patterns.set(secret, undefined);
  }

  redact(text: string): string {
    let out = text;
    for (const secret of this.patterns.keys()) out = redactSecret(out, this.built(secret));
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

  /**
   * Output (stdout: records, labels, whole exports) with every registered secret redacted, in any of the
   * encodings `redact` knows; nothing else is touched, data stays exact. Cheap enough for every byte: a
   * text without the secret's first characters in any encoding (one fast scan) is returned as is, and only
   * the lines that hold them get the full treatment.
   */
  redactEchoes(text: string): string {
    if (this.patterns.size === 0) return text;
    // An encoded character needs a % or a backslash (or a + for a space): looked for once, not per secret.
    const escapes = text.includes('%') || text.includes('\\');
    let out = text;
    for (const secret of this.patterns.keys()) {
      const p = this.built(secret);
      if (!mayHold(out, p, escapes)) continue;
      let result = '';
      let from = 0; // the first character not yet copied
      p.start.lastIndex = 0;
      for (let found = p.start.exec(out); found; found = p.start.exec(out)) {
        const lineStart = Math.max(from, out.lastIndexOf('\n', found.index) + 1);
        const newline = out.indexOf('\n', found.index);
        const lineEnd = newline < 0 ? out.length : newline;
        result += out.slice(from, lineStart) + redactSecret(out.slice(lineStart, lineEnd), p);
        from = lineEnd;
        p.start.lastIndex = lineEnd;
      }
      out = result + out.slice(from);
    }
    return out;
  }

  private built(secret: string): SecretPatterns {
    const patterns = this.patterns.get(secret) ?? secretPatterns(secret);
    this.patterns.set(secret, patterns);
    return patterns;
  }
}

/**
 * Whether the text may hold the secret's beginning: raw (indexOf, the fastest scan there is), or encoded,
 * which needs `escapes` (a % or a backslash in the text) or a + for a space before the pattern is worth
 * running.
 */
function mayHold(text: string, p: SecretPatterns, escapes: boolean): boolean {
  const raw = p.chars.slice(0, MIN_LENGTH).join('');
  if (text.includes(raw)) return true;
  if (!escapes && !(raw.includes(' ') && text.includes('+'))) return false;
  p.start.lastIndex = 0;
  return p.start.test(text);
}

/** The text with every occurrence of one secret redacted (and its beginning, where the text was cut). */
function redactSecret(text: string, patterns: SecretPatterns): string {
  return text.replace(patterns.run, (run: string, _run: string, at: number, whole: string) => {
    const end = at + run.length;
    return redactRun(run, patterns, end === whole.length || whole.charAt(end) === '…');
  });
}

interface SecretPatterns {
  /** A run of the secret's characters, each in any of its encodings: where the secret may be. */
  run: RegExp;
  /**
   * The secret's first MIN_LENGTH characters, each in any of its encodings: every occurrence, and every
   * beginning `redact` would take for one cut short, starts so. No lookbehind: a fast scan.
   */
  start: RegExp;
  /** One encoded character of the secret (the longest encoding first). */
  token: RegExp;
  chars: string[];
  /** KMP failure function of chars: the longest proper border of each prefix. */
  borders: number[];
}

function secretPatterns(secret: string): SecretPatterns {
  const chars = [...secret];
  // Longest encodings first, so that %2B is one token, not "%", "2", "B".
  const token = [...new Set(chars)]
    .flatMap(encodings)
    .sort((a, b) => b.length - a.length)
    .join('|');
  const start = chars
    .slice(0, MIN_LENGTH)
    .map((char) =>
      encodings(char)
        .sort((a, b) => b.length - a.length)
        .join('|'),
    )
    .map((alternatives) => `(?:${alternatives})`)
    .join('');
  return {
    start: new RegExp(start, 'g'),
    // Starts only where a run starts (not after another such character), and the lookahead with its
    // back-reference takes the run whole, never backtracking into it: each character is read once.
    run: new RegExp(`(?<!${token})(?=((?:${token})+))\\1`, 'g'),
    token: new RegExp(token, 'gy'),
    chars,
    borders: bordersOf(chars),
  };
}

/**
 * The run with every occurrence of the secret redacted and, when the text was cut short right after the
 * run (at "…" or its end), the run's longest ending that spells the secret's beginning, from MIN_LENGTH
 * characters on. The run is read two ways, as encoded characters and as raw text (a secret may itself hold
 * "%41" or "+"), each searched with KMP: linear in the run and the secret.
 */
function redactRun(run: string, p: SecretPatterns, cut: boolean): string {
  if (run.length < MIN_LENGTH) return run;
  const decoded: string[] = [];
  const starts: number[] = [];
  // A + is a space in form encoding, where a + itself is sent as %2B: so in a run with percent escapes.
  const plusIsSpace = !p.chars.includes('+') || /%[0-9A-Fa-f]{2}/.test(run);
  p.token.lastIndex = 0;
  for (let found = p.token.exec(run); found; found = p.token.exec(run)) {
    starts.push(found.index);
    decoded.push(decodeToken(found[0], plusIsSpace));
  }
  const raw = [...run];
  const rawStarts: number[] = [];
  let at = 0;
  for (const char of raw) {
    rawStarts.push(at);
    at += char.length;
  }
  const spans = [
    ...occurrences(decoded, starts, run.length, p, cut),
    ...occurrences(raw, rawStarts, run.length, p, cut),
  ];
  if (spans.length === 0) return run;
  spans.sort((a, b) => a[0] - b[0]);
  let out = '';
  let from = 0; // the first character not yet written
  for (const [first, end] of spans) {
    if (first >= from) out += `${run.slice(from, first)}[redacted]`;
    from = Math.max(from, end);
  }
  return out + run.slice(from);
}

/** Where in the run (character offsets, end exclusive) the units spell the secret or, when cut, its beginning. */
function occurrences(
  units: string[],
  starts: number[],
  length: number,
  p: SecretPatterns,
  cut: boolean,
): [number, number][] {
  const end = (i: number) => starts[i + 1] ?? length;
  const spans: [number, number][] = [];
  let matched = 0;
  for (const [i, unit] of units.entries()) {
    while (matched > 0 && (matched === p.chars.length || p.chars[matched] !== unit)) {
      matched = p.borders[matched - 1] ?? 0;
    }
    if (p.chars[matched] === unit) matched++;
    if (matched === p.chars.length) spans.push([starts[i - matched + 1] ?? 0, end(i)]);
  }
  if (cut && matched >= MIN_LENGTH && matched < p.chars.length) {
    spans.push([starts[units.length - matched] ?? 0, length]);
  }
  return spans;
}

function bordersOf(chars: string[]): number[] {
  const borders = [0];
  let k = 0;
  for (let i = 1; i < chars.length; i++) {
    while (k > 0 && chars[i] !== chars[k]) k = borders[k - 1] ?? 0;
    if (chars[i] === chars[k]) k++;
    borders.push(k);
  }
  return borders;
}

/** The character an encoded token stands for. */
function decodeToken(token: string, plusIsSpace: boolean): string {
  if (token.startsWith('\\u')) {
    return String.fromCharCode(
      ...token
        .split('\\u')
        .slice(1)
        .map((h) => Number.parseInt(h, 16)),
    );
  }
  if (token === '""') return '"';
  if (token.length === 2 && token.startsWith('\\')) return token.charAt(1);
  if (token.startsWith('%') && token.length > 1) {
    try {
      return decodeURIComponent(token);
    } catch {
      return token;
    }
  }
  return token === '+' && plusIsSpace ? ' ' : token;
}

/** Patterns for one character of a secret: itself and its encodings in transit or in JSON. */
function encodings(char: string): string[] {
  const raw = char.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
  const forms = [raw, [...Buffer.from(char)].map((byte) => `%${hex(byte, 2)}`).join('')];
  if (char === ' ') forms.push('\\+');
  if (char === '/' || char === '"' || char === '\\') forms.push(`\\\\${raw}`);
  // A CSV cell doubles its quotes: a secret holding " is echoed as "" in --csv output.
  if (char === '"') forms.push('""');
  forms.push(
    char
      .split('')
      .map((unit) => `\\\\u${hex(unit.charCodeAt(0), 4)}`)
      .join(''),
  );
  return forms;
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
