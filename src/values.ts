// Values the user typed: echoed safely in one line of an error, ids checked for hidden characters, and
// whole numbers read from flags.
import { UsageError } from './errors.js';
import { isPrintableAscii, lazyPattern, showControls } from './output/safe-text.js';

/** A user-supplied value, safe to echo in one line of an error message: controls shown as \n, \u001b… */
export function printable(value: string, max = 80): string {
  return showControls(value.length > max ? `${value.slice(0, max)}…` : value);
}

/**
 * What no id or e-mail address holds: controls (C0, DEL, C1), format characters (bidi controls, zero-width
 * spaces and joiners, BOM, soft hyphen, tags), line and paragraph separators, and the other
 * default-ignorable code points (variation selectors, Hangul fillers). All are invisible or steer text:
 * "sch-1" and "sch-1\u200b" look the same, would be two schools to the server and would dodge
 * duplicate detection.
 */
const HIDDEN = lazyPattern('[\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}\\p{Default_Ignorable_Code_Point}]', 'u');
const CONTROL = lazyPattern('\\p{Cc}', 'u');

/**
 * The first hidden character of a typed id, described for a message ("a control character (U+000A at
 * character 12)", "an invisible character (U+200B at character 4)"), or undefined when there is none.
 */
export function hiddenCharacter(value: string): string | undefined {
  // Printable ASCII (nearly every id) holds none: no need to build the Unicode-property pattern.
  if (isPrintableAscii(value)) return undefined;
  const found = HIDDEN().exec(value);
  if (!found) return undefined;
  const [char] = found;
  const code = (char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0');
  const kind = CONTROL().test(char) ? 'a control character' : 'an invisible character';
  return `${kind} (U+${code} at character ${[...value.slice(0, found.index)].length + 1})`;
}

/** A whole number within bounds from a flag; undefined when the flag was not given. */
export function parseCount(flag: string, text: string, min: number, max: number): number;
export function parseCount(
  flag: string,
  text: string | undefined,
  min: number,
  max: number,
): number | undefined;
export function parseCount(
  flag: string,
  text: string | undefined,
  min: number,
  max: number,
): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < min || n > max) {
    throw new UsageError(
      `Invalid ${flag} "${printable(text, 20)}": give a whole number from ${min} to ${max}.`,
    );
  }
  return n;
}

/**
 * A plausible id: letters, digits, ".", "_", "-" and ":", starting with a letter or digit, 128 characters at
 * most, as the OneRoster sourcedIds met in the field are (GUIDs, `org-sch-1`, `ORG_1`). The one definition:
 * a school value that cannot be checked against the district's list is sent as given only when it is one
 * (a name such as "Birch Elementary School" never is), and completion offers only such words (a shell
 * re-reads what it inserts, and none of these characters means anything to bash, zsh, fish or PowerShell).
 */
const PLAUSIBLE_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

export const isPlausibleId = (value: string): boolean => PLAUSIBLE_ID.test(value);

/** What isPlausibleId accepts, in words for a message. */
export const PLAUSIBLE_ID_TEXT =
  'letters, digits, ".", "_", "-" and ":", starting with a letter or digit, no spaces';
