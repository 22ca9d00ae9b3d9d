// The run's settings and Session (context.ts): made on first use, once per process, whoever asks; the
// flags main's preAction hook hands over win, as for every command.
import { describe, expect, it } from 'vitest';
import { lazyRunSession, memoisedSession } from '../../src/context.js';
import { main } from '../../src/main.js';
import { fakeContext } from '../helpers/context.js';

describe('the run session', () => {
  it('loads nothing until asked, then settings once and one Session for every caller', async () => {
    const { ctx } = fakeContext({ env: { ROSTER_BASE_URL: 'https://api.example/v1' } });
    let loads = 0;
    const run = memoisedSession(ctx, async () => {
      loads++;
      return ctx.settings();
    });
    expect(loads).toBe(0);
    const [a, b] = await Promise.all([run.session(), run.session()]);
    expect(a).toBe(b);
    expect(await run.settings()).toBe(a.settings);
    expect(loads).toBe(1);
  });

  it('resolves the global flags it was made with', async () => {
    const { ctx } = fakeContext();
    const run = lazyRunSession(ctx, { baseUrl: 'https://flag.example/v1', profile: 'east' });
    const settings = await run.settings();
    expect(settings.baseUrl).toBe('https://flag.example/v1');
    expect(settings.profileName).toBe('east');
    expect((await run.session()).baseUrl).toBe('https://flag.example/v1');
  });

  it("a command run through main gets its own flags' settings", async () => {
    const { ctx, stdout } = fakeContext();
    const code = await main(['--base-url', 'https://flag.example/v1', 'status', '--json'], ctx);
    expect(code).toBe(4); // no credentials: the report is printed, then exit 4
    expect(JSON.parse(stdout()).baseUrl).toBe('https://flag.example/v1');
    expect((await ctx.settings()).baseUrl).toBe('https://flag.example/v1');
  });
});
