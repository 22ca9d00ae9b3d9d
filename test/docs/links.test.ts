// Every relative link of README.md and docs/*.md points at a file that exists, and a link to a heading
// (`file.md#anchor`, `#anchor`) at a heading that exists: the docs were split into pages, and this keeps the
// split honest as pages and headings move.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const pages = [
  join(ROOT, 'README.md'),
  join(ROOT, 'CHANGELOG.md'),
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(ROOT, 'docs', name)),
];

/** The text outside fenced code blocks, where a `[…](…)` is a link. */
const prose = (markdown: string) => markdown.replace(/^```[\s\S]*?^```/gm, '');

/** GitHub's anchors for a page's headings: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const [, heading] of prose(markdown).matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = (heading ?? '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    result.add(count ? `${slug}-${count}` : slug);
  }
  return result;
}

function relativeLinks(markdown: string): string[] {
  return [...prose(markdown).matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1] ?? '')
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

describe('links in README.md and docs/', () => {
  it('there are pages and links to check', () => {
    expect(pages.length).toBeGreaterThan(5);
    expect(relativeLinks(readFileSync(pages[0] ?? '', 'utf8')).length).toBeGreaterThan(10);
  });

  for (const page of pages) {
    it(`${relative(ROOT, page)}: every relative link resolves`, () => {
      const broken: string[] = [];
      for (const link of relativeLinks(readFileSync(page, 'utf8'))) {
        const [path = '', anchor] = link.split('#');
        const target = path ? join(dirname(page), decodeURI(path)) : page;
        if (!existsSync(target)) broken.push(`${link}: no such file`);
        else if (anchor && target.endsWith('.md') && !anchors(readFileSync(target, 'utf8')).has(anchor)) {
          broken.push(`${link}: no such heading`);
        }
      }
      expect(broken).toEqual([]);
    });
  }
});
