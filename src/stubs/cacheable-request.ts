// Bundle-time stand-in for got's HTTP cache dependency: roster never sets got's `cache` option, and the
// real module (with keyv and http-cache-semantics) was a third of got's load time.
export class CacheError extends Error {}

export default class CacheableRequest {
  constructor() {
    throw new Error('HTTP caching is not used by roster');
  }
}
