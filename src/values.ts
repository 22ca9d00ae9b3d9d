// Values the user typed: echoed safely in one line of an error, and whole numbers read from flags.
import { UsageError } from './errors.js';
import { showControls } from './output/safe-text.js';

/** A user-supplied value, safe to echo in one line of an error message: controls shown as \n, \u001b… */
export function printable(value: string, max = 80): string {
  return showControls(value.length > max ? `${value.slice(0, max)}…` : value);
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
