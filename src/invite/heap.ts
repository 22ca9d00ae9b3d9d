// A district's `invite send --file` allocates and drops a few small objects per row for minutes (requests,
// answers, journal and claim lines) while it keeps little (~30 MB at 20,000 rows). Left to its defaults V8
// grows the heap with that allocation rate, not with what is kept: peak RSS rose with the row count
// (test/bench/district.js --only send). Allowed to grow only 10% past what survived its last collection, the
// old generation stays near what the run holds. V8 reads the flag as it goes; should a Node version refuse
// it, nothing breaks but the figures. (Reads tune the heap the same way: oneroster/memory.ts.)
export async function keepHeapNearLive(debug: (line: string) => void): Promise<void> {
  try {
    const v8 = await import('node:v8');
    v8.setFlagsFromString('--heap-growing-percent=10');
  } catch (error) {
    debug(`could not tune the heap for a long send: ${(error as Error).message}`);
  }
}
