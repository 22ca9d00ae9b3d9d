// Long paged reads (`roster roster … --all`, `roster roster export`) allocate and drop a page of records
// every few milliseconds. Left to its defaults V8 grows the old generation with the allocation rate (peak
// RSS near 200 MB over 200,000 students, against ~15 MB live). optimize_for_size held the peak near
// 100 MB but cost ~30% more client time: it keeps the young generation so small that every page's records
// are promoted and the old generation is compacted again and again (test/bench/district.js). Instead the
// old generation may grow only 10% past what survived its last collection: the young generation keeps
// V8's sizes and the peak stays flat, near 145 MB whatever the district's size (Node 20). V8 reads the
// flag as it goes, so setting it now takes effect; should a Node version refuse it, nothing breaks but the
// figure.
export async function favourMemory(debug: (line: string) => void): Promise<void> {
  try {
    (await import('node:v8')).setFlagsFromString('--heap-growing-percent=10');
  } catch (error) {
    debug(`could not tune the heap for a long read: ${(error as Error).message}`);
  }
}
