import { describe, expect, it } from 'vitest';
import { startProgress } from '../../src/output/progress.js';
import { fakeContext } from '../helpers/context.js';

describe('startProgress', () => {
  it('draws nothing when stderr is not a terminal, or a terminal that reports no width', async () => {
    for (const [tty, columns] of [
      [false, 100],
      [true, 0],
      [true, undefined],
    ] as const) {
      const fake = fakeContext({ tty });
      Object.assign(fake.ctx.io.stderr, { columns });
      const progress = await startProgress(fake.ctx, 'Sending');
      progress.update('more');
      progress.stop();
      expect(fake.stderr()).toBe('');
    }
  });
});
