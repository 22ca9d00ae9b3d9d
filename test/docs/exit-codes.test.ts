// The README's exit-code table is the code's: regenerate it with `npm run docs` after changing src/errors.ts.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../src/errors.js';
import { errorCodeMeanings, README, withExitCodeTable } from './exit-codes.js';

describe("README's exit codes", () => {
  it('every error code has a meaning beside it in src/errors.ts', () => {
    const meanings = errorCodeMeanings();
    expect([...meanings.keys()].sort()).toEqual(Object.keys(EXIT_CODES).sort());
    expect([...meanings.values()].every((meaning) => meaning.length > 0)).toBe(true);
  });

  it('the table in README.md is the one the code generates (npm run docs writes it)', async () => {
    const readme = readFileSync(README, 'utf8');
    await expect(withExitCodeTable(readme)).toMatchFileSnapshot(README);
  });
});
