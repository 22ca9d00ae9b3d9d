// How roster's long runs tune V8's heap. Paged reads (`roster roster … --all`, `roster roster export`) and a
// district's `invite send --file` allocate and drop small objects for minutes while they keep little. Left to
// its defaults V8 grows the heap with that allocation rate, not with what is kept: peak RSS near 200 MB over
// 200,000 students on Node 20 and over 300 MB on Node 24 (against ~15 MB live), and rising with the row count
// of a send. Allowed to grow only 10% past what survived its last collection, the old generation stays near
// what the run holds (keepHeapNearLive). Reads also watch a budget (favourMemory): optimize_for_size holds
// the peak near 100–130 MB but costs ~30% more CPU (it keeps the young generation so small that every page's
// records are promoted and compacted again), so it is turned on only should the process pass its budget
// anyway (Node 24 does). `invite plan` keeps more, and has a policy of its own (PLAN_HEAP). V8 reads both
// flags as it goes; should a Node version refuse them, nothing breaks but the figures
// (test/bench/district.js).
import type * as V8 from 'node:v8';

const MB = 1024 * 1024;
const WATCH_MS = 10;

/** How far the heap grows past what survived its last collection, and the RSS past which it favours size. */
export interface HeapPolicy {
  growPercent: number;
  budget: number;
}

/** Paged reads: they keep little, so the heap stays near it. */
export const READ_HEAP: HeapPolicy = { growPercent: 10, budget: 130 * MB };
/**
 * `invite plan`: a district's plan keeps ~55 MB through its read and ~70 MB at the peak of its synchronous
 * phase (src/campaign/planner.ts), where growth of 10% past that means a full collection every few MB. A
 * district of 50,000 students on Node 20 (test/bench/district.js --only plan): 60% takes ~1.8 s (2.2 s of
 * CPU) and 215–245 MB; 40% ~1.9 s and 215–255 MB; 80% ~1.7 s but up to 265 MB; V8's own growth ~1.55 s but
 * 270–305 MB; READ_HEAP ~3.4 s (4.5 s of CPU) and 180–190 MB. Measured again once the planner allocated
 * less (CPU of the process, 2 shared cores, 17 runs each): 60% 1.7–2.0 s of CPU and 201–234 MB; 80% within
 * the noise of it (199–235 MB); 100% ~0.1 s less CPU but up to 238 MB. 60% stays: the peak is the goal with
 * the least room. The budget is the net for a Node whose young generation is larger (Node 24).
 */
export const PLAN_HEAP: HeapPolicy = { growPercent: 60, budget: 240 * MB };

let tuned = false;

/** The heap grows only `percent` past what survived its last collection, from now on. */
export async function keepHeapNearLive(
  debug: (line: string) => void,
  percent = READ_HEAP.growPercent,
): Promise<typeof V8 | undefined> {
  try {
    const v8 = await import('node:v8');
    v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
    debug(`heap: grows at most ${percent}% past what survived its last collection`);
    return v8;
  } catch (error) {
    debug(`could not tune the heap for a long run: ${(error as Error).message}`);
    return undefined;
  }
}

/**
 * keepHeapNearLive, and a young generation that never grows: V8 doubles it up to 32 MB (Node 20 and 22) or
 * 128 MB (Node 24) while a send allocates, and the rows and outcomes in flight there live just long enough
 * to keep it growing. Its maximum is fixed at start-up, but its growth factor is read as it goes: at 1, it
 * stays the 2 MB it starts at (the file is read in one synchronous pass, so a cap checked on a timer would
 * come too late). The same CPU (30,000 rows: 18.1 s against 18.3), 30 MB less peak RSS.
 */
export async function keepHeapSmall(debug: (line: string) => void): Promise<void> {
  const v8 = await keepHeapNearLive(debug);
  try {
    v8?.setFlagsFromString('--semi-space-growth-factor=1');
  } catch (error) {
    debug(`could not keep the young generation small: ${(error as Error).message}`);
  }
}

/** keepHeapNearLive, and optimize_for_size for the rest of the run once RSS passes the policy's budget. */
export async function favourMemory(debug: (line: string) => void, policy = READ_HEAP): Promise<void> {
  if (tuned) return;
  tuned = true;
  const v8 = await keepHeapNearLive(debug, policy.growPercent);
  if (!v8) return;
  const watch = setInterval(() => {
    if (process.memoryUsage.rss() <= policy.budget) return;
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
