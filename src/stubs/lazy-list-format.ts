// Bundle-time stand-in for `Intl.ListFormat` (esbuild define + inject, see esbuild.config.mjs). got's
// @sindresorhus/is builds two list formatters as it loads, and the first Intl object of a process costs
// ~15 ms (ICU data) — a third of got's load time — for text that only validation errors ever use.
// The real formatter is built on first use. `globalThis.Intl` is not rewritten by the define.
type Locales = ConstructorParameters<typeof Intl.ListFormat>[0];
type Options = ConstructorParameters<typeof Intl.ListFormat>[1];

export class LazyListFormat {
  private real?: Intl.ListFormat;

  constructor(
    private readonly locales?: Locales,
    private readonly options?: Options,
  ) {}

  format(list: Iterable<string>): string {
    this.real ??= new globalThis.Intl.ListFormat(this.locales, this.options);
    return this.real.format(list);
  }
}
