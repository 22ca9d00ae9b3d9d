// Bundle-time stand-in for got's `randomUUID` import from node:crypto (see esbuild.config.mjs). got gives
// every request a UUID that only diagnostics_channel subscribers see (roster has none); taking it from
// node:crypto loaded a dozen crypto modules (~3 ms) into every plain-http run. Same format, not secret.
export function randomUUID(): string {
  const hex = (digits: number) =>
    Array.from({ length: digits }, () => Math.floor(Math.random() * 16).toString(16)).join('');
  return `${hex(8)}-${hex(4)}-4${hex(3)}-${'89ab'[Math.floor(Math.random() * 4)]}${hex(3)}-${hex(12)}`;
}
