// The doctor's message column on a terminal: wrapped by the columns each character takes, so a server's
// message in Chinese or with emoji never runs past the terminal's edge, and a long URL is split.
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { wrap } from '../../src/doctor/render.js';

describe("doctor's message wrap", () => {
  it('keeps every line within the width, by columns: wide letters count two', () => {
    const message = '学区服务器拒绝了请求 请检查客户端的权限 然后再试一次 🏫🏫🏫 invitations';
    const lines = wrap(message, 12);
    for (const line of lines) expect(stringWidth(line), line).toBeLessThanOrEqual(12);
    expect(lines.join('')).toBe(message.replace(/ /g, ''));
  });

  it('splits a word longer than the width, and keeps words whole otherwise', () => {
    expect(wrap('see https://example.org/a/very/long/path now', 10)).toEqual([
      'see https:',
      '//example.',
      'org/a/very',
      '/long/path',
      'now',
    ]);
    expect(wrap('one two three', 7)).toEqual(['one two', 'three']);
    expect(wrap('', 10)).toEqual(['']);
  });
});
