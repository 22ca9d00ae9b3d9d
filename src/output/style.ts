// Colour, decided once per run: off for NO_COLOR, --no-color and anything that is not a terminal.
import { Chalk, type ChalkInstance } from 'chalk';

export function colours(enabled: boolean): ChalkInstance {
  return new Chalk({ level: enabled ? 1 : 0 });
}
