// The bundle-time stand-ins of src/stubs/ (esbuild.config.mjs) replace parts of got's and commander's
// dependency tree that roster never runs. Each one is only right while the code it replaces is used the
// way it was when measured: these tests read the installed got, commander and @sindresorhus/is and fail
// when an upgrade imports, calls or constructs something the stand-in does not provide.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as cacheStub from '../../src/stubs/cacheable-request.js';
import http2Stub from '../../src/stubs/http2-wrapper.js';
import { LazyListFormat } from '../../src/stubs/lazy-list-format.js';
import { randomUUID } from '../../src/stubs/request-id.js';

const root = join(import.meta.dirname, '..', '..');
const modules = join(root, 'node_modules');
const source = (path: string) => readFileSync(join(modules, path), 'utf8');
/** Every `name.member` in a source text, comments left out. */
const membersOf = (text: string, name: string) => {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  return [...new Set([...code.matchAll(new RegExp(`\\b${name}\\.(\\w+)`, 'g'))].map((m) => m[1]))].sort();
};
/** got's own modules, where the stubbed imports live. */
const gotSources = () => {
  const dir = join(modules, 'got', 'dist', 'source');
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.js'))
    .map((file) => ({ file, text: readFileSync(join(dir, file), 'utf8') }));
};
/** The got modules that import `specifier`, with the import clause of each. */
const importsOf = (specifier: string) =>
  gotSources().flatMap(({ file, text }) =>
    [...text.matchAll(new RegExp(`import ([^;]+?) from '${specifier}';`, 'g'))].map((m) => ({
      file,
      clause: (m[1] ?? '').replace(/\s+/g, ' ').trim(),
      text,
    })),
  );

describe('stand-ins still match what they replace', () => {
  it('http2-wrapper: got imports its default export and uses only members the stand-in has', () => {
    const imports = importsOf('http2-wrapper');
    expect(imports.map(({ file, clause }) => [file, clause])).toEqual([['core/options.js', 'http2wrapper']]);
    const used = membersOf(imports[0]?.text ?? '', 'http2wrapper');
    expect(used).toEqual(['auto', 'globalAgent']);
    for (const member of used) expect(Object.keys(http2Stub)).toContain(member);
    // The real module has the same members (the stand-in mirrors its shape).
    const real = createRequire(join(modules, 'got', 'package.json'))('http2-wrapper');
    for (const member of Object.keys(http2Stub)) expect(real).toHaveProperty(member);
    // got reaches them only for its `http2` option, which roster never sets.
    expect(imports[0]?.text).toMatch(
      /if \(this\._internals\.http2\) \{[\s\S]{0,400}?return http2wrapper\.auto;/,
    );
  });

  it('Intl.ListFormat: got’s @sindresorhus/is builds its formatters as it loads and only calls format()', () => {
    const isDir = existsSync(join(modules, 'got', 'node_modules', '@sindresorhus', 'is'))
      ? join('got', 'node_modules', '@sindresorhus', 'is')
      : join('@sindresorhus', 'is');
    const text = source(join(isDir, 'distribution', 'index.js'));
    const formatters = [...text.matchAll(/const (\w+) = new Intl\.ListFormat\(/g)].map((m) => m[1] ?? '');
    expect(formatters).toEqual(['andFormatter', 'orFormatter']);
    for (const name of formatters) expect(membersOf(text, name)).toEqual(['format']);
    // In the build, every Intl.ListFormat is the lazy one, whose only method is format().
    const built = readdirSync(join(root, 'dist'), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.js'))
      .map((file) => readFileSync(join(root, 'dist', file), 'utf8'))
      .join('\n');
    expect(built.match(/Intl\.ListFormat/g)).toEqual(['Intl.ListFormat']);
    expect(built).toContain('globalThis.Intl.ListFormat');
    const list = new LazyListFormat('en', { style: 'long', type: 'disjunction' });
    expect(list.format(['a', 'b', 'c'])).toBe('a, b, or c');
  });

  it('request id: got takes only randomUUID from node:crypto, in the module the build redirects', () => {
    const imports = importsOf('node:crypto');
    expect(imports.map(({ file, clause }) => [file, clause])).toEqual([
      ['core/diagnostics-channel.js', '{ randomUUID }'],
    ]);
    expect(randomUUID()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    // Each request its own id.
    expect(new Set(Array.from({ length: 1000 }, randomUUID)).size).toBe(1000);
  });
  it('cacheable-request: got imports its default and CacheError, and builds it only for its `cache` option', () => {
    const imports = importsOf('cacheable-request');
    expect(imports.map(({ file, clause }) => [file, clause])).toEqual([
      ['core/index.js', 'CacheableRequest, { CacheError as CacheableCacheError, }'],
    ]);
    expect(Object.keys(cacheStub).sort()).toEqual(['CacheError', 'default']);
    expect(imports[0]?.text).toContain(
      'const function_ = options.cache ? this._createCacheableRequest : request;',
    );
  });
});
