// Small deterministic PRNG: records are generated on demand from (seed, kind, index), so each record gets
// its own stream and no record needs to be stored to be reproduced.

/** 32-bit integer hash of a few integers (a murmur3-style finaliser over a running mix). */
export function hash32(...parts: number[]): number {
  let h = 0x811c9dc5;
  for (const p of parts) {
    h = Math.imul(h ^ (p >>> 0), 0x01000193);
    h ^= h >>> 15;
    h = Math.imul(h, 0x2c1b3c6d);
    h ^= h >>> 12;
    h = Math.imul(h, 0x297a2d39);
    h ^= h >>> 15;
  }
  return h >>> 0;
}

/** mulberry32: tiny, fast, good enough for test data. */
export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  /** Uniform float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** Integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  /** True with probability p. */
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    const item = items[this.int(items.length)];
    if (item === undefined) throw new Error('pick from an empty list');
    return item;
  }
}

/** A fresh stream for one record of one kind. */
export function rngFor(seed: number, kind: number, index: number): Rng {
  return new Rng(hash32(seed, kind, index));
}

/** Stream kinds (one per record kind, so streams never collide; new kinds get new numbers, keeping old data). */
export const KIND = {
  student: 1,
  teacher: 2,
  admin: 3,
  demographics: 4,
  layout: 5,
  family: 6,
  guardian: 7,
} as const;
