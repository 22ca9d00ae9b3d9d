// OneRoster 1.1 / 1.2 rostering endpoints of the sandbox. (Being written: see the OneRoster issue.)
import type { ResourceRoute } from '../types.js';

export interface OneRosterSandboxOptions {
  /** Number of students in the seeded district (default about 1,200; up to 200,000). */
  students?: number;
  /** Silently clamp `limit` to this many rows, as some vendors do. */
  pageCap?: number;
  /** How the `Link` header is written: `<url>; rel="next"` (angle), `url; rel="next"` (bare) or not at all. */
  link?: 'angle' | 'bare' | 'none';
  /** Seed of the deterministic data. */
  seed?: number;
}

export function createOneRosterRoute(_options: OneRosterSandboxOptions = {}): ResourceRoute {
  return () => undefined;
}
