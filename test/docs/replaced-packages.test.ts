// docs/development.md names every package of the original design that roster replaced, each with its reason:
// the count and the list stay true to package.json.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const development = readFileSync(join(ROOT, 'docs', 'development.md'), 'utf8');
const { dependencies } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
};
/** The original design's package and what replaced it. */
const REPLACED = [
  ['keytar', '@napi-rs/keyring'],
  ['cli-table3', 'string-width'],
  ['got', 'undici'],
] as const;

describe("development.md's replaced packages", () => {
  const paragraph =
    development.split('\n\n').find((p) => p.includes('packages of the original design')) ?? '';

  it('counts and names each, with what replaced it', () => {
    expect(paragraph).toMatch(/^Three packages of the original design are replaced/);
    for (const [old, replacement] of REPLACED) {
      expect(paragraph).toMatch(new RegExp(`\\b${old}\\b`));
      expect(paragraph).toContain(replacement);
    }
  });

  it('none of them is a dependency any more', () => {
    for (const [old] of REPLACED) expect(dependencies).not.toHaveProperty(old);
  });
});
