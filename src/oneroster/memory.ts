// Long paged reads (`roster roster … --all`, `roster roster export`) allocate and drop a page of records
// every few milliseconds. Left to its defaults V8 grows the heap with the allocation rate (peak RSS near
// 200 MB over 200,000 students on Node 20, over 300 MB on Node 24, against ~15 MB live). optimize_for_size
// holds the peak near 100–130 MB but costs ~30% more client CPU: it keeps the young generation so small
// that every page's records are promoted and compacted again (test/bench/district.js). So a read starts
// with the old generation allowed to grow only 10% past what survived its last collection, which keeps
// Node 20 near 140 MB at full speed, and a watch turns optimize_for_size on for the rest of the run should
// the process pass MEMORY_BUDGET anyway (Node 24 does). V8 reads both flags as it goes; should a Node
// version refuse them, nothing breaks but the figures.
import type * as V8 from 'node:v8';

const MEMORY_BUDGET = 130 * 1024 * 1024;
const WATCH_MS = 10;

let tuned = false;

export async function favourMemory(debug: (line: string) => void): Promise<void> {
  if (tuned) return;
  tuned = true;
  let v8: typeof V8;
  try {
    v8 = await import('node:v8');
    v8.setFlagsFromString('--heap-growing-percent=10');
  } catch (error) {
    debug(`could not tune the heap for a long read: ${(error as Error).message}`);
    return;
  }
  const watch = setInterval(() => {
    if (process.memoryUsage.rss() <= MEMORY_BUDGET) return;
    clearInterval(watch);
    try {
      v8.setFlagsFromString('--optimize-for-size');
      debug('the read passed its memory budget: the heap favours size over speed from now on');
    } catch (error) {
      debug(`could not tune the heap for a long read: ${(error as Error).message}`);
    }
  }, WATCH_MS);
  watch.unref();
}
