// How roster's long runs tune V8's heap. Paged reads (`roster roster … --all`, `roster roster export`, the
// audit), a district's `invite send --file` and `invite plan` allocate and drop small objects for minutes
// while they keep little. Left to its defaults V8 grows the heap with that allocation rate, not with what is
// kept: peak RSS near 200 MB over 200,000 students on Node 20 and over 300 MB on Node 24 (against ~15 MB
// live), rising with the row count of a send. Two flags hold it near what the run keeps: the old generation
// grows only a set percentage past what survived its last collection, and the young generation stays the
// 2 MB it starts at (V8 doubles it up to 32 MB on Node 20 and 22, 128 MB on Node 24, while the rows
// and records in flight there live just long enough to keep it growing).
//
// Both are set once, as the command starts and before its work, and both are read by V8 at every
// collection: Node's docs warn that flags changed after start-up may crash or do nothing, which holds for
// flags V8 reads once (the heap's maximum sizes, --optimize-for-size), not for these. An earlier build
// turned --optimize-for-size on mid-run once RSS passed a budget; the young generation kept small does better
// without it (test/bench/district.js, 200,000 students read, peak RSS before → now: Node 20 131–134 →
// 114–115 MB, Node 24 136–137 → 129–136 MB, Node 26 131–137 → 125–126 MB, CPU per record within the noise).
// Should a Node version refuse them, nothing breaks but the figures.
import type * as V8 from 'node:v8';

/** How far the old generation grows past what survived its last collection. */
export interface HeapPolicy {
  growPercent: number;
}

/** Paged reads and sends: they keep little, so the heap stays near it. */
export const READ_HEAP: HeapPolicy = { growPercent: 10 };
/**
 * `invite plan`: a district's plan keeps ~55 MB through its read and ~70 MB at the peak of its synchronous
 * phase (src/campaign/planner.ts), where growth of 10% past that means a full collection every few MB. A
 * district of 50,000 students on Node 20 (test/bench/district.js --only plan): 60% 1.7–2.0 s of CPU and
 * 201–234 MB; 80% within the noise of it; 100% ~0.1 s less CPU but up to 238 MB; READ_HEAP twice the CPU.
 */
export const PLAN_HEAP: HeapPolicy = { growPercent: 60 };

let tuned = false;

/** The heap held near what the run keeps, from now on (once per process). */
export async function keepHeapSmall(
  debug: (line: string) => void,
  policy: HeapPolicy = READ_HEAP,
): Promise<void> {
  if (tuned) return;
  tuned = true;
  let v8: typeof V8;
  try {
    v8 = await import('node:v8');
    v8.setFlagsFromString(`--heap-growing-percent=${policy.growPercent}`);
    v8.setFlagsFromString('--semi-space-growth-factor=1');
  } catch (error) {
    debug(`could not tune the heap for a long run: ${(error as Error).message}`);
    return;
  }
  debug(
    `heap: grows at most ${policy.growPercent}% past what survived its last collection; the young generation stays small`,
  );
}
