// Which sourcedIds an export has already written, in a few bytes per record: an open-addressing set of
// 53-bit hashes in a Float64Array (about 16 bytes per id at most, against ~60 for a Set of strings).
// It reports repeats, which only a server paging inconsistently produces. A false "repeat" needs two
// ids with the same 53-bit hash: about one chance in 10^4 at a million records, and it only costs a
// warning (and that record), never a silent loss.

export class SeenIds {
  private table = new Float64Array(1024);
  private used = 0;

  get size(): number {
    return this.used;
  }

  /** Records the id; false when it was already there. */
  add(id: string): boolean {
    if ((this.used + 1) * 2 > this.table.length) this.grow();
    if (!insert(this.table, hash53(id))) return false;
    this.used++;
    return true;
  }

  private grow(): void {
    const old = this.table;
    this.table = new Float64Array(old.length * 2);
    for (const h of old) if (h !== 0) insert(this.table, h);
  }
}

function insert(table: Float64Array, h: number): boolean {
  const mask = table.length - 1;
  for (let i = h % table.length; ; i = (i + 1) & mask) {
    const slot = table[i];
    if (slot === 0) {
      table[i] = h;
      return true;
    }
    if (slot === h) return false;
  }
}

/** cyrb53 (a public-domain string hash), never 0 so that 0 can mark an empty slot. */
export function hash53(text: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0) || 1;
}
