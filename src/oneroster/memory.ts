// Long paged reads (`roster roster … --all`, `roster roster export`) allocate and drop a page of records
// every few milliseconds. Left to its defaults V8 grows the heap to match the allocation rate (peak RSS
// near 170 MB over 200,000 students, against ~10 MB live); optimize_for_size makes it collect sooner
// (peak near 90 MB), at the price of ~25% more client time (test/bench/export.js). V8 reads this flag
// as it goes, so setting it now takes effect; should a Node version refuse, nothing breaks but the figure.
export async function favourMemory(debug: (line: string) => void): Promise<void> {
  try {
    (await import('node:v8')).setFlagsFromString('--optimize-for-size');
  } catch (error) {
    debug(`could not tune the heap for a long read: ${(error as Error).message}`);
  }
}
