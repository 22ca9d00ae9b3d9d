// Bundle-time stand-in for got's `randomUUID` import from node:crypto (see esbuild.config.mjs). got gives
// every request a UUID that only diagnostics_channel subscribers see (roster has none); taking it from
// node:crypto loaded a dozen crypto modules (~3 ms) into every plain-http run. Same format, not secret:
// a random prefix drawn once per process and a counter, since a district's run makes 80,000 of them
// (drawing 31 random digits each cost ~20 µs a request).
let prefix: string | undefined;
let count = 0;

export function randomUUID(): string {
  prefix ??= `${hex(8)}-${hex(4)}-4${hex(3)}-${'89ab'[Math.floor(Math.random() * 4)]}${hex(3)}-`;
  count = (count + 1) % 0x1_0000_0000_0000;
  return prefix + count.toString(16).padStart(12, '0');
}

const hex = (digits: number) =>
  Array.from({ length: digits }, () => Math.floor(Math.random() * 16).toString(16)).join('');
