// Bundle-time stand-in for got's HTTP/2 dependency: roster speaks HTTP/1.1 only, and loading
// http2-wrapper (and node:http2 with it) cost every networked command ~15 ms of start-up.
const unsupported = (): never => {
  throw new Error('HTTP/2 is not used by roster');
};

export default { auto: unsupported, request: unsupported, get: unsupported, globalAgent: undefined };
