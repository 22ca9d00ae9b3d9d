// A clock for measuring time spans: the wall clock (Date.now) may be set back, or jump, while roster runs.

/** Milliseconds of a clock that never goes back. */
export const monotonicMs = (): number => Number(process.hrtime.bigint() / 1_000_000n);
